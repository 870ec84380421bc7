// What the in-memory twins use in place of Redis' data types: a sorted set ordered as Redis orders one, expiry
// on an injected clock, stream ids, and copies through JSON (so a twin hands out what Redis would parse back).

/** A Redis sorted set: members ordered by score, equal scores by member (byte order, as Redis compares them). */
export class SortedSet {
  private readonly scores = new Map<string, number>();

  add(member: string, score: number): void {
    this.scores.set(member, score);
  }

  remove(member: string): void {
    this.scores.delete(member);
  }

  has(member: string): boolean {
    return this.scores.has(member);
  }

  get size(): number {
    return this.scores.size;
  }

  /** Ascending (ZRANGE). */
  ascending(): [member: string, score: number][] {
    return [...this.scores].sort(([a, x], [b, y]) => x - y || byteOrder(a, b));
  }

  /** Descending (ZREVRANGE: equal scores by member descending too). */
  descending(): [member: string, score: number][] {
    return this.ascending().reverse();
  }

  /** Members scored at or below `max`, ascending (ZRANGEBYSCORE -inf max). */
  upTo(max: number): string[] {
    return this.ascending().flatMap(([member, score]) => (score <= max ? [member] : []));
  }

  /** Drops the members scored below `min` (ZREMRANGEBYSCORE -inf (min). */
  removeBelow(min: number): void {
    for (const [member, score] of this.scores) if (score < min) this.scores.delete(member);
  }
}

function byteOrder(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

/** A key's deadline as Redis keeps one (PX/PEXPIRE): undefined never expires; gone once the clock reaches it. */
export function alive(expiresAt: number | undefined, now: number): boolean {
  return expiresAt === undefined || now < expiresAt;
}

/** The next stream entry id at `ms` that is still greater than `last` (lua/includes/nextStreamId.lua). */
export function nextStreamId(last: { ms: number; seq: number } | undefined, ms: number): { ms: number; seq: number } {
  return last === undefined || ms > last.ms ? { ms, seq: 0 } : { ms: last.ms, seq: last.seq + 1 };
}

/** A deep copy that drops what JSON drops, as a value written to Redis and read back would. */
export function viaJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
