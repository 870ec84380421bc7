// A logger for the code under test that keeps its lines, so a test can await the line that marks a step as done
// (an event, not a poll): e.g. that a Socket Mode redelivery was recognised and dropped.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface LogRecorder {
  logger: Logger;
  readonly lines: readonly LogLine[];
  /** Resolves with the first line (already written or to come) that matches; rejects after `timeoutMs` naming `what`. */
  logged(what: string, match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export function recordLogs(level = 'info'): LogRecorder {
  const lines: LogLine[] = [];
  const waiters = new Set<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) {
        if (!text.trim()) continue;
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const w of [...waiters]) {
          if (!w.match(line)) continue;
          waiters.delete(w);
          w.resolve(line);
        }
      }
      done();
    },
  });
  const logged = (what: string, match: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> => {
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (line: LogLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `no log line for ${what} within ${timeoutMs} ms; the last ones: ${lines
              .slice(-5)
              .map((l) => l.msg)
              .join(' | ')}`,
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
    });
  };
  return { logger: createLogger(level, sink), lines, logged };
}
