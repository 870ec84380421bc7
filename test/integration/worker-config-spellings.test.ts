// config on a key written in more than one spelling (docs/lifecycle.md#config-spellings): the operator flattens
// flinkConfiguration over the API server's sorted keys and the last spelling wins, so the bot reads that one and
// changes it. The real worker against the simulated cluster and operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { flattenConf, parseReconciledSpec } from '@flink-chatops/sim/kube/spec-json';
import { NS, WorkerEnv } from '../support/worker-env.js';

const KEY = 'execution.checkpointing.interval';
let env: WorkerEnv;
beforeAll(async () => {
  env = await WorkerEnv.start();
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

const evidenceOf = (record: OperationRecord) => record.evidence as WorkerEvidence;

/** The value the operator reads: from the spec it last reconciled, flattened as it flattens. */
function effective(name: string): string | undefined {
  const status = env.cluster.store.get('flinkdeployments', NS, name)?.status as
    { reconciliationStatus?: { lastReconciledSpec?: string } } | undefined;
  return flattenConf(parseReconciledSpec(status?.reconciliationStatus?.lastReconciledSpec)?.flinkConfiguration)[KEY];
}

describe('config on a key with several spellings', () => {
  it('a partly nested spelling beside a nested one: the change goes to the partly nested one, in effect, and COMPLETES', async () => {
    await env.deploy('conf-spellings', {
      conf: { execution: { checkpointing: { interval: '10s' } }, 'execution.checkpointing': { interval: '20s' } },
    });
    expect(effective('conf-spellings')).toBe('20s');
    const requested = await env.request({
      kind: 'config',
      target: { kind: 'FlinkDeployment', namespace: NS, name: 'conf-spellings' },
      action: 'set',
      entries: [{ key: KEY, value: '30s' }],
      incidentChannels: [],
    });
    const done = await env.waitTerminal(requested.id, 20_000);
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(effective('conf-spellings')).toBe('30s');
    expect(requested.plan?.diff).toEqual([{ path: `spec.flinkConfiguration.${KEY}`, before: '20s', after: '30s' }]);
  }, 40_000);
});
