// `flink-chatops audit export` (src/cli/audit-export.ts) against a real Redis: twenty events appended through
// RedisAuditLog come out as JSON lines in seq order, nothing else on stdout, a chain `verifyChain` and
// `audit verify` accept; --since and --until keep the events in between, as times or as times ago.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/cli/audit.js';
import { auditExport } from '../../src/cli/audit-export.js';
import { AUDIT_ACTIONS, type AuditEvent } from '../../src/domain/kit/audit/event.js';
import { verifyChain } from '../../src/domain/kit/audit/verify.js';
import { RedisAuditLog } from '../../src/store/audit-log.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const BIN = new URL('../../bin/flink-chatops.js', import.meta.url).pathname;
const BASE = Date.parse('2025-03-14T09:00:00.000Z');
const MINUTE = 60_000;
/** The clock of the test: twenty minutes after the first event. */
const NOW = BASE + 20 * MINUTE;

let t: TestRedis;
let dir: string;
const appended: AuditEvent[] = [];

async function exportLines(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text) };
  const env = { REDIS_URL: t.url, REDIS_PREFIX: t.prefix };
  const code = await auditExport(args, io, { env, now: () => NOW });
  return { code, stdout, stderr, lines: stdout.split('\n').slice(0, -1) };
}

const seqs = (lines: string[]) => lines.map((line) => (JSON.parse(line) as AuditEvent).seq);

beforeAll(async () => {
  t = await redisForTest('audit-export');
  dir = await mkdtemp(join(tmpdir(), 'audit-export-'));
  const log = new RedisAuditLog(t.redis, { prefix: t.prefix, now: () => NOW });
  for (let i = 0; i < 20; i++) {
    appended.push(
      await log.append({
        id: `aud-${(0x100 + i).toString(16).padStart(20, '0')}`,
        at: new Date(BASE + i * MINUTE).toISOString(),
        actor: { user: i % 3 === 0 ? 'U0LEAD1' : 'U0ALICE', team: 'T0ACME' },
        action: AUDIT_ACTIONS[i % AUDIT_ACTIONS.length] as AuditEvent['action'],
        op: { id: `op-${i}`, kind: 'scale', cluster: 'prod', namespace: 'flink', name: 'orders' },
        ...(i % 4 === 0 && { change: { patch: [{ op: 'replace', path: '/spec/job/parallelism', value: i }] } }),
      }),
    );
  }
});

afterAll(async () => {
  await t.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('audit export', () => {
  it('writes every event as one JSON line in seq order, and nothing else on stdout or stderr', async () => {
    const { code, stdout, stderr, lines } = await exportLines();
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    expect(lines.map((line) => JSON.parse(line) as AuditEvent)).toStrictEqual(appended);
    expect(seqs(lines)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('gives a chain verifyChain accepts, and `audit verify` on the exported file', async () => {
    const { stdout, lines } = await exportLines();
    expect(verifyChain(lines)).toEqual({ ok: true, count: 20, first: 1, last: 20 });
    const file = join(dir, 'audit.jsonl');
    await writeFile(file, stdout);
    let out = '';
    let err = '';
    const code = await audit(['verify', file], { out: (text) => (out += text), err: (text) => (err += text) });
    expect({ code, out, err }).toEqual({ code: 0, out: `${file}: 20 events, seq 1–20, chain intact\n`, err: '' });
  });

  it('--since and --until as ISO-8601 times keep the events in between, ends included', async () => {
    const since = new Date(BASE + 5 * MINUTE).toISOString();
    const until = new Date(BASE + 9 * MINUTE).toISOString();
    const both = await exportLines('--since', since, '--until', until);
    expect(both.code).toBe(0);
    expect(seqs(both.lines)).toEqual([6, 7, 8, 9, 10]);
    // A window from the middle still verifies: its first prevHash is taken as given.
    expect(verifyChain(both.lines)).toEqual({ ok: true, count: 5, first: 6, last: 10 });
    expect(seqs((await exportLines(`--until=${until}`)).lines)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(seqs((await exportLines('--since', '2025-03-14T10:17:00+01:00')).lines)).toEqual([18, 19, 20]);
  });

  it('--since and --until as times ago count back from now', async () => {
    expect(seqs((await exportLines('--since', '3m')).lines)).toEqual([18, 19, 20]);
    expect(seqs((await exportLines('--since', '1h', '--until', '15m')).lines)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await exportLines('--since', '1d')).lines).toHaveLength(20);
  });

  it('a window with no events: exit 0 and an empty stdout', async () => {
    const { code, stdout, stderr } = await exportLines('--since', '2025-03-15');
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('as a process: the events alone on stdout, for a file `audit verify` accepts', async () => {
    const result = spawnSync(process.execPath, [BIN, 'audit', 'export', '--since', '2025-03-14T09:10:00Z'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', REDIS_URL: t.url, REDIS_PREFIX: t.prefix },
      timeout: 30_000,
    });
    expect({ code: result.status, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const file = join(dir, 'process.jsonl');
    await writeFile(file, result.stdout);
    const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', file], { encoding: 'utf8', timeout: 30_000 });
    expect(verify.stdout).toBe(`${file}: 10 events, seq 11–20, chain intact\n`);
    expect(verify.status).toBe(0);
  });

  it('a bad time: exit 1 with the option named, nothing written', async () => {
    const { code, stdout, stderr } = await exportLines('--until', '2025-03-14T09:00');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'flink-chatops audit export: --until "2025-03-14T09:00" has no time zone: end it with Z or an offset, e.g. 2025-03-14T09:00:00Z\n',
    );
  });
});

describe('audit export of a longer chain', () => {
  let long: TestRedis;
  beforeAll(async () => {
    long = await redisForTest('audit-export-long');
    const log = new RedisAuditLog(long.redis, { prefix: long.prefix, now: () => NOW });
    for (let i = 0; i < 250; i++) {
      await log.append({
        id: `aud-${(0x1000 + i).toString(16).padStart(20, '0')}`,
        at: new Date(BASE + i * 1000).toISOString(),
        actor: { user: 'U0ALICE', team: 'T0ACME' },
        action: 'approved',
      });
    }
  });
  afterAll(() => long.cleanup());

  it('writes all of it across pages, in order, once each', async () => {
    let stdout = '';
    const io = { out: (text: string) => (stdout += text), err: (text: string) => (stdout += `stderr: ${text}`) };
    const env = { REDIS_URL: long.url, REDIS_PREFIX: long.prefix };
    expect(await auditExport([], io, { env, now: () => NOW })).toBe(0);
    const lines = stdout.split('\n').slice(0, -1);
    expect(seqs(lines)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(verifyChain(lines)).toEqual({ ok: true, count: 250, first: 1, last: 250 });
  });
});
