// Several clusters behind one bot (docs/deployment.md#several-clusters), end to end: the real Bolt app and client-node
// against two simulated clusters `eu` and `us` holding the same namespace/name, per-cluster workers on real Redis, a
// cluster that goes away.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startWorker, type RunningWorker } from '../../src/roles/worker.js';
import { startBotEnv, USERS, type BotEnv } from '../support/bot-env.js';
import { startSimClusters, type SimClusters } from '../support/multi-cluster.js';

let sims: SimClusters;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sims = await startSimClusters(['eu', 'us']);
  for (const cluster of Object.values(sims.byName)) {
    await cluster.deploy('orders', 'streaming-prod', { upgradeMode: 'last-state' });
    await cluster.deploy('clicks', 'streaming-dev', { upgradeMode: 'last-state' });
  }
});
afterAll(async () => sims.close());
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
  for (const cluster of Object.values(sims.byName)) await cluster.up();
});

/** Both clusters manage both namespaces; production needs a lead. */
function policy(extra: Record<string, unknown> = {}) {
  return (channel: string) => ({
    version: 1,
    groups: { leads: { users: [USERS.lead1] }, oncall: { users: [USERS.alice] } },
    namespaces: [{ name: 'streaming-prod', requesters: ['oncall', 'leads'] }, { name: 'streaming-dev' }],
    channels: { [channel]: { defaultNamespace: 'streaming-prod', ...extra } },
    rules: [
      {
        name: 'prod-needs-a-lead',
        when: { namespaces: ['streaming-prod'] },
        require: { approvals: 1, from: ['leads'] },
      },
    ],
  });
}

async function bot(extra: Record<string, unknown> = {}): Promise<BotEnv> {
  const env = await startBotEnv(
    { kubeconfigPath: sims.kubeconfigPath },
    { policy: policy(extra), env: { KUBE_CONTEXTS: 'eu,us' } },
  );
  open.push(env);
  return env;
}

/** An in-process worker (the production startWorker) executing only `clusters`; records the cluster of each call. */
async function worker(env: BotEnv, clusters: string): Promise<{ running: RunningWorker; calledClusters: Set<string> }> {
  const loaded = loadConfig(
    {
      REDIS_URL: env.redis.url,
      REDIS_PREFIX: env.redis.prefix,
      KUBECONFIG: sims.kubeconfigPath,
      KUBE_CONTEXTS: 'eu,us',
      WORKER_CLUSTERS: clusters,
      POLICY_FILE: env.config.policyFile,
      LEASE_TTL: '5s',
      VERIFY_TIMEOUT: '30s',
      FAILURE_GRACE: '2s',
      LOG_LEVEL: 'silent',
    },
    'worker',
  );
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const calledClusters = new Set<string>();
  const running = await startWorker(loaded.config, {
    logger: createLogger('silent'),
    sweepIntervalMs: 60_000,
    onKubeCall: (call) => calledClusters.add(call.cluster),
  });
  open.push(running);
  return { running, calledClusters };
}

async function approveAndFinish(env: BotEnv, record: OperationRecord): Promise<OperationRecord> {
  expect(record.state).toBe('AWAITING_APPROVAL');
  const clicked = await env.click('approve', record, USERS.lead1);
  expect(clicked.status).toBe(200);
  return env.waitForState(record.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 30_000);
}

function notesOf(record: OperationRecord, name: string): string[] {
  return record.history.filter((e) => e.type === 'note' && e.name === name).map((e) => String(e.detail.message));
}

describe('the same namespace/name in two clusters', () => {
  it('is planned, approved and executed in its own cluster only; the other is never written', async () => {
    const env = await bot();
    const eu = await worker(env, 'eu');
    const us = await worker(env, 'us');
    const { eu: euSim, us: usSim } = sims.byName as Record<'eu' | 'us', (typeof sims.byName)[string]>;
    const writes = { eu: euSim!.writes(), us: usSim!.writes() };

    const inEu = await approveAndFinish(
      env,
      await env.request('scale eu/streaming-prod/orders 3 --reason "more load in eu"'),
    );
    expect(inEu.state).toBe('COMPLETED');
    expect(inEu.target).toEqual({
      cluster: 'eu',
      kind: 'FlinkDeployment',
      namespace: 'streaming-prod',
      name: 'orders',
    });
    expect(euSim!.parallelismOf('streaming-prod', 'orders')).toBe(3);
    expect(usSim!.parallelismOf('streaming-prod', 'orders')).toBe(2);
    expect({ eu: euSim!.writes() - writes.eu, us: usSim!.writes() - writes.us }).toEqual({ eu: 1, us: 0 });

    const inUs = await approveAndFinish(env, await env.request('scale us/streaming-prod/orders 4'));
    expect(inUs.state).toBe('COMPLETED');
    expect(usSim!.parallelismOf('streaming-prod', 'orders')).toBe(4);
    expect(euSim!.parallelismOf('streaming-prod', 'orders')).toBe(3);
    expect({ eu: euSim!.writes() - writes.eu, us: usSim!.writes() - writes.us }).toEqual({ eu: 1, us: 1 });

    // Each worker only ever called its own cluster; the card and thread name the cluster.
    expect([...eu.calledClusters]).toEqual(['eu']);
    expect([...us.calledClusters]).toEqual(['us']);
    const card = await env.cardIn(inUs, 'COMPLETED');
    expect(JSON.stringify(card.blocks)).toContain('us/streaming-prod/orders');
  });

  it('refuses an ambiguous target with the full names; a channel defaultCluster resolves it', async () => {
    const env = await bot();
    const refused = await (await env.command('status streaming-prod/orders')).reply();
    expect(refused.text).toContain('ambiguous');
    expect(refused.text).toContain('eu/streaming-prod/orders');
    expect(refused.text).toContain('us/streaming-prod/orders');
    expect(await env.operationCount()).toBe(0);
    const unknown = await (await env.command('scale ap/streaming-prod/orders 3')).reply();
    expect(unknown.text).toMatch(/unknown cluster "ap" \(the clusters are eu and us\)/);

    const withDefault = await bot({ defaultCluster: 'us' });
    const status = await (await withDefault.command('status orders')).reply();
    expect(status.text).toContain('us/streaming-prod/orders');
    const record = await withDefault.request('scale orders 5');
    expect(record.target.cluster).toBe('us');
  });

  it('list groups by cluster', async () => {
    const env = await bot();
    const answer = await (await env.command('list')).reply();
    for (const place of ['eu/streaming-prod', 'eu/streaming-dev', 'us/streaming-prod', 'us/streaming-dev'])
      expect(answer.text + JSON.stringify(answer.body)).toContain(place);
    expect(JSON.stringify(answer.body)).toContain('in 2 clusters');
  });
});

describe('per-cluster workers', () => {
  it('a us operation waits visibly while no us worker runs (eu ones complete meanwhile), then runs once one starts', async () => {
    const env = await bot();
    const eu = await worker(env, 'eu');
    const waiting = await env.request('scale us/streaming-dev/clicks 3');
    expect(waiting.state).toBe('QUEUED');
    const noted = await env.waitFor(waiting.id, (r) => notesOf(r, 'no-worker').length > 0, 'the no-worker note');
    expect(notesOf(noted, 'no-worker')[0]).toContain('no worker for cluster us is running');

    const inEu = await env.request('scale eu/streaming-dev/clicks 3');
    expect((await env.waitForState(inEu.id, ['COMPLETED'], 30_000)).state).toBe('COMPLETED');
    expect((await env.record(waiting.id)).state).toBe('QUEUED');
    expect([...eu.calledClusters]).toEqual(['eu']);

    await worker(env, 'us');
    expect((await env.waitForState(waiting.id, ['COMPLETED'], 30_000)).state).toBe('COMPLETED');
    expect(sims.byName.us!.parallelismOf('streaming-dev', 'clicks')).toBe(3);
  });
});

describe('a cluster that cannot be reached', () => {
  it('answers its queries "cannot reach", makes its operation wait and finish once it returns; the other cluster goes on', async () => {
    const env = await bot();
    await worker(env, 'eu');
    const usSim = sims.byName.us!;
    const queued = await env.request('scale us/streaming-dev/clicks 6');
    expect(queued.state).toBe('QUEUED');
    const writesBefore = usSim.writes();

    await usSim.down();
    const status = await (await env.command('status us/streaming-dev/clicks')).reply();
    expect(status.text).toContain('cannot reach cluster us');
    const inEu = await env.request('scale eu/streaming-dev/clicks 6');
    expect((await env.waitForState(inEu.id, ['COMPLETED'], 30_000)).state).toBe('COMPLETED');

    // The us worker starts while its cluster is away: the thread says so, and the operation waits.
    await worker(env, 'us');
    const waiting = await env.waitFor(
      queued.id,
      (r) => notesOf(r, 'unreachable').length > 0,
      'the unreachable note',
      30_000,
    );
    expect(notesOf(waiting, 'unreachable')[0]).toContain('cannot reach cluster us');
    expect(waiting.state).toBe('QUEUED');

    await usSim.up();
    const done = await env.waitForState(
      queued.id,
      ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'UNCERTAIN'],
      45_000,
    );
    expect(done.state).toBe('COMPLETED');
    expect(notesOf(done, 'reachable')[0]).toContain('cluster us answers again');
    expect(usSim.parallelismOf('streaming-dev', 'clicks')).toBe(6);
    expect(usSim.writes() - writesBefore).toBe(1);
  });

  it('an operation being verified when its cluster goes away finishes after it returns, applied once', async () => {
    const env = await bot();
    await worker(env, 'eu');
    await worker(env, 'us');
    const usSim = sims.byName.us!;
    await usSim.deploy('ledger', 'streaming-dev', { upgradeMode: 'last-state' });
    usSim.operator.setScenario('streaming-dev', 'ledger', 'slow-reconcile', { slowReconcileSeconds: 10 });
    const writesBefore = usSim.writes();
    const queued = await env.request('scale us/streaming-dev/ledger 4');
    await env.waitForState(queued.id, ['SUBMITTED'], 15_000);
    await usSim.down();
    const inEu = await env.request('scale eu/streaming-dev/clicks 2');
    expect((await env.waitForState(inEu.id, ['COMPLETED'], 30_000)).state).toBe('COMPLETED');
    expect((await env.record(queued.id)).state).toBe('SUBMITTED');
    await usSim.up();
    const done = await env.waitForState(
      queued.id,
      ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'UNCERTAIN'],
      45_000,
    );
    expect(done.state).toBe('COMPLETED');
    expect(usSim.parallelismOf('streaming-dev', 'ledger')).toBe(4);
    expect(usSim.writes() - writesBefore).toBe(1);
  });
});
