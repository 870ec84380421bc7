// The `exceptions` answer's data (docs/commands.md#flink-exceptions): the target's exceptions from Flink's history and
// the operator's JobException Warnings, each once, its restarts and status.error, newest first.
import { LINE_CHARS, type FlinkException } from './exception-history.js';
import { isRecord } from './merge-patch.js';
import { statusErrorOf } from './resource.js';
import type { Target } from './target.js';

/** Where an exception was found: the operator's events, Flink's exception history, or both. */
export type ExceptionSource = 'events' | 'flink' | 'both';

export interface JobExceptionEntry {
  /** Epoch ms the exception happened (`exception-timestamp`), else when the event was last seen. */
  at?: number;
  /** `task-name` annotation, e.g. `Source: Kafka events -> Map (2/4)`. */
  task?: string;
  /** First line of the message: the exception's class and text. */
  headline: string;
  /** The whole message as the operator recorded it (a stack trace cut to its first lines). */
  message: string;
  /** How often the operator saw this same exception (the event's `count`); 1 for one only in Flink's history. */
  count: number;
  source: ExceptionSource;
}

export interface RestartEntry {
  at?: number;
  /** e.g. `Job status changed from RUNNING to RESTARTING`. */
  message: string;
  count: number;
}

export interface JobExceptions {
  exceptions: JobExceptionEntry[];
  /** How many exceptions there were before the limit. */
  total: number;
  /** Task failovers the exceptions stand for (sum of counts): each restarted the failed tasks. */
  failovers: number;
  /** JobStatusChanged events to RESTARTING or FAILED, newest first. */
  restarts: RestartEntry[];
  /** status.error as text (the message of a JSON error). */
  error?: string;
}

export const JOB_EXCEPTION_REASON = 'JobException';
const RESTART = /\bto (RESTARTING|FAILED|FAILING)\b/;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function time(value: unknown): number | undefined {
  const ms = Date.parse(str(value) ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

interface RawEvent {
  type?: string;
  reason?: string;
  message: string;
  count: number;
  lastSeen?: number;
  annotations: Record<string, unknown>;
}

/** Only events about this very object (kind and name; uid when both sides know it). */
function readEvent(raw: unknown, target: Target, uid: string | undefined): RawEvent | undefined {
  if (!isRecord(raw)) return undefined;
  const involved = isRecord(raw.involvedObject) ? raw.involvedObject : {};
  if (involved.name !== target.name || (involved.kind !== undefined && involved.kind !== target.kind)) return undefined;
  if (involved.namespace !== undefined && involved.namespace !== target.namespace) return undefined;
  if (uid !== undefined && involved.uid !== undefined && involved.uid !== uid) return undefined;
  const meta = isRecord(raw.metadata) ? raw.metadata : {};
  const count = typeof raw.count === 'number' && Number.isSafeInteger(raw.count) && raw.count > 0 ? raw.count : 1;
  const lastSeen = time(raw.lastTimestamp) ?? time(raw.eventTime) ?? time(raw.firstTimestamp);
  const event: RawEvent = {
    message: typeof raw.message === 'string' ? raw.message : '',
    count,
    annotations: isRecord(meta.annotations) ? meta.annotations : {},
  };
  if (typeof raw.type === 'string') event.type = raw.type;
  if (typeof raw.reason === 'string') event.reason = raw.reason;
  if (lastSeen !== undefined) event.lastSeen = lastSeen;
  return event;
}

const newestFirst = (a: { at?: number }, b: { at?: number }): number => (b.at ?? -Infinity) - (a.at ?? -Infinity);

function exceptionOf(e: RawEvent): JobExceptionEntry {
  const at = time(e.annotations['exception-timestamp']) ?? e.lastSeen;
  const task = str(e.annotations['task-name']);
  const headline = e.message.split('\n', 1)[0]?.trim() || '(no message)';
  return {
    headline,
    message: e.message,
    count: e.count,
    source: 'events',
    ...(at === undefined ? {} : { at }),
    ...(task === undefined ? {} : { task }),
  };
}

/** First lines compared as far as the bot keeps them of Flink's entries. */
const sameHeadline = (a: string, b: string): boolean => a.slice(0, LINE_CHARS) === b.slice(0, LINE_CHARS);

/**
 * Each exception once. The operator records every root exception of Flink's history as a JobException event
 * (its first stack trace lines; the same text again bumps the event's `count`, its `exception-timestamp` the
 * newest), so an event stands for up to `count` history entries with its first line, none newer than it.
 */
function merged(events: JobExceptionEntry[], flink: readonly FlinkException[]): JobExceptionEntry[] {
  const unmatched = [...flink];
  const fromEvents = events.map((e): JobExceptionEntry => {
    let folded = 0;
    for (let i = 0; i < unmatched.length && folded < e.count;) {
      const f = unmatched[i] as FlinkException;
      if (sameHeadline(f.headline, e.headline) && (e.at === undefined || f.at <= e.at)) {
        unmatched.splice(i, 1);
        folded++;
      } else i++;
    }
    return folded > 0 ? { ...e, source: 'both' } : e;
  });
  const fromFlink = unmatched.map((f): JobExceptionEntry => ({ ...f, count: 1, source: 'flink' }));
  return [...fromEvents, ...fromFlink].sort(newestFirst);
}

/**
 * What went wrong recently on the target, from its events, Flink's exception history (`flink`, when read) and its
 * status; `limit` caps the exceptions listed.
 */
export function jobExceptions(
  target: Target,
  resource: unknown,
  events: readonly unknown[],
  limit: number,
  uid?: string,
  flink: readonly FlinkException[] = [],
): JobExceptions {
  const mine = events.map((raw) => readEvent(raw, target, uid)).filter((e): e is RawEvent => e !== undefined);
  const fromEvents = mine
    .filter((e) => e.type === 'Warning' && e.reason === JOB_EXCEPTION_REASON)
    .map(exceptionOf)
    .sort(newestFirst);
  const exceptions = merged(fromEvents, flink);
  const restarts = mine
    .filter((e) => e.reason === 'JobStatusChanged' && RESTART.test(e.message))
    .map((e) => ({ message: e.message, count: e.count, ...(e.lastSeen === undefined ? {} : { at: e.lastSeen }) }))
    .sort(newestFirst);
  const error = statusErrorOf(resource);
  const result: JobExceptions = {
    exceptions: exceptions.slice(0, Math.max(0, limit)),
    total: exceptions.length,
    failovers: exceptions.reduce((n, e) => n + e.count, 0),
    restarts,
  };
  if (error !== undefined) result.error = error;
  return result;
}
