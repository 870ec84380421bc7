// The logger (src/log.ts): its fields and the per-operation child logger.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, forOperation } from '../../src/log.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('redacts tokens in fields and in messages, and carries opId on child loggers', () => {
    const { lines, stream } = capture();
    const log = forOperation(createLogger('info', stream), 'op-abc123');
    log.info(
      { slack: { botToken: 'xoxb-123-456-secret' }, token: 'xapp-1-A-secret' },
      'posting with xoxb-123-456-secret',
    );
    expect(lines).toHaveLength(1);
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('secret');
    expect(lines[0]?.opId).toBe('op-abc123');
    expect(lines[0]?.level).toBe('info');
  });
});
