// The health gate before a change (docs/deep-verification.md#the-health-gate): assess reads Flink REST through the
// service proxy of the simulated cluster; a job that restarted in the last 10 minutes or whose checkpoints fail warns
// in dev and fails under a production policy; a task failover under a raised limit passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assess, type AssessDeps } from '../../src/app/assess.js';
import { parsePolicyText } from '../../src/app/policy-load.js';
import { ClientNodeFlinkClient, loadKubeConfig } from '../../src/kube/client-node.js';
import { ClientNodeFlinkRest } from '../../src/kube/flink-rest.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { Policy } from '../../src/domain/engines/policy/schema.js';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { eventually, holds } from '../support/poll.js';

const POLICY = `version: 1
namespaces:
  - { name: streaming-prod, environment: production }
  - { name: streaming-dev }
approval: {}
`;

let cluster: SimCluster;
let deps: AssessDeps;
let policy: Policy;
beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
  const kubeConfig = loadKubeConfig(cluster.kubeconfigPath);
  const clients = { kube: new ClientNodeFlinkClient(kubeConfig), rest: new ClientNodeFlinkRest(kubeConfig) };
  deps = {
    clients: () => clients,
    getFreeze: async () => undefined,
    getOperation: async () => undefined,
    now: () => new Date(),
    nonce: () => Date.now(),
  };
  const parsed = parsePolicyText(POLICY);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  policy = parsed.policy;
});
afterAll(async () => {
  await cluster?.close();
});

async function gateFor(namespace: string, name: string, under: Policy = policy) {
  const target = { kind: 'FlinkDeployment' as const, namespace, name };
  const result = await assess(
    under,
    { intent: { kind: 'restart', target, incidentChannels: [] }, opId: 'op-gate0001', requester: 'U0REQ' },
    deps,
  );
  if (!result.ok) throw new Error(result.refusal);
  return { check: result.decision.checks.find((c) => c.name === 'health-gate'), decision: result.decision };
}

/** Resolves once the gate says what `expected` says (the job's REST numbers settle as it runs). */
function gateSays(
  namespace: string,
  name: string,
  what: string,
  expected: Record<string, unknown>,
  under: Policy = policy,
) {
  const says = holds(async () => expect((await gateFor(namespace, name, under)).check).toMatchObject(expected));
  return eventually(`the health gate of ${namespace}/${name} to ${what}`, says, { timeoutMs: 5_000 });
}

async function running(namespace: string, name: string, knobs: string[] = []): Promise<void> {
  cluster.store.ensureNamespace(namespace);
  cluster.store.create(
    'flinkdeployments',
    deployment(name, namespace, { conf: { 'execution.checkpointing.interval': '2s' } }),
  );
  await waitStable(cluster.store, namespace, name);
  if (knobs.length > 0) cluster.operator.setScenario(namespace, name, knobs as never);
}

describe('the health gate on the card', () => {
  it('a healthy job passes, with its numbers', async () => {
    await running('streaming-dev', 'gate-healthy');
    await gateSays('streaming-dev', 'gate-healthy', 'pass', {
      message: expect.stringMatching(
        /^the job is healthy: no restart in the last 10m; last checkpoint \d+ s ago \(interval 2 s\); 0 failed$/,
      ),
    });
  });

  it('a single task failover fails the default production gate (DENIED), and passes under a raised limit', async () => {
    await running('streaming-prod', 'gate-one', ['job-exceptions=1']);
    await gateSays('streaming-prod', 'gate-one', 'fail on the one failover', {
      outcome: 'fail',
      message: expect.stringMatching(
        /failed over 1 time\(s\) in the last 10m \(1 task\): the gate's limit is any failover in 10m; the last at .* in task "/,
      ),
    });
    expect((await gateFor('streaming-prod', 'gate-one')).decision.outcome).toBe('deny');
    const raised = parsePolicyText(`${POLICY}verify:\n  production: { healthGate: { restarts: 2 } }\n`);
    if (!raised.ok) throw new Error(raised.errors.join('; '));
    const passes = {
      outcome: 'pass',
      message: expect.stringMatching(
        /^the job is healthy: 1 task failover\(s\) in the last 10m, under the gate's limit of 2/,
      ),
    };
    await gateSays('streaming-prod', 'gate-one', 'report the failover and pass', passes, raised.policy);
  });

  it('restarts warn in dev and fail under the production policy (DENIED)', async () => {
    await running('streaming-dev', 'gate-restarts', ['job-exceptions=2']);
    await gateSays('streaming-dev', 'gate-restarts', 'warn of the restarts', {
      outcome: 'warn',
      message: expect.stringMatching(/failed over 2 time\(s\) in the last 10m \(2 task\): the gate's limit is any/),
    });
    await running('streaming-prod', 'gate-restarts', ['job-exceptions=2']);
    await gateSays('streaming-prod', 'gate-restarts', 'fail', { outcome: 'fail' });
    expect((await gateFor('streaming-prod', 'gate-restarts')).decision.outcome).toBe('deny');
  });

  it('checkpoints failing warn in dev and fail in production', async () => {
    await running('streaming-dev', 'gate-ckpt', ['checkpoints-failing']);
    await gateSays('streaming-dev', 'gate-ckpt', 'warn of failing checkpoints', {
      outcome: 'warn',
      message: expect.stringMatching(/checkpoints are failing: \d+ failed and none completed/),
    });
    await running('streaming-prod', 'gate-ckpt', ['checkpoints-failing']);
    await gateSays('streaming-prod', 'gate-ckpt', 'fail', { outcome: 'fail' });
  });

  it('without REST (the proxy answers 403) there is no gate, and the rest of the checks still run', async () => {
    await running('streaming-dev', 'gate-denied');
    cluster.server.faults.inject({ kind: 'error-403', resource: 'services', subresource: 'proxy', times: 10 });
    const { check, decision } = await gateFor('streaming-dev', 'gate-denied');
    cluster.server.faults.clear();
    expect(check).toBeUndefined();
    expect(decision.checks.map((c) => c.name)).toContain('operator-busy');
  });
});
