// `flink-chatops sim-cluster` as a process: first stdout line, a usable kubeconfig, clean exit on SIGTERM.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/store.js';
import { parseSimClusterArgs } from '../../src/sim-cluster-cli.js';
import { collectWatch } from '../support/kube.js';

const BIN = new URL('../../../../bin/flink-chatops.js', import.meta.url).pathname;
type Child = ChildProcessByStdio<null, Readable, Readable>;
const children: Child[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function start(args: string[]): Child {
  const child = spawn(process.execPath, [BIN, 'sim-cluster', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
  });
  children.push(child);
  return child;
}

async function firstLine(child: Child): Promise<{ server: string; kubeconfig: string }> {
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [undefined])])) as [
    string | undefined,
  ];
  if (line === undefined) throw new Error('sim-cluster exited before printing its first line');
  return JSON.parse(line) as { server: string; kubeconfig: string };
}

describe('flink-chatops sim-cluster', () => {
  it('prints {server, kubeconfig} first, serves the demo seed to client-node, and exits 0 on SIGTERM', async () => {
    const child = start(['--port', '0', '--seed', 'demo', '--speed', 'fast']);
    const { server, kubeconfig } = await firstLine(child);
    expect(server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(kubeconfig)).toBe(true);

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const list = (await custom.listClusterCustomObject({
      group: 'flink.apache.org',
      version: 'v1beta1',
      plural: 'flinkdeployments',
    })) as { items: KubeObject[] };
    const names = list.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort();
    expect(names).toEqual([
      'streaming-dev/checkout-bg-blue',
      'streaming-dev/orders',
      'streaming-prod/clickstream',
      'streaming-prod/fraud-detection',
      'streaming-prod/ledger-export',
      'streaming-prod/orders',
      'streaming-prod/payments',
      'streaming-prod/session-cluster',
    ]);
    const jobs = (await custom.listNamespacedCustomObject({
      group: 'flink.apache.org',
      version: 'v1beta1',
      namespace: 'streaming-prod',
      plural: 'flinksessionjobs',
    })) as { items: KubeObject[] };
    expect(jobs.items.map((i) => i.spec?.deploymentName)).toEqual(['session-cluster']);

    const watch = await collectWatch(
      new Watch(kc),
      '/apis/flink.apache.org/v1beta1/namespaces/streaming-prod/flinkdeployments',
      { fieldSelector: 'metadata.name=orders' },
    );
    for (;;) {
      const [event] = await watch.next(1, 10_000);
      if ((event?.object.status as { lifecycleState?: string } | undefined)?.lifecycleState === 'STABLE') break;
    }
    watch.abort();

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(existsSync(kubeconfig)).toBe(false);
  }, 60_000);

  it('writes the kubeconfig where --kubeconfig says and keeps it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    try {
      const path = join(dir, 'nested', 'config');
      const child = start(['--kubeconfig', path, '--speed', 'fast']);
      const { kubeconfig } = await firstLine(child);
      expect(kubeconfig).toBe(path);
      child.kill('SIGINT');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(existsSync(path)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--clock-offset -30s puts the cluster 30 s behind: the API server answers with its own Date', async () => {
    const child = start(['--speed', 'fast', '--clock-offset', '-30s']);
    const { server } = await firstLine(child);
    const response = await fetch(`${server}/api/v1/namespaces/default/events`);
    const skew = Date.parse(response.headers.get('date') ?? '') - Date.now();
    expect(skew).toBeGreaterThan(-35_000);
    expect(skew).toBeLessThan(-25_000);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('--event-ttl sets how long Events live (kube-apiserver --event-ttl); one hour unless given', () => {
    expect(parseSimClusterArgs(['--event-ttl', '90s'])).toMatchObject({ ok: true, eventTtlMs: 90_000 });
    expect(parseSimClusterArgs([])).not.toHaveProperty('eventTtlMs');
  });

  it.each([
    [['--clock-offset', 'later'], '--clock-offset must be a duration such as 30s, -30s or 2m, not "later"'],
    [['--event-ttl', 'soon'], '--event-ttl must be a duration such as 90s or 5m, not "soon"'],
    [['--event-ttl', '0'], '--event-ttl must be a duration such as 90s or 5m, not "0"'],
    [['--speed', 'warp'], '--speed must be one of fast, realistic, not "warp"'],
    [['--port', 'eighty'], '--port must be a port number 0–65535'],
    [['--port', '70000'], '--port must be a port number 0–65535'],
    [['--seed', 'prod'], '--seed must be one of demo, none, not "prod"'],
    [['--colour', 'blue'], 'unknown option --colour'],
    [['extra'], 'unexpected argument "extra"'],
  ])('refuses %j with exit 1 and a readable message', (args, message) => {
    const result = spawnSync(process.execPath, [BIN, 'sim-cluster', ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
