// The notifier's side of the `{prefix}:events` stream: its consumer group, reads, claims of idle entries, acks.
import type { RedisConnection } from './connection.js';
import { storeKeys } from './keys.js';

/** The consumer group every notifier replica reads with (each entry goes to one of them). */
export const NOTIFIER_GROUP = 'notifier';

/** A raw stream entry; fields are null when the entry was trimmed while pending. */
export type RawEntry = [id: string, fields: string[] | null];

/** Another stream read the same way (the job alerts' `alertEvents` with group `alerts`, docs/alerts.md). */
export interface StreamChoice {
  key: string;
  group: string;
}

export class NotifierStream {
  readonly key: string;
  readonly group: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    private readonly consumer: string,
    choice?: StreamChoice,
  ) {
    this.key = choice?.key ?? storeKeys(prefix).events;
    this.group = choice?.group ?? NOTIFIER_GROUP;
  }

  /** Creates the group at the stream's start (and the stream if missing); an existing group is kept as it is. */
  async ensureGroup(): Promise<void> {
    try {
      await this.redis.call('XGROUP', 'CREATE', this.key, this.group, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
  }

  /**
   * New entries for this consumer (`>`), waiting up to `blockMs`; or with `id` `0`, the entries already delivered
   * to this consumer and not acknowledged (a restart under the same name). Blocks: pass a dedicated connection.
   */
  async read(connection: RedisConnection, id: '>' | '0', count: number, blockMs?: number): Promise<RawEntry[]> {
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    const reply = (await connection.call(
      'XREADGROUP',
      'GROUP',
      this.group,
      this.consumer,
      'COUNT',
      count,
      ...block,
      'STREAMS',
      this.key,
      id,
    )) as [string, RawEntry[]][] | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** Takes over entries other consumers left unacknowledged for `minIdleMs` (a dead or stuck replica). */
  async claimIdle(minIdleMs: number, count: number, maxPages = 10): Promise<RawEntry[]> {
    const claimed: RawEntry[] = [];
    let cursor = '0-0';
    for (let page = 0; page < maxPages; page++) {
      const reply = (await this.redis.call(
        'XAUTOCLAIM',
        this.key,
        this.group,
        this.consumer,
        minIdleMs,
        cursor,
        'COUNT',
        count,
      )) as [string, RawEntry[], string[]?];
      claimed.push(...reply[1]);
      cursor = reply[0];
      if (cursor === '0-0') break;
    }
    return claimed;
  }

  /** Resets the idle time of entries this consumer is still working on, so no other replica claims them. */
  async touch(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.redis.call('XCLAIM', this.key, this.group, this.consumer, 0, ...ids.slice(i, i + 500), 'JUSTID');
    }
  }

  async ack(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500)
      await this.redis.call('XACK', this.key, this.group, ...ids.slice(i, i + 500));
  }
}
