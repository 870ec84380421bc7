// What the health gate counts as restarts (docs/deep-verification.md#what-counts-as-a-restart): each root exception
// in the job's exception history is one failover (the exceptions that failed with it are part of it). Flink names the
// failing task for a task failover and none for a global one (the whole job failed over). The gate trips at
// `restarts` failovers within `window` (default 1 in 10m: any restart), or at one global failover; task failovers
// below that limit are only reported.
import { isRecord } from '../../model/merge-patch.js';
import { outsideText } from '../../model/outside-text.js';
import { restartLimitWords, type RestartLimit } from './verify.js';

/** Root exceptions read at most: Flink's answer holds 20 unless asked for more. */
const ENTRIES_READ = 100;
/** Text from Flink (task, address, exception name) is cut to this many characters. */
const FLINK_TEXT_CHARS = 80;

export interface Failover {
  /** ms, the JobManager's clock. */
  at: number;
  /** No task named: Flink failed the whole job over. */
  global: boolean;
  task?: string;
  /** The TaskManager's address (`endpoint`, before Flink 1.19 `location`). */
  where?: string;
  exception: string;
}

export interface Failovers {
  /** In the window, newest first. */
  recent: Failover[];
  /** Flink left older entries out and every one it gave is in the window: there may be more. */
  more: boolean;
  storm: boolean;
  /** When a storm ends by itself if no failover follows (JobManager clock); set only for a storm. */
  passesAt?: number;
}

/** Flink text as data: one line, no mention or link, no backtick to break a code span, at most 80 characters. */
export function flinkText(raw: string): string {
  const line = raw.replace(/\s+/g, ' ').trim().replaceAll('`', "'");
  const cut = line.length > FLINK_TEXT_CHARS ? `${line.slice(0, FLINK_TEXT_CHARS)}…` : line;
  return outsideText(cut);
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? flinkText(v) : undefined);

function failoverOf(raw: unknown): Failover | undefined {
  if (!isRecord(raw) || typeof raw.timestamp !== 'number' || !Number.isFinite(raw.timestamp)) return undefined;
  const task = text(raw.taskName);
  const where = text(raw.endpoint) ?? text(raw.location);
  const firstLine = typeof raw.stacktrace === 'string' ? raw.stacktrace.slice(0, 1_000).split('\n', 1)[0] : undefined;
  const exception = text(raw.exceptionName) ?? text(firstLine) ?? '(no message)';
  return {
    at: raw.timestamp,
    global: task === undefined,
    ...(task === undefined ? {} : { task }),
    ...(where === undefined ? {} : { where }),
    exception,
  };
}

/** The failovers of a `/jobs/<id>/exceptions` answer within `limit.window` of `now`, and whether they are a storm. */
export function failoversIn(exceptions: unknown, limit: RestartLimit, now: number): Failovers {
  const history = isRecord(exceptions) && isRecord(exceptions.exceptionHistory) ? exceptions.exceptionHistory : {};
  const entries = Array.isArray(history.entries) ? history.entries.slice(0, ENTRIES_READ) : [];
  const all = entries.map(failoverOf).filter((f): f is Failover => f !== undefined);
  const recent = all.filter((f) => now - f.at <= limit.windowMs).sort((a, b) => b.at - a.at);
  const more = history.truncated === true && recent.length === all.length && recent.length > 0;
  const nth = recent[limit.restarts - 1];
  const global = recent.find((f) => f.global);
  const ends = [nth, global].flatMap((f) => (f === undefined ? [] : [f.at + limit.windowMs]));
  if (ends.length === 0) return { recent, more, storm: false };
  return { recent, more, storm: true, passesAt: Math.max(...ends) };
}

export function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** `at 10:32:10 UTC in task "Source (2/4)" on 10.0.0.7:6121: java.io.IOException`. */
function failoverWords(f: Failover): string {
  const where = f.global
    ? 'a global failover (no task named)'
    : `in task "${f.task ?? ''}"${f.where === undefined ? '' : ` on ${f.where}`}`;
  return `at ${clock(f.at)} ${where}: ${f.exception}`;
}

function kinds(recent: readonly Failover[]): string {
  const global = recent.filter((f) => f.global).length;
  const task = recent.length - global;
  const parts = [task > 0 ? `${task} task` : '', global > 0 ? `${global} global` : ''].filter(Boolean);
  return parts.join(', ');
}

/**
 * What trips the gate in words: how many, of which kind, why (the limit, or a global failover, which always counts),
 * and the newest (JobManager clock).
 */
export function stormWords(f: Failovers, limit: RestartLimit): string {
  const newest = f.recent[0];
  const count = `${f.recent.length}${f.more ? ' or more' : ''}`;
  const why =
    f.recent.length >= limit.restarts
      ? `the gate's limit is ${restartLimitWords(limit)}`
      : `a global failover (the whole job restarted) always counts; the limit is ${restartLimitWords(limit)}`;
  return (
    `the job failed over ${count} time(s) in the last ${limit.window} (${kinds(f.recent)}): ${why}; ` +
    `the last ${newest === undefined ? '' : failoverWords(newest)} (JobManager clock)`
  );
}

/** Below the limit: a fact for a passing gate. */
export function calmWords(f: Failovers, limit: RestartLimit): string {
  const newest = f.recent[0];
  if (newest === undefined) return `no restart in the last ${limit.window}`;
  return `${f.recent.length} task failover(s) in the last ${limit.window}, under the gate's limit of ${limit.restarts} (the last ${failoverWords(newest)}, JobManager clock)`;
}
