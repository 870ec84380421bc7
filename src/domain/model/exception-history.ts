// Flink's own exception history (REST `/jobs/<id>/exceptions`, docs/commands.md#where-exceptions-come-from): the
// JobMaster keeps its run's newest root exceptions in memory while Kubernetes drops the operator's JobException events
// after an hour, so the `exceptions` answer reads both and lists each exception once, saying where it was found.
import { isRecord } from './merge-patch.js';

/** `maxExceptions` the bot asks for: Flink keeps 16 per run unless `web.exception-history-size` says more. */
export const HISTORY_READ = 100;
/** Lines of a stack trace kept, as the operator keeps them in its events (`...stacktrace-lines`, 5). */
const TRACE_LINES = 5;
/** Each kept line is cut to this many characters: a message line can be megabytes. */
export const LINE_CHARS = 500;

/** One root exception of Flink's history, cut as the operator cuts it into an event. */
export interface FlinkException {
  /** Epoch ms. */
  at: number;
  headline: string;
  /** The first lines of the stack trace and `... (N more lines)`, as the operator's event message would be. */
  message: string;
  task?: string;
}

export interface FlinkExceptionHistory {
  entries: FlinkException[];
  /** Flink had more than the bot asked for: the oldest were not read. */
  truncated: boolean;
}

const cut = (line: string): string => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line);

function entryOf(raw: unknown): FlinkException | undefined {
  if (!isRecord(raw) || typeof raw.timestamp !== 'number' || !Number.isFinite(raw.timestamp)) return undefined;
  const trace = typeof raw.stacktrace === 'string' && raw.stacktrace.trim() !== '' ? raw.stacktrace : undefined;
  const name = typeof raw.exceptionName === 'string' ? raw.exceptionName : '(no message)';
  const lines = (trace ?? name).split('\n', TRACE_LINES + 1);
  const total = trace === undefined ? 1 : countLines(trace);
  const kept = lines.slice(0, TRACE_LINES).map(cut);
  if (total > TRACE_LINES) kept.push(`... (${total - TRACE_LINES} more lines)`);
  const headline = kept[0]?.trim() || '(no message)';
  const entry: FlinkException = { at: raw.timestamp, headline, message: kept.join('\n') };
  if (typeof raw.taskName === 'string' && raw.taskName !== '') entry.task = raw.taskName;
  return entry;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The `exceptionHistory` of a `/jobs/<id>/exceptions` answer, newest first, at most `HISTORY_READ` entries. */
export function flinkExceptionHistory(body: unknown): FlinkExceptionHistory {
  const history = isRecord(body) && isRecord(body.exceptionHistory) ? body.exceptionHistory : {};
  const raw = Array.isArray(history.entries) ? history.entries : [];
  const entries = raw
    .slice(0, HISTORY_READ)
    .map(entryOf)
    .filter((e): e is FlinkException => e !== undefined)
    .sort((a, b) => b.at - a.at);
  return { entries, truncated: history.truncated === true || raw.length > HISTORY_READ };
}
