// `flink-chatops audit export` (src/cli/audit-export.ts) without a Redis to read: its times (ISO-8601 or a time ago),
// its refusals of bad usage, and a Redis that does not answer, each exit 1 with one clear line and nothing on stdout.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../../src/cli/audit.js';
import { auditExport, parseTime, parseWindow } from '../../../src/cli/audit-export.js';

const NOW = Date.parse('2025-03-14T12:00:00.000Z');
const HOUR = 3_600_000;

async function exportWith(env: Record<string, string>, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text) };
  const code = await auditExport(args, io, { env, now: () => NOW, connectTimeoutMs: 2_000 });
  return { code, stdout, stderr };
}

describe('parseTime', () => {
  it.each([
    ['2025-03-14T09:26:53.589Z', Date.parse('2025-03-14T09:26:53.589Z')],
    ['2025-03-14T09:26Z', Date.parse('2025-03-14T09:26:00Z')],
    ['2025-03-14T10:26:53+01:00', Date.parse('2025-03-14T09:26:53Z')],
    ['2025-03-14', Date.parse('2025-03-14T00:00:00Z')],
    ['7d', NOW - 7 * 24 * HOUR],
    ['24h', NOW - 24 * HOUR],
    ['30m', NOW - 30 * 60_000],
  ])('reads %s', (text, ms) => {
    expect(parseTime(text, NOW)).toEqual({ ok: true, ms });
  });

  it.each([
    ['yesterday', 'is neither an ISO-8601 time (2025-03-14T09:00:00Z) nor a time ago (7d, 24h, 30m)'],
    ['-7d', 'is neither an ISO-8601 time (2025-03-14T09:00:00Z) nor a time ago (7d, 24h, 30m)'],
    ['2025-02-30', 'is not a real date or time'],
    ['2025-03-14T24:00Z', 'is not a real date or time'],
    ['2025-03-14T09:00:00', 'has no time zone: end it with Z or an offset, e.g. 2025-03-14T09:00:00Z'],
    ['1969-12-31T00:00Z', 'is before 1970'],
  ])('refuses %s', (text, message) => {
    expect(parseTime(text, NOW)).toEqual({ ok: false, message });
  });
});

describe('parseWindow', () => {
  it('gives either end, both or neither', () => {
    expect(parseWindow([], NOW)).toEqual({ ok: true });
    expect(parseWindow(['--since', '2h', '--until=1h'], NOW)).toEqual({
      ok: true,
      since: NOW - 2 * HOUR,
      until: NOW - HOUR,
    });
  });

  it('names the option that is wrong', () => {
    expect(parseWindow(['--since', 'soon'], NOW)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^--since "soon" is neither/),
    });
    expect(parseWindow(['--since', '1h', '--until', '2h'], NOW)).toEqual({
      ok: false,
      message: '--since is after --until: nothing could match',
    });
    expect(parseWindow(['--from', '1h'], NOW)).toEqual({ ok: false, message: 'unknown option --from' });
    expect(parseWindow(['out.jsonl'], NOW)).toEqual({ ok: false, message: 'unexpected argument "out.jsonl"' });
    expect(parseWindow(['--until'], NOW)).toEqual({ ok: false, message: '--until needs a value' });
  });
});

describe('audit export, refusing', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let port = 0;
  beforeAll(async () => {
    // Accepts connections and never answers: a Redis that hangs.
    silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('a bad time: exit 1, the option named, nothing on stdout, Redis never asked', async () => {
    const result = await exportWith({ REDIS_URL: 'redis://127.0.0.1:1' }, '--since', 'last week');
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'flink-chatops audit export: --since "last week" is neither an ISO-8601 time (2025-03-14T09:00:00Z) nor a time ago (7d, 24h, 30m)\n',
    });
  });

  it('a bad configuration: exit 1 with the problems', async () => {
    const result = await exportWith({ REDIS_URL: 'http://example.com' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^flink-chatops audit export: configuration problems:\n {2}REDIS_URL/);
  });

  it('Redis refusing connections: exit 1 naming the URL with its password masked', async () => {
    const result = await exportWith({ REDIS_URL: 'redis://auditor:s3cret-pw@127.0.0.1:1/0' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^flink-chatops audit export: cannot reach Redis at redis:\/\/auditor:\*\*\*@127\.0\.0\.1:1\/0: .*ECONNREFUSED/,
    );
    expect(result.stderr).not.toContain('s3cret-pw');
  });

  it('Redis not answering: exit 1 after the deadline, naming it', async () => {
    const result = await exportWith({ REDIS_URL: `redis://:s3cret-pw@127.0.0.1:${port}` });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `flink-chatops audit export: cannot reach Redis at redis://:***@127.0.0.1:${port}: no answer within 2000 ms\n`,
    );
  });

  it('is reached through `audit export`, and its bad usage never prints the events', async () => {
    let stdout = '';
    let stderr = '';
    const code = await audit(['export', '--since'], { out: (t) => (stdout += t), err: (t) => (stderr += t) });
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'flink-chatops audit export: --since needs a value\n',
    });
  });
});
