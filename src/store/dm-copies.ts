// The approver DMs of each operation in Redis: every copy's `{channel, ts}` (so a decision anywhere can update
// them all), whether it was updated, and which DM rounds are settled (so they are not worked out again).
import type { DmKind } from '../domain/engines/policy/approvers.js';
import type { RedisConnection } from './connection.js';
import type { DeliveryMark } from './delivery.js';
import { notifierKeys, type NotifierKeys } from './keys.js';

export interface DmCopy {
  user: string;
  channel: string;
  ts: string;
  /** The history entry that called for it. */
  seq: number;
  kind: DmKind;
  /** The AWAITING_APPROVAL entry whose plan its buttons approve (0: a notice without buttons). */
  round: number;
  /** Edited to the outcome, buttons gone. */
  closed?: boolean;
}

export interface DmState {
  copies: DmCopy[];
  /** Rounds every DM of which is settled (sent, refused or given up). */
  settled: Set<number>;
}

const copyField = (seq: number, user: string): string => `copy:${seq}:${user}`;

export class DmCopies {
  private readonly keys: NotifierKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    /** As long as the operation's delivery marks. */
    private readonly retentionMs: number,
  ) {
    this.keys = notifierKeys(prefix);
  }

  async read(opId: string): Promise<DmState> {
    const all = await this.redis.hgetall(this.keys.dmCopies(opId));
    const copies: DmCopy[] = [];
    const settled = new Set<number>();
    for (const [field, raw] of Object.entries(all)) {
      if (field.startsWith('round:')) settled.add(Number(field.slice('round:'.length)));
      if (!field.startsWith('copy:')) continue;
      try {
        copies.push(JSON.parse(raw) as DmCopy);
      } catch {
        // An unreadable copy cannot be updated; the others still are.
      }
    }
    return { copies, settled };
  }

  /** The DM's delivery mark (`dm:<seq>:<user>`) and its copy, in one step: a posted DM is never without its copy. */
  async sent(
    opId: string,
    markField: string,
    mark: Extract<DeliveryMark, { state: 'done' }>,
    copy: DmCopy,
  ): Promise<void> {
    const delivery = this.keys.delivery(opId);
    const copies = this.keys.dmCopies(opId);
    await this.redis
      .multi()
      .hset(delivery, markField, JSON.stringify(mark))
      .pexpire(delivery, this.retentionMs)
      .hset(copies, copyField(copy.seq, copy.user), JSON.stringify(copy))
      .pexpire(copies, this.retentionMs)
      .exec();
  }

  async closed(opId: string, copy: DmCopy): Promise<void> {
    await this.redis.hset(
      this.keys.dmCopies(opId),
      copyField(copy.seq, copy.user),
      JSON.stringify({ ...copy, closed: true }),
    );
  }

  async settle(opId: string, seq: number): Promise<void> {
    const key = this.keys.dmCopies(opId);
    await this.redis.multi().hset(key, `round:${seq}`, '1').pexpire(key, this.retentionMs).exec();
  }
}
