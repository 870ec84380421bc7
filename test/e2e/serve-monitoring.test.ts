// Monitoring against real `serve` processes (docs/operating.md#alerts): the PrometheusRule and the dashboard use only
// metrics /metrics exports; store-wide gauges come from one process; an invalid policy edit is ignored, logged by path
// and shown as flink_chatops_policy_valid 0 until fixed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { freePort } from '../support/redis-server.js';
import { redisForTest, type TestRedis } from '../support/redis.js';
import { POLICY_YAML } from '../support/worker-env.js';

const REPO = new URL('../..', import.meta.url).pathname;
let cluster: SimCluster;
let redis: TestRedis;
let dir: string;

beforeAll(async () => {
  [cluster, redis] = await Promise.all([
    startSimCluster({ port: 0, seed: 'none', speed: 'fast' }),
    redisForTest('monitoring'),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'monitoring-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY_YAML);
});
afterAll(async () => {
  await Promise.all([cluster.close(), redis.cleanup(), rm(dir, { recursive: true, force: true })]);
});

interface Served {
  child: ChildProcess;
  lines: string[];
  scrape(): Promise<string>;
  /** Resolves with the first log line (already printed or to come) that contains `text`. */
  line(text: string): Promise<string>;
}

async function worker(): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'worker'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      RECORD_SIGNING_KEY: process.env.RECORD_SIGNING_KEY ?? '',
      PORT: String(port),
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      KUBECONFIG: cluster.kubeconfigPath,
      POLICY_FILE: join(dir, 'policy.yaml'),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiting: { text: string; resolve: (line: string) => void }[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const w of waiting.filter((x) => line.includes(x.text))) w.resolve(line);
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const line = (text: string) =>
    new Promise<string>((resolve) => {
      const seen = lines.find((l) => l.includes(text));
      if (seen) resolve(seen);
      else waiting.push({ text, resolve });
    });
  await Promise.race([
    line('worker started'),
    once(child, 'exit').then(() => Promise.reject(new Error(`serve exited: ${lines.slice(-5).join('\n')}`))),
  ]);
  return { child, lines, line, scrape: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text() };
}

async function stop(served: Served): Promise<void> {
  const exited = once(served.child, 'exit');
  served.child.kill('SIGTERM');
  await exited;
}

/** Metric names declared in an exposition (histograms also as _bucket, _sum, _count). */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

const value = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
const usedIn = (text: string) => [...new Set(text.match(/\bflink_chatops_[a-z_]+/g) ?? [])];

describe('deploy/components/monitoring', () => {
  it('references only metrics a running process exports, and alerts on everything the docs list that the code measures', async () => {
    const served = await worker();
    try {
      const names = exported(await served.scrape());
      const rule = parse(await readFile(join(REPO, 'deploy/components/monitoring/prometheusrule.yaml'), 'utf8')) as {
        spec: { groups: { rules: { alert: string; expr: string }[] }[] };
      };
      const rules = rule.spec.groups.flatMap((g) => g.rules);
      const dashboard = JSON.parse(
        await readFile(join(REPO, 'deploy/components/monitoring/dashboard.json'), 'utf8'),
      ) as { panels: { targets: { expr: string }[] }[] };
      const exprs = [...rules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))];
      const used = usedIn(exprs.join('\n'));
      expect(used.length).toBeGreaterThan(10);
      expect(used.filter((n) => !names.has(n))).toEqual([]);
      for (const metric of [
        'operations_stuck',
        'break_glass_unreviewed',
        'operations{state="UNCERTAIN"}',
        'policy_valid',
        'dependency_up{dependency="redis"}',
        'dependency_up{dependency=~"kubernetes(:.*)?"}',
        'audit_webhook_lag_seconds',
      ]) {
        expect(
          rules.some((r) => r.expr.includes(`flink_chatops_${metric}`)),
          metric,
        ).toBe(true);
      }
    } finally {
      await stop(served);
    }
  });

  it('exports build info, dependencies and the store-wide gauges from exactly one of two processes', async () => {
    const [a, b] = await Promise.all([worker(), worker()]);
    try {
      const texts = await Promise.all([a.scrape(), b.scrape()]);
      const version = (JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
      for (const text of texts) {
        expect(value(text, `flink_chatops_build_info{version="${version}"}`)).toBe(1);
        expect(value(text, 'flink_chatops_dependency_up{dependency="redis"}')).toBe(1);
        expect(value(text, 'flink_chatops_dependency_up{dependency="kubernetes"}')).toBe(1);
      }
      expect(texts.map((t) => value(t, 'flink_chatops_store_exporter')).sort()).toEqual([0, 1]);
      // The queue depth appears once, in the exporter's scrape; the unlabelled stuck gauge reads 0 elsewhere.
      const exporter = texts.find((t) => value(t, 'flink_chatops_store_exporter') === 1) as string;
      expect(texts.filter((t) => /^flink_chatops_queue_depth\{/m.test(t))).toEqual([exporter]);
      expect(texts.filter((t) => t !== exporter).map((t) => value(t, 'flink_chatops_operations_stuck'))).toEqual([0]);
      // Scrapes again: the same process keeps the lease.
      const again = await Promise.all([a.scrape(), b.scrape()]);
      expect(again.map((t) => value(t, 'flink_chatops_store_exporter'))).toEqual(
        texts.map((t) => value(t, 'flink_chatops_store_exporter')),
      );
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });
});

describe('an invalid policy written over a valid one while running', () => {
  it('keeps the old policy, logs every problem by path, reads 0; fixing the file brings it back to 1', async () => {
    const served = await worker();
    const file = join(dir, 'policy.yaml');
    try {
      expect(value(await served.scrape(), 'flink_chatops_policy_valid')).toBe(1);
      await writeFile(file, POLICY_YAML.replace('from: [leads]', 'from: [lead]'));
      expect(value(await served.scrape(), 'flink_chatops_policy_valid')).toBe(0);
      const logged = JSON.parse(await served.line('policy file is invalid')) as {
        msg: string;
        problems: string[];
        level: number;
      };
      expect(logged.problems.some((p) => /^rules\[\d+\]\.require\.from\[0\]: .*"lead"/.test(p))).toBe(true);
      expect(logged.msg).toContain('the last valid policy');
      expect(logged.msg).toContain('stays in force');
      await writeFile(file, POLICY_YAML);
      expect(value(await served.scrape(), 'flink_chatops_policy_valid')).toBe(1);
      await served.line('policy file is valid again');
    } finally {
      await stop(served);
      await writeFile(file, POLICY_YAML);
    }
  });
});
