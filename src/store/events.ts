// The `{prefix}:events` stream: how history entries are written to it and read back by consumers
// (docs/lifecycle.md#records-and-the-event-stream).
import type { RedisConnection } from './connection.js';
import { HISTORY_TYPES, type HistoryEntry, type HistoryType } from '../domain/engines/operation.js';
import { storeKeys } from './keys.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The stream is trimmed by age, never by count (docs/lifecycle.md#records-and-the-event-stream). */
export const EVENTS_MAX_AGE_MS = 7 * DAY_MS;

/** One stream entry: a history entry of operation `op`, with its stream id. */
export interface OperationEvent extends HistoryEntry {
  /** Stream entry id (`<ms>-<n>`); pass it back as `after` to read on. */
  id: string;
  op: string;
}

/** The argument group the commit script turns into one XADD: seq, type, name, actor, at, detail (JSON). */
export function entryArgs(entry: HistoryEntry): string[] {
  return [String(entry.seq), entry.type, entry.name, entry.actor, String(entry.at), JSON.stringify(entry.detail)];
}

type RawEntry = [id: string, fields: string[]];

/** Parses one raw stream entry; throws when a field is missing or malformed (the stream is ours alone). */
export function parseEvent([id, fields]: RawEntry): OperationEvent {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
  const field = (name: string): string => {
    const value = map.get(name);
    if (value === undefined) throw new Error(`event ${id} has no "${name}" field`);
    return value;
  };
  const type = field('type');
  if (!(HISTORY_TYPES as readonly string[]).includes(type))
    throw new Error(`event ${id} has an unknown type "${type}"`);
  return {
    id,
    op: field('op'),
    seq: Number(field('seq')),
    type: type as HistoryType,
    name: field('name'),
    actor: field('actor'),
    at: Number(field('at')),
    detail: JSON.parse(field('detail')) as Record<string, unknown>,
  };
}

export interface ReadOptions {
  /** Read entries after this stream id (exclusive); default: from the oldest kept. */
  after?: string;
  /** At most this many entries (default 100). */
  count?: number;
}

/** Entries in stream order, oldest first. */
export async function readEvents(
  redis: RedisConnection,
  prefix: string,
  options: ReadOptions = {},
): Promise<OperationEvent[]> {
  const start = options.after === undefined ? '-' : `(${options.after}`;
  const raw = (await redis.xrange(storeKeys(prefix).events, start, '+', 'COUNT', options.count ?? 100)) as RawEntry[];
  return raw.map(parseEvent);
}

/**
 * Waits up to `blockMs` for entries after `after` (`$` = only new ones). Blocks the connection: give it one of
 * its own, never the connection the stores use.
 */
export async function waitForEvents(
  blocking: RedisConnection,
  prefix: string,
  after: string,
  blockMs: number,
  count = 100,
): Promise<OperationEvent[]> {
  const reply = (await blocking.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', storeKeys(prefix).events, after)) as
    [key: string, entries: RawEntry[]][] | null;
  return reply?.[0]?.[1].map(parseEvent) ?? [];
}

/** The id of the newest entry, or `0-0` on an empty stream: a starting point for `waitForEvents`. */
export async function lastEventId(redis: RedisConnection, prefix: string): Promise<string> {
  const raw = (await redis.xrevrange(storeKeys(prefix).events, '+', '-', 'COUNT', 1)) as RawEntry[];
  return raw[0]?.[0] ?? '0-0';
}
