// The sandbox's audit lines go to a file, not the terminal (docs/audit.md#in-the-sandbox): the terminal keeps the
// sandbox's own messages and warnings, while `serve` writes the lines to stdout as before (docs/audit.md#on-stdout).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from './bot.js';

export interface AuditFile {
  /** `<OS temp dir>/flink-sandbox-audit-<random>/audit.jsonl`, kept after the sandbox stops. */
  path: string;
  /** The logger the roles write their audit lines with (the same pino lines stdout would get). */
  lines: Logger;
  /** Writes what is buffered and closes the file. */
  close(): Promise<void>;
}

/** A fresh audit file for one run of the sandbox. */
export async function openAuditFile(): Promise<AuditFile> {
  const dir = await mkdtemp(join(tmpdir(), 'flink-sandbox-audit-'));
  const path = join(dir, 'audit.jsonl');
  const stream = createWriteStream(path, { flags: 'a' });
  await once(stream, 'open');
  return {
    path,
    lines: createLogger('info', stream),
    close: () => new Promise<void>((done) => stream.end(() => done())),
  };
}
