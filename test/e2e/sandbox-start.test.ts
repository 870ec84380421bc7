// The sandbox's Redis fallbacks (README.md#try-it): a private redis-server when none answers, a clear message when none
// is installed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '@flink-chatops/sim/ports';
import { redisAnswers } from '@flink-chatops/sim/redis';
import { eventually, holds } from '../support/poll.js';
import { baseEnv, runSandboxToExit, startSandboxProcess } from '../support/sandbox-process.js';

/** README.md#try-it / issue 8: `npm start` serves the page within 15 s on the 2-core machine. */
const START_BUDGET_MS = 15_000;

describe('sandbox start', () => {
  it('starts a private redis-server when nothing answers at REDIS_URL, serves the page, and stops it on SIGTERM', async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const sandbox = await startSandboxProcess({ env: baseEnv({ REDIS_URL: closed }) });
    try {
      const page = await fetch(sandbox.url);
      const pageMs = Date.now() - started;
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('flink-chatops sandbox');
      expect(pageMs).toBeLessThan(START_BUDGET_MS);

      const { stdout } = sandbox.output();
      expect(stdout).toMatch(/policy: .*packages\/sim\/sandbox-policy\.yaml/);
      const privateUrl = /a private redis-server at (redis:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      expect(privateUrl, stdout).toBeDefined();
      expect(privateUrl).not.toBe(closed);
      expect(await redisAnswers(privateUrl as string)).toBe(true);

      // Two simulated clusters, each with its own API server and worker (README.md#try-it), both with
      // streaming-prod/orders.
      expect(stdout).toMatch(/eu: Kubernetes API at http:\/\/127\.0\.0\.1:\d+, its own worker/);
      expect(stdout).toMatch(/us: Kubernetes API at http:\/\/127\.0\.0\.1:\d+, its own worker/);
      const state = (await (await fetch(`${sandbox.url}/api/state`)).json()) as {
        clusters: string[];
        cluster: { cluster?: string; namespace: string; name: string }[];
      };
      expect(state.clusters).toEqual(['eu', 'us']);
      expect(state.cluster.map((r) => `${r.cluster}/${r.namespace}/${r.name}`)).toEqual(
        expect.arrayContaining(['eu/streaming-prod/orders', 'eu/streaming-dev/orders', 'us/streaming-prod/orders']),
      );

      expect(await sandbox.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await redisAnswers(privateUrl as string, 300)).toBe(false);
      expect(sandbox.output().stdout).toContain('stopped.');
    } finally {
      await sandbox.stop('SIGKILL');
    }
  });

  it('writes the audit lines to the file it names at start, none to the terminal (docs/audit.md#in-the-sandbox)', async () => {
    const sandbox = await startSandboxProcess({ env: baseEnv({ REDIS_URL: inject('redisUrl') }) });
    const path = /audit trail: (\S+audit\.jsonl)/.exec(sandbox.output().stdout)?.[1];
    try {
      expect(path, sandbox.output().stdout).toBeDefined();
      const answer = await fetch(`${sandbox.url}/api/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          user: 'U0ALICE',
          channel: 'C0DATAPLATFORM',
          text: '/flink scale orders 3 --reason "audit"',
        }),
      });
      expect(answer.status).toBe(200);
      // The operation's events, as stdout would have carried them: pino lines with the event under `event`.
      const lines = async (): Promise<{ audit?: boolean; event?: { action?: string; op?: { kind?: string } } }[]> =>
        (await readFile(path as string, 'utf8'))
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { audit?: boolean; event?: { action?: string; op?: { kind?: string } } });
      await eventually(
        'the scale in the audit file',
        holds(async () =>
          expect(await lines()).toContainEqual(
            expect.objectContaining({
              audit: true,
              event: expect.objectContaining({ op: expect.objectContaining({ kind: 'scale' }) }),
            }),
          ),
        ),
        { timeoutMs: 30_000 },
      );
      const { stdout, stderr } = sandbox.output();
      expect(`${stdout}\n${stderr}`).not.toContain('"audit":true');
    } finally {
      expect(await sandbox.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      // The sandbox keeps its audit file after it stops; this test does not.
      if (path) await rm(dirname(path), { recursive: true, force: true });
    }
  });

  it('says how to install Redis and exits 1 when none answers and redis-server is not on the PATH', async () => {
    const emptyBin = await mkdtemp(join(tmpdir(), 'no-redis-'));
    try {
      const closed = `redis://127.0.0.1:${await freePort()}`;
      const result = await runSandboxToExit({ env: baseEnv({ REDIS_URL: closed, PATH: emptyBin }) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('apt-get install -y redis-server');
      expect(result.stderr).toContain('brew install redis');
      expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(result.stdout).not.toContain('open http');
    } finally {
      await rm(emptyBin, { recursive: true, force: true });
    }
  });

  it('refuses bad arguments with the usage line', async () => {
    const result = await runSandboxToExit({ env: baseEnv({}), args: ['--speed', 'warp'] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--speed must be one of fast, realistic, not "warp"');
    expect(result.stderr).toContain('usage: flink-chatops sandbox');
  });
});
