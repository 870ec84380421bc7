// The notifier's delivery state in Redis: per-operation idempotency marks, the last rendered card seq, the
// thread permalink, and the per-operation lock that lets one replica at a time make an operation's Slack calls.
import type {
  DeliveryMark,
  DeliverySnapshot,
  DeliveryState as DeliveryStatePort,
  MarkRead,
} from '../app/ports/delivery.js';
import type { RedisConnection } from './connection.js';
import { notifierKeys, type NotifierKeys } from './keys.js';
import { runScript } from './scripts.js';

export type { DeliveryMark, DeliverySnapshot, MarkRead };

export const postField = (seq: number): string => `post:${seq}`;
export const digestField = (phase: 'start' | 'end', channel: string): string => `digest:${phase}:${channel}`;
/** One approver DM: the history entry that called for it and the person (`<op>:<seq>:<user>`). */
export const dmField = (seq: number, user: string): string => `dm:${seq}:${user}`;
/** The edit of an earlier thread reply that entry `seq` amends (docs/lifecycle.md#the-thread). */
export const editField = (seq: number): string => `edit:${seq}`;

/** A stored mark; an unreadable one counts as an unknown outcome (both implementations read marks this way). */
export function parseMark(raw: string | undefined): DeliveryMark | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as DeliveryMark;
    return typeof value === 'object' && value !== null && typeof value.state === 'string' ? value : undefined;
  } catch {
    // A mark we cannot read is treated as unknown outcome: the caller resolves it by reading Slack.
    return { state: 'pending', at: 0, by: 'unreadable' };
  }
}

/** The snapshot of one operation's delivery hash (fields as stored): the marks, the rendered seq, the permalink. */
export function snapshotOf(all: Readonly<Record<string, string>>): DeliverySnapshot {
  const marks = new Map<string, MarkRead>();
  for (const [field, raw] of Object.entries(all)) {
    if (['post:', 'digest:', 'dm:', 'edit:'].some((kind) => field.startsWith(kind)))
      marks.set(field, { raw, mark: parseMark(raw) });
  }
  return { renderedSeq: Number(all.card ?? 0), permalink: all.permalink, marks };
}

export class DeliveryState implements DeliveryStatePort {
  private readonly keys: NotifierKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    /** How long an operation's marks are kept after its last write (at least as long as its record). */
    private readonly retentionMs: number,
  ) {
    this.keys = notifierKeys(prefix);
  }

  async read(opId: string): Promise<DeliverySnapshot> {
    return snapshotOf(await this.redis.hgetall(this.keys.delivery(opId)));
  }

  async mark(opId: string, field: string): Promise<MarkRead> {
    const raw = (await this.redis.hget(this.keys.delivery(opId), field)) ?? undefined;
    return { raw, mark: parseMark(raw) };
  }

  /** Writes `mark` only if the field still holds `expectedRaw` (undefined = absent); false when someone else moved it. */
  async casMark(
    opId: string,
    field: string,
    expectedRaw: string | undefined,
    mark: DeliveryMark,
  ): Promise<{ ok: boolean; raw: string }> {
    const raw = JSON.stringify(mark);
    const written = await runScript(
      this.redis,
      'casDeliveryMark',
      [this.keys.delivery(opId)],
      [field, expectedRaw ?? '', raw, this.retentionMs],
    );
    return { ok: written === 1, raw };
  }

  async setMark(opId: string, field: string, mark: DeliveryMark): Promise<void> {
    const key = this.keys.delivery(opId);
    await this.redis.multi().hset(key, field, JSON.stringify(mark)).pexpire(key, this.retentionMs).exec();
  }

  async renderedSeq(opId: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.delivery(opId), 'card')) ?? 0);
  }

  /** Compare-and-set upwards only, so two replicas never move the marker back; returns the value it held before. */
  async raiseRendered(opId: string, seq: number): Promise<number> {
    return (await runScript(
      this.redis,
      'raiseRenderedSeq',
      [this.keys.delivery(opId)],
      [seq, this.retentionMs],
    )) as number;
  }

  async setPermalink(opId: string, permalink: string): Promise<void> {
    const key = this.keys.delivery(opId);
    await this.redis.multi().hset(key, 'permalink', permalink).pexpire(key, this.retentionMs).exec();
  }

  /**
   * Takes the operation's lock, or finds it already held under `token` (then renews it): a SET whose reply was lost
   * in a failover, and that ioredis sent again or the caller retried, must not lock its own sender out until the TTL.
   */
  async tryLock(opId: string, token: string, ttlMs: number): Promise<boolean> {
    if ((await this.redis.set(this.keys.lock(opId), token, 'PX', ttlMs, 'NX')) === 'OK') return true;
    return this.extendLock(opId, token, ttlMs);
  }

  async extendLock(opId: string, token: string, ttlMs: number): Promise<boolean> {
    return (await runScript(this.redis, 'extendDeliveryLock', [this.keys.lock(opId)], [token, ttlMs])) === 1;
  }

  async releaseLock(opId: string, token: string): Promise<void> {
    await runScript(this.redis, 'releaseDeliveryLock', [this.keys.lock(opId)], [token]);
  }
}
