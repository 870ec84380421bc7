// Several clusters (docs/deployment.md#several-clusters): the configuration, target names with a cluster, and where a
// typed target is placed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { placeParsed, placeTarget, type PlaceContext } from '../../../src/app/clusters.js';
import { loadConfig } from '../../../src/config.js';
import { parseCommand } from '../../../src/domain/engines/language/parse.js';
import { clusterOf, formatTarget, parseTarget, targetKey, type Target } from '../../../src/domain/model/target.js';
import { validatePolicy } from '../../../src/domain/engines/policy/validate.js';
import type { Policy } from '../../../src/domain/engines/policy/schema.js';
import { KubeClusters } from '../../../src/kube/clusters.js';
import { isUnreachable, KubeError } from '../../../src/kube/errors.js';
import { describeFault } from '../../../src/app/context.js';

const WORKER_ENV = { REDIS_URL: 'redis://127.0.0.1:6379' };

describe('configuration', () => {
  it('one cluster named CLUSTER_NAME (default "default") when KUBE_CONTEXTS is unset', () => {
    const plain = loadConfig(WORKER_ENV, 'worker');
    expect(plain.ok && plain.config.clusters).toEqual({ names: ['default'], fromContexts: false, worker: ['default'] });
    const named = loadConfig({ ...WORKER_ENV, CLUSTER_NAME: 'prod-eu' }, 'worker');
    expect(named.ok && named.config.clusters).toEqual({ names: ['prod-eu'], fromContexts: false, worker: ['prod-eu'] });
  });

  it('KUBE_CONTEXTS names the clusters; WORKER_CLUSTERS picks some of them (default: all)', () => {
    const all = loadConfig({ ...WORKER_ENV, KUBE_CONTEXTS: 'eu, us' }, 'worker');
    expect(all.ok && all.config.clusters).toEqual({ names: ['eu', 'us'], fromContexts: true, worker: ['eu', 'us'] });
    const one = loadConfig({ ...WORKER_ENV, KUBE_CONTEXTS: 'eu,us', WORKER_CLUSTERS: 'us' }, 'worker');
    expect(one.ok && one.config.clusters.worker).toEqual(['us']);
  });

  it('bad names, names twice and workers of unknown clusters are readable problems', () => {
    const problems = (env: Record<string, string>) => {
      const loaded = loadConfig({ ...WORKER_ENV, ...env }, 'worker');
      return loaded.ok ? [] : loaded.problems;
    };
    expect(problems({ KUBE_CONTEXTS: 'eu,EU_west' })).toEqual([
      expect.stringMatching(/^KUBE_CONTEXTS: "EU_west" must be a DNS-1123 label/),
    ]);
    expect(problems({ KUBE_CONTEXTS: 'eu,us,eu' })).toEqual(['KUBE_CONTEXTS: names eu twice (got "eu,us,eu")']);
    expect(problems({ CLUSTER_NAME: 'Prod' })).toEqual([
      expect.stringMatching(/^CLUSTER_NAME: must be a DNS-1123 label/),
    ]);
    expect(problems({ KUBE_CONTEXTS: 'eu,us', WORKER_CLUSTERS: 'ap' })).toEqual([
      'WORKER_CLUSTERS: ap is not among the clusters this process sees (KUBE_CONTEXTS: eu, us)',
    ]);
    expect(problems({ WORKER_CLUSTERS: 'eu' })).toEqual([
      'WORKER_CLUSTERS: eu is not among the clusters this process sees (CLUSTER_NAME: default)',
    ]);
  });

  it('a context missing from the kubeconfig is named with the contexts it has', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clusters-'));
    try {
      const path = join(dir, 'kubeconfig');
      const context = (name: string) => ({ name, context: { cluster: name, user: 'u' } });
      const clusters = ['eu', 'us'].map((name) => ({
        name,
        cluster: { server: `http://127.0.0.1:1/${name}`, 'insecure-skip-tls-verify': true },
      }));
      await writeFile(
        path,
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters,
          users: [{ name: 'u', user: {} }],
          contexts: [context('eu'), context('us')],
          'current-context': 'eu',
        }),
      );
      expect(() => KubeClusters.load({ names: ['eu', 'ap'], fromContexts: true }, path)).toThrow(
        'KUBE_CONTEXTS: ap not in the kubeconfig (its contexts: eu, us)',
      );
      const loaded = KubeClusters.load({ names: ['eu', 'us'], fromContexts: true }, path);
      expect(loaded.get('us').kubeConfig.getCurrentCluster()?.server).toBe('http://127.0.0.1:1/us');
      expect(loaded.of({}).name).toBe('eu');
      expect(() => loaded.get('ap')).toThrow(/not one of this process's clusters/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('targets with a cluster', () => {
  it('parses cluster/namespace/name, with sessionjob:, and keys and formats by cluster', () => {
    const t = parseTarget('eu/streaming-prod/orders');
    expect(t).toEqual({
      ok: true,
      value: { cluster: 'eu', kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' },
    });
    const s = parseTarget('sessionjob:us/streaming/etl');
    expect(s.ok && formatTarget(s.value)).toBe('sessionjob:us/streaming/etl');
    const eu: Target = { cluster: 'eu', kind: 'FlinkDeployment', namespace: 'ns', name: 'a' };
    const us: Target = { ...eu, cluster: 'us' };
    expect(targetKey(eu)).not.toBe(targetKey(us));
    // A single-cluster target keeps the key it always had (leases, order and freezes survive the upgrade).
    expect(targetKey({ kind: 'FlinkDeployment', namespace: 'ns', name: 'a' })).toBe('FlinkDeployment/ns/a');
    expect(clusterOf({}, ['eu', 'us'])).toBe('eu');
    expect(clusterOf(us, ['eu', 'us'])).toBe('us');
  });
});

function policy(channels: Record<string, unknown> = {}): Policy {
  const result = validatePolicy({
    version: 1,
    namespaces: [{ name: 'streaming-prod' }, { name: 'eu-only', clusters: ['eu'] }],
    channels,
  });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.policy;
}

const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
const two = (p: Policy, channel = 'C0CHANNEL1'): PlaceContext => ({ clusters: ['eu', 'us'], policy: p, channel });

describe('placing a typed target in its cluster', () => {
  it('one cluster: targets carry none; the cluster may be written; another one is refused', () => {
    const ctx: PlaceContext = { clusters: ['prod'], policy: policy(), channel: 'C0CHANNEL1' };
    expect(placeTarget(orders, ctx)).toEqual({ ok: true, value: orders });
    expect(placeTarget({ ...orders, cluster: 'prod' }, ctx)).toEqual({ ok: true, value: orders });
    expect(placeTarget({ ...orders, cluster: 'us' }, ctx)).toEqual({
      ok: false,
      message: 'unknown cluster "us": this installation has one cluster, prod; write streaming-prod/orders',
    });
  });

  it('several: a named cluster must exist; the channel default, else the only managing cluster, else refused with the full names', () => {
    expect(placeTarget({ ...orders, cluster: 'us' }, two(policy()))).toEqual({
      ok: true,
      value: { ...orders, cluster: 'us' },
    });
    const unknown = placeTarget({ ...orders, cluster: 'ap' }, two(policy()));
    expect(unknown.ok || unknown.message).toBe(
      'unknown cluster "ap" (the clusters are eu and us); write eu/streaming-prod/orders or us/streaming-prod/orders',
    );
    const ambiguous = placeTarget(orders, two(policy()));
    expect(ambiguous.ok || ambiguous.message).toBe(
      'streaming-prod/orders is ambiguous: namespace streaming-prod is managed in clusters eu and us; write `eu/streaming-prod/orders` or `us/streaming-prod/orders`',
    );
    expect(placeTarget(orders, two(policy({ C0CHANNEL1: { defaultCluster: 'us' } })))).toEqual({
      ok: true,
      value: { ...orders, cluster: 'us' },
    });
    expect(placeTarget({ ...orders, namespace: 'eu-only' }, two(policy()))).toEqual({
      ok: true,
      value: { ...orders, namespace: 'eu-only', cluster: 'eu' },
    });
    const unmanaged = placeTarget({ ...orders, namespace: 'other' }, two(policy()));
    expect(unmanaged.ok || unmanaged.message).toMatch(/the bot does not manage namespace other/);
  });

  it('places the targets of intents, queries, explain and commands; a refusal becomes the reply', () => {
    const ctx = two(policy({ C0CHANNEL1: { defaultCluster: 'eu' } }));
    const placed = (text: string) =>
      placeParsed(parseCommand(text, { defaultNamespace: 'streaming-prod', command: '/flink' }), ctx);
    expect(placed('scale orders 3')).toMatchObject({
      type: 'intent',
      intent: { target: { cluster: 'eu', name: 'orders' } },
    });
    expect(placed('status us/streaming-prod/orders')).toMatchObject({
      type: 'query',
      query: { target: { cluster: 'us' } },
    });
    expect(placed('explain restart orders')).toMatchObject({
      type: 'query',
      query: { intent: { target: { cluster: 'eu' } } },
    });
    expect(placed('lock orders --reason "incident"')).toMatchObject({
      type: 'command',
      command: { target: { cluster: 'eu' } },
    });
    expect(placed('undo op-abc123')).toMatchObject({ type: 'intent', intent: { kind: 'undo' } });
    expect(placed('status ap/streaming-prod/orders')).toMatchObject({
      type: 'reply',
      message: expect.stringContaining('unknown cluster "ap"'),
    });
  });
});

describe('a cluster that cannot be reached', () => {
  it('is said with its name; other failures stay as they were', () => {
    const down = new KubeError('network', 'the Kubernetes API connection failed: connect ECONNREFUSED').in('us');
    expect(isUnreachable(down)).toBe(true);
    expect(describeFault(down)).toBe(
      'cannot reach cluster us: the Kubernetes API connection failed: connect ECONNREFUSED',
    );
    expect(describeFault(new KubeError('timeout', 'the Kubernetes API did not answer in time'))).toBe(
      'the Kubernetes API call failed (timeout): the Kubernetes API did not answer in time',
    );
    expect(describeFault(new KubeError('forbidden', 'no', 403).in('us'))).toBe(
      'the Kubernetes API call failed (forbidden): no',
    );
  });
});
