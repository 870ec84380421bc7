// `flink-chatops audit verify FILE`: streams an audit export through the chain check and prints either what it holds
// or the first bad line and why (docs/audit.md#verifying-an-export). `audit export` is in audit-export.ts.
import { open, type FileHandle } from 'node:fs/promises';
import { ChainChecker, type ChainResult } from '../domain/kit/audit/verify.js';
import { parseArgs } from './args.js';
import { auditExport, type ExportOutput } from './audit-export.js';

/** stdout and stderr; `drain` waits while stdout's buffer is full, so a long export is not held in memory. */
const processOutput: ExportOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  drain: () =>
    process.stdout.writableNeedDrain
      ? new Promise((resolve) => process.stdout.once('drain', resolve))
      : Promise.resolve(),
};

const USAGE = [
  'usage: flink-chatops audit verify FILE',
  '       flink-chatops audit export [--since T] [--until T]',
].join('\n');
const HELP = [
  'verify: checks an audit export (JSON lines, docs/audit.md): every line an event, seq without gaps, each prevHash',
  'the hash of the line before, each hash matching its content. Exits 0 when the chain is intact, else 1 naming the',
  'first bad line and why.',
  'export: writes the events the store still holds (REDIS_URL, REDIS_PREFIX) to stdout, one JSON line each, in seq',
  'order; --since and --until keep those in between, T an ISO-8601 time (2025-03-14T09:00:00Z) or a time ago (7d, 24h).',
].join('\n');

const isHelp = (args: string[]) => args.length === 1 && (args[0] === '--help' || args[0] === '-h');

type Opened = { ok: true; handle: FileHandle } | { ok: false; message: string };

function unreadable(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${file}: no such file`;
  if (code === 'EISDIR') return `${file}: is a directory, not a file`;
  return `${file}: cannot be read (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

async function openFile(file: string): Promise<Opened> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return { ok: false, message: unreadable(file, error) };
  }
  let message: string | undefined;
  try {
    if ((await handle.stat()).isDirectory()) message = `${file}: is a directory, not a file`;
  } catch (error) {
    message = unreadable(file, error);
  }
  if (message === undefined) return { ok: true, handle };
  await handle.close();
  return { ok: false, message };
}

/** Reads the file line by line into the checker, stopping at the first bad line. */
async function check(handle: FileHandle): Promise<ChainResult> {
  const checker = new ChainChecker();
  // The handle stays ours to close (autoClose off), whether the loop ends, breaks or throws.
  const lines = handle.readLines({ encoding: 'utf8', autoClose: false });
  try {
    for await (const line of lines) {
      checker.push(line);
      if (checker.failed) break;
    }
  } finally {
    lines.close();
  }
  return checker.result();
}

async function verify(file: string, io: ExportOutput): Promise<number> {
  const opened = await openFile(file);
  if (!opened.ok) {
    io.err(`flink-chatops audit verify: ${opened.message}\n`);
    return 1;
  }
  let result: ChainResult;
  try {
    result = await check(opened.handle);
  } catch (error) {
    io.err(`flink-chatops audit verify: ${unreadable(file, error)}\n`);
    return 1;
  } finally {
    await opened.handle.close();
  }
  if (!result.ok) {
    io.err(`${file}: line ${result.line}: ${result.reason}\n`);
    return 1;
  }
  const events = `${result.count} event${result.count === 1 ? '' : 's'}`;
  io.out(`${file}: ${events}, seq ${result.first}–${result.last}, chain intact\n`);
  return 0;
}

export async function audit(args: string[], io: ExportOutput = processOutput): Promise<number> {
  const [command, ...rest] = args;
  if (isHelp(args) || ((command === 'verify' || command === 'export') && isHelp(rest))) {
    io.out(`${USAGE}\n${HELP}\n`);
    return 0;
  }
  const usageError = (message: string) => {
    io.err(`flink-chatops audit: ${message}\n${USAGE}\n`);
    return 1;
  };
  if (command === undefined) return usageError('name a command: verify or export');
  if (command === 'export') return auditExport(rest, io);
  if (command !== 'verify') return usageError(`unknown command "${command}" (the commands are verify and export)`);
  const parsed = parseArgs(rest, {});
  if (!parsed.ok) return usageError(parsed.message);
  const [file, ...extra] = parsed.positional;
  if (file === undefined) return usageError('name the export file');
  if (extra.length > 0) return usageError('expected exactly one FILE');
  return verify(file, io);
}

/** The `audit` entry of the CLI's subcommand table. */
export const handler = (args: string[]): Promise<number> => audit(args);
