import { describe, expect, it } from 'vitest';
import { planOperation } from '../../../../../src/domain/engines/planning/planner.js';
import type { Target } from '../../../../../src/domain/model/target.js';
import {
  PLAN_CONTEXT as CTX,
  flinkDeployment,
  flinkSessionJob,
  intentOf as intent,
  planFor as planned,
  refusalFor as refusal,
  sessionCluster,
} from '../../../../support/fixtures.js';

const NS = 'streaming-prod';
const DEP: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders-enricher' };
const SJ: Target = { kind: 'FlinkSessionJob', namespace: NS, name: 'clickstream-sessionizer' };
const SC: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'session-cluster' };
const ANNOTATIONS = { 'flink-chatops/operation-id': CTX.opId, 'flink-chatops/requested-by': CTX.requester };

const running = flinkDeployment();
const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });

describe('refusals', () => {
  it.each([
    ['no status at all', flinkDeployment({ status: null })],
    ['an empty status', { ...flinkDeployment(), status: {} }],
  ])('refuses a target with %s: not reconciled by the Flink operator yet', (_case, resource) => {
    expect(refusal({ kind: 'restart', target: DEP }, resource)).toMatch(/not reconciled by the Flink operator yet/);
  });

  it.each([
    {
      raw: { kind: 'suspend', target: DEP },
      resource: suspended,
      says: /already suspended \(spec\.job\.state: suspended\); nothing to do/,
    },
    { raw: { kind: 'suspend', target: DEP, mode: 'stateless' }, resource: suspended, says: /already suspended/ },
    {
      raw: { kind: 'resume', target: DEP },
      resource: running,
      says: /already running \(spec\.job\.state: running\); nothing to do/,
    },
    {
      raw: { kind: 'resume', target: DEP },
      resource: flinkDeployment({ spec: { job: { state: null } } }),
      says: /already running \(spec\.job\.state: unset, which means running\)/,
    },
    {
      raw: { kind: 'scale', target: DEP, parallelism: 4 },
      resource: running,
      says: /already has parallelism 4 .*nothing to do/,
    },
    {
      raw: { kind: 'upgrade', target: DEP, image: 'flink:1.20.1-scala_2.12-java17' },
      resource: running,
      says: /already runs image flink:1\.20\.1-scala_2\.12-java17 .*nothing to do/,
    },
  ])('nothing to do: $raw.kind on $resource.spec.job.state says the current value', ({ raw, resource, says }) => {
    expect(refusal(raw, resource)).toMatch(says);
  });

  it('names the kind when the resource read is not the kind asked for', () => {
    expect(refusal({ kind: 'restart', target: DEP }, flinkSessionJob({ name: DEP.name }))).toMatch(
      /is a FlinkSessionJob, not a FlinkDeployment/,
    );
  });

  it('refuses a resource without uid or generation instead of planning against it', () => {
    const resource = flinkDeployment();
    delete resource.metadata.uid;
    expect(refusal({ kind: 'restart', target: DEP }, resource)).toMatch(/no metadata\.uid/);
  });

  it('does not refuse scale when taskManager.replicas is set (policy fails it with the explanation)', () => {
    const resource = flinkDeployment({ spec: { taskManager: { replicas: 3 } } });
    expect(planned({ kind: 'scale', target: DEP, parallelism: 8 }, resource).diff).toEqual([
      { path: 'spec.job.parallelism', before: 4, after: 8 },
    ]);
  });
});

describe('session clusters and session jobs', () => {
  const cluster = sessionCluster();

  it.each([
    { kind: 'suspend' },
    { kind: 'resume' },
    { kind: 'scale', parallelism: 2 },
    { kind: 'savepoint' },
    { kind: 'restore', from: 's3://sp/1' },
  ])('refuses $kind on a session cluster: only restart, upgrade and gitops-resume apply', (raw) => {
    expect(refusal({ ...raw, target: SC }, cluster)).toMatch(
      new RegExp(
        `is a session cluster .*only restart, upgrade and gitops-resume apply to it; to ${raw.kind} one of its jobs, target the job as sessionjob:${NS}/<name>`,
      ),
    );
  });

  it('restarts a session cluster', () => {
    const plan = planned({ kind: 'restart', target: SC }, cluster);
    expect(plan.change).toEqual({
      type: 'patch',
      patch: { metadata: { annotations: ANNOTATIONS }, spec: { restartNonce: CTX.nonce } },
    });
  });

  it('upgrades a session cluster without touching spec.job', () => {
    const plan = planned({ kind: 'upgrade', target: SC, image: 'flink:1.20.2' }, cluster);
    expect(plan.change).toEqual({
      type: 'patch',
      patch: { metadata: { annotations: ANNOTATIONS }, spec: { image: 'flink:1.20.2' } },
    });
    expect(plan.effectiveUpgradeMode).toBe('stateless');
  });

  it('refuses --mode on a session cluster (it has no job, and adding spec.job would be rejected)', () => {
    expect(refusal({ kind: 'upgrade', target: SC, image: 'flink:1.20.2', mode: 'savepoint' }, cluster)).toMatch(
      /--mode does not apply/,
    );
  });

  it('refuses upgrade on a session job and points at its session cluster', () => {
    expect(refusal({ kind: 'upgrade', target: SJ, image: 'x:2' }, flinkSessionJob())).toBe(
      `session jobs have no image; upgrade the session cluster (${NS}/session-cluster)`,
    );
  });

  it.each([
    { raw: { kind: 'suspend', target: SJ }, spec: { job: { state: 'suspended' } } },
    { raw: { kind: 'scale', target: SJ, parallelism: 6 }, spec: { job: { parallelism: 6 } } },
    { raw: { kind: 'restart', target: SJ }, spec: { restartNonce: CTX.nonce } },
    {
      raw: { kind: 'restore', target: SJ, from: 's3://sp/9' },
      spec: { job: { initialSavepointPath: 's3://sp/9', savepointRedeployNonce: CTX.nonce } },
    },
  ])('plans $raw.kind on a session job like on a deployment', ({ raw, spec }) => {
    expect(planned(raw, flinkSessionJob(), CTX).change).toEqual({
      type: 'patch',
      patch: { metadata: { annotations: ANNOTATIONS }, spec },
    });
  });

  it('accepts the session cluster alongside the session job without needing it', () => {
    const result = planOperation(
      intent({ kind: 'scale', target: SJ, parallelism: 6 }),
      { resource: flinkSessionJob(), sessionCluster: cluster },
      CTX,
    );
    expect(result.ok).toBe(true);
  });
});

describe('bad context is a programming fault', () => {
  it.each([
    [{ ...CTX, opId: 'abc' }, /not an operation id/],
    [{ ...CTX, requester: '' }, /requester is empty/],
    [{ ...CTX, nonce: 1.5 }, /nonce 1\.5/],
    [{ ...CTX, nonce: 2 ** 63 }, /not a non-negative safe integer/],
    [{ ...CTX, revision: 0 }, /revision 0/],
  ])('%j throws', (ctx, message) => {
    expect(() => planOperation(intent({ kind: 'restart', target: DEP }), { resource: running }, ctx)).toThrow(message);
  });
});
