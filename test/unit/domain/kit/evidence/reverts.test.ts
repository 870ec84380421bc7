// Reverts (docs/lifecycle.md#after-completed): a watched field changed back by another manager is a revert naming that
// manager; the bot's own value, or its own ownership, is not; before COMPLETED it FAILS the operation.
import { describe, expect, it } from 'vitest';
import {
  findReverts,
  revertedFailure,
  revertEffect,
  UNKNOWN_MANAGER,
} from '../../../../../src/domain/kit/evidence/reverts.js';
import type { Ctx } from '../../../../../src/domain/kit/evidence/criteria.js';
import type { Plan } from '../../../../../src/domain/model/plan.js';

const FIELDS = [
  { path: ['spec', 'job', 'parallelism'], value: 8 },
  { path: ['spec', 'flinkConfiguration', 'taskmanager.numberOfTaskSlots'], value: '4' },
];

function object(parallelism: number, slots: string, entries: { manager: string; time: string; fieldsV1: unknown }[]) {
  return {
    metadata: {
      name: 'orders',
      managedFields: entries.map((e) => ({ ...e, operation: 'Update', fieldsType: 'FieldsV1' })),
    },
    spec: { job: { parallelism }, flinkConfiguration: { 'taskmanager.numberOfTaskSlots': slots } },
  };
}
const OURS = {
  manager: 'flink-chatops',
  time: '2030-03-01T12:00:00Z',
  fieldsV1: {
    'f:spec': { 'f:job': { 'f:parallelism': {} }, 'f:flinkConfiguration': { 'f:taskmanager.numberOfTaskSlots': {} } },
  },
};

describe('findReverts', () => {
  it('finds nothing while every field holds what the operation set', () => {
    expect(findReverts(FIELDS, object(8, '4', [OURS]), 'flink-chatops')).toEqual([]);
  });

  it('names the manager that owns a changed field now, with from and to', () => {
    const argo = {
      manager: 'argocd-controller',
      time: '2030-03-01T12:00:05Z',
      fieldsV1: { 'f:spec': { 'f:job': { 'f:parallelism': {} } } },
    };
    const ours = {
      ...OURS,
      fieldsV1: { 'f:spec': { 'f:flinkConfiguration': { 'f:taskmanager.numberOfTaskSlots': {} } } },
    };
    expect(findReverts(FIELDS, object(4, '4', [ours, argo]), 'flink-chatops')).toEqual([
      { path: ['spec', 'job', 'parallelism'], from: 8, to: 4, manager: 'argocd-controller' },
    ]);
  });

  it('a key with dots is one field; a removed field reads as null; no owner reads as unknown', () => {
    const gone = { metadata: { name: 'orders' }, spec: { job: { parallelism: 8 }, flinkConfiguration: {} } };
    expect(findReverts(FIELDS, gone, 'flink-chatops')).toEqual([
      { path: FIELDS[1]?.path, from: '4', to: null, manager: UNKNOWN_MANAGER },
    ]);
  });

  it('is not a revert when the bot itself still owns the changed field (its own later change)', () => {
    expect(findReverts(FIELDS, object(6, '4', [OURS]), 'flink-chatops')).toEqual([]);
  });
});

describe('revertEffect', () => {
  it('says what the operator does for a change back of each kind of field', () => {
    expect(revertEffect(['spec', 'restartNonce'], 3)).toContain('second restart');
    expect(revertEffect(['spec', 'job', 'savepointRedeployNonce'], 2)).toContain('second redeploy');
    expect(revertEffect(['spec', 'job', 'parallelism'], 4)).toContain('redeploys the job');
    expect(revertEffect(['metadata', 'annotations', 'x'], 'y')).toBeUndefined();
    // The operator acts on a nonce only when it gets a new non-null value (its @SpecDiff of a removed nonce: ignore).
    expect(revertEffect(['spec', 'restartNonce'], null)).toBeUndefined();
    expect(revertEffect(['spec', 'job', 'savepointRedeployNonce'], null)).toBeUndefined();
  });
});

describe('revertedFailure: a change back before COMPLETED', () => {
  const plan = {
    target: { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' },
    change: {
      type: 'patch',
      patch: {
        metadata: { annotations: { 'flink-chatops/operation-id': 'op-abc123' } },
        spec: { job: { parallelism: 8 } },
      },
    },
    gitops: {
      owner: 'Argo CD application team-a_orders',
      declared: ['spec.job.parallelism'],
      undeclared: [],
      onManaged: 'warn',
      pauses: false,
      paused: false,
      revertWatchMs: 1,
    },
  } as unknown as Plan;
  const argo = {
    manager: 'argocd-controller',
    time: '2030-03-01T12:00:05Z',
    fieldsV1: { 'f:spec': { 'f:job': { 'f:parallelism': {} } } },
  };
  const resource = (opId: string, generation: number) => ({
    ...object(4, '4', [argo]),
    metadata: { ...object(4, '4', [argo]).metadata, generation, annotations: { 'flink-chatops/operation-id': opId } },
  });
  const ctx = (res: unknown, gitops = true) =>
    ({ plan: gitops ? plan : { ...plan, gitops: undefined }, resource: res, submitted: 5 }) as unknown as Ctx;

  it('FAILS at once naming the manager, the owner and the field, once our write (or a later one) is seen', () => {
    const failure = revertedFailure(ctx(resource('op-abc123', 6)));
    expect(failure?.reason).toBe(
      'the change was reverted by argocd-controller (Argo CD application team-a_orders) before it took effect: spec.job.parallelism 8 → 4; change it in Git, or pause the target',
    );
    expect(failure?.evidence).toEqual([
      'spec.job.parallelism: 4, owned by argocd-controller in metadata.managedFields',
    ]);
  });

  it('says nothing about an object from before our write, or for a kind the policy exempts', () => {
    expect(revertedFailure(ctx(resource('op-earlier1', 6)))).toBeUndefined();
    expect(revertedFailure(ctx(resource('op-abc123', 4)))).toBeUndefined();
    expect(revertedFailure(ctx(resource('op-abc123', 6), false))).toBeUndefined();
  });
});
