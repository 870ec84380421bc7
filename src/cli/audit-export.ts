// `flink-chatops audit export [--since T] [--until T]`: writes every audit event the store still holds, in seq order,
// one JSON line each, to stdout and nothing else there (docs/audit.md#exporting-the-trail). T is an ISO-8601 time or
// a time ago (`7d`, `24h`, `30m`).
import { loadConfig, redactUrl, type RedisSettings } from '../config.js';
import { parseRetention } from '../config/retention.js';
import { createConnection, type RedisConnection } from '../store/connection.js';
import { RedisAuditLog } from '../store/audit-log.js';
import { parseArgs } from './args.js';
import type { CliOutput } from './check-policy.js';

/** Where the export goes; `drain` (when there is one) waits until what was written has gone out. */
export type ExportOutput = CliOutput & { drain?: () => Promise<void> };

export interface ExportContext {
  env: Record<string, string | undefined>;
  now: () => number;
  /** How long Redis may take to answer the first command before the export gives up. */
  connectTimeoutMs: number;
}

const defaults = (): ExportContext => ({ env: process.env, now: Date.now, connectTimeoutMs: 10_000 });

const NAME = 'flink-chatops audit export';
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Whether the written fields name a real instant (no 2025-02-30, no 24:00). */
function realFields(y: string, mo: string, d: string, h = '0', mi = '0', s = '0'): boolean {
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const dateOk = day.getUTCFullYear() === Number(y) && day.getUTCMonth() === Number(mo) - 1;
  return dateOk && day.getUTCDate() === Number(d) && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60;
}

/** `--since`/`--until` as ms: an ISO-8601 date or time with its zone, or a time ago; else why not. */
export function parseTime(text: string, now: number): { ok: true; ms: number } | { ok: false; message: string } {
  const trimmed = text.trim();
  const fields = DATE.exec(trimmed) ?? DATE_TIME.exec(trimmed);
  if (fields) {
    const [, y, mo, d, h, mi, s] = fields as unknown as [string, string, string, string, string?, string?, string?];
    const ms = Date.parse(trimmed);
    if (!realFields(y, mo, d, h, mi, s) || Number.isNaN(ms))
      return { ok: false, message: 'is not a real date or time' };
    if (ms < 0) return { ok: false, message: 'is before 1970' };
    return { ok: true, ms };
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) {
    return { ok: false, message: 'has no time zone: end it with Z or an offset, e.g. 2025-03-14T09:00:00Z' };
  }
  const ago = parseRetention(trimmed);
  if (!ago.ok) {
    return { ok: false, message: 'is neither an ISO-8601 time (2025-03-14T09:00:00Z) nor a time ago (7d, 24h, 30m)' };
  }
  return { ok: true, ms: Math.max(0, now - ago.ms) };
}

type Window = { ok: true; since?: number; until?: number } | { ok: false; message: string };

/** The arguments as a window of ms; any problem, named after its option. */
export function parseWindow(args: string[], now: number): Window {
  const parsed = parseArgs(args, { since: 'value', until: 'value' });
  if (!parsed.ok) return parsed;
  if (parsed.positional.length > 0) return { ok: false, message: `unexpected argument "${parsed.positional[0]}"` };
  const window: { since?: number; until?: number } = {};
  for (const name of ['since', 'until'] as const) {
    const text = parsed.values[name];
    if (typeof text !== 'string') continue;
    const time = parseTime(text, now);
    if (!time.ok) return { ok: false, message: `--${name} ${JSON.stringify(text)} ${time.message}` };
    window[name] = time.ms;
  }
  if (window.since !== undefined && window.until !== undefined && window.since > window.until) {
    return { ok: false, message: '--since is after --until: nothing could match' };
  }
  return { ok: true, ...window };
}

/** The Redis a message names: the URL with its password masked, and the sentinels or cluster nodes of those modes. */
function describeRedis(settings: RedisSettings): string {
  const url = redactUrl(settings.url);
  const nodes = (list: readonly { host: string; port: number }[]) => list.map((n) => `${n.host}:${n.port}`).join(',');
  if (settings.mode === 'sentinel')
    return `${url} (master ${settings.sentinelMaster} via ${nodes(settings.sentinels)})`;
  if (settings.mode === 'cluster') return `${url} (cluster ${nodes(settings.clusterNodes)})`;
  return url;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)) || 'no answer';

/** Resolves once Redis answers a PING; rejects with the last connection error, or after `timeoutMs`. */
async function reachable(redis: RedisConnection, timeoutMs: number): Promise<void> {
  let lastError: unknown;
  // Stays attached for the whole export: without a listener ioredis prints each connection error on stderr.
  redis.on('error', (error: unknown) => (lastError = error));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(lastError ?? new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([redis.ping(), deadline]);
  } catch (error) {
    // ioredis' own "max retries" message says less than the connection error behind it.
    throw lastError ?? error;
  } finally {
    clearTimeout(timer);
  }
}

/** Writes the events a hundred lines at a time; `written` counts the lines handed to `io`, for a failure's message. */
async function writeEvents(
  log: RedisAuditLog,
  window: { since?: number; until?: number },
  io: ExportOutput,
  progress: { written: number },
): Promise<void> {
  let lines: string[] = [];
  const flush = async () => {
    if (lines.length > 0) io.out(`${lines.join('\n')}\n`);
    progress.written += lines.length;
    lines = [];
    await io.drain?.();
  };
  for await (const event of log.range(window)) {
    lines.push(JSON.stringify(event));
    if (lines.length === 100) await flush();
  }
  await flush();
}

export async function auditExport(args: string[], io: ExportOutput, given: Partial<ExportContext> = {}) {
  const context = { ...defaults(), ...given };
  const window = parseWindow(args, context.now());
  if (!window.ok) {
    io.err(`${NAME}: ${window.message}\n`);
    return 1;
  }
  const loaded = loadConfig(context.env, 'worker');
  if (!loaded.ok) {
    io.err(`${NAME}: configuration problems:\n${loaded.problems.map((p) => `  ${p}`).join('\n')}\n`);
    return 1;
  }
  const settings = loaded.config.redis;
  const redis = createConnection(settings, 'producer');
  const progress = { written: 0 };
  try {
    try {
      await reachable(redis, context.connectTimeoutMs);
    } catch (error) {
      io.err(`${NAME}: cannot reach Redis at ${describeRedis(settings)}: ${messageOf(error)}\n`);
      return 1;
    }
    const log = new RedisAuditLog(redis, { prefix: settings.prefix });
    const { ok: _ok, ...range } = window;
    await writeEvents(log, range, io, progress);
    return 0;
  } catch (error) {
    io.err(
      `${NAME}: stopped after ${progress.written} events, reading Redis at ${describeRedis(settings)}: ${messageOf(error)}\n`,
    );
    return 1;
  } finally {
    redis.disconnect();
  }
}
