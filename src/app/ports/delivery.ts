// The notifier's delivery state port: per-operation idempotency marks, the last rendered card seq, the thread
// permalink, and the per-operation lock one notifier replica at a time holds (docs/lifecycle.md#delivery-and-pacing;
// store/delivery.ts on Redis, store/memory/delivery.ts in memory).

/** What became of one post (`post:<seq>`, `digest:<phase>:<channel>` or `dm:<seq>:<user>`). */
export type DeliveryMark =
  /** About to be posted (written BEFORE the call): its outcome is unknown until `done` replaces it. */
  | { state: 'pending'; at: number; by: string }
  | { state: 'done'; ts: string }
  /** Nothing to post (the renderer wanted no message). */
  | { state: 'skipped'; why: string }
  /** Slack refused it for good (e.g. not_in_channel): logged, never retried. */
  | { state: 'failed'; error: string; at: number };

export interface MarkRead {
  /** The stored string, for compare-and-set; undefined when absent. */
  raw: string | undefined;
  mark: DeliveryMark | undefined;
}

export interface DeliverySnapshot {
  renderedSeq: number;
  permalink: string | undefined;
  marks: Map<string, MarkRead>;
}

/** An operation's marks, seq and permalink are kept for the retention after its last write (as long as its record). */
export interface DeliveryState {
  read(opId: string): Promise<DeliverySnapshot>;
  mark(opId: string, field: string): Promise<MarkRead>;
  /** Writes `mark` only if the field still holds `expectedRaw` (undefined = absent); false when someone else moved it. */
  casMark(
    opId: string,
    field: string,
    expectedRaw: string | undefined,
    mark: DeliveryMark,
  ): Promise<{ ok: boolean; raw: string }>;
  setMark(opId: string, field: string, mark: DeliveryMark): Promise<void>;
  renderedSeq(opId: string): Promise<number>;
  /** Raises the seq, never lowers it (two replicas may render out of order); returns the value it held before. */
  raiseRendered(opId: string, seq: number): Promise<number>;
  setPermalink(opId: string, permalink: string): Promise<void>;
  /** Takes the operation's lock for `ttlMs`, or renews it when already held under `token` (a retried take). */
  tryLock(opId: string, token: string, ttlMs: number): Promise<boolean>;
  /** False once the lock expired or someone else holds it. */
  extendLock(opId: string, token: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock only while it is still `token`'s. */
  releaseLock(opId: string, token: string): Promise<void>;
}
