import { describe, expect, it } from 'vitest';
import { fieldsCover, managedFieldsOf, ownersOf, patchLeaves } from '../../../../src/domain/model/managed-fields.js';

const ARGO_FIELDS = {
  'f:metadata': { 'f:annotations': { '.': {}, 'f:argocd.argoproj.io/tracking-id': {} } },
  'f:spec': {
    'f:image': {},
    'f:job': { 'f:parallelism': {}, 'f:upgradeMode': {}, 'f:args': {} },
    'f:flinkConfiguration': { '.': {}, 'f:taskmanager.numberOfTaskSlots': {} },
    'f:podTemplate': {},
  },
};

function withEntries(...entries: unknown[]): unknown {
  return { metadata: { name: 'orders', managedFields: entries } };
}

describe('managedFieldsOf', () => {
  it('reads well-formed entries and skips malformed ones', () => {
    const r = withEntries(
      { manager: 'argocd-controller', operation: 'Apply', time: '2026-01-01T00:00:00Z', fieldsV1: ARGO_FIELDS },
      { operation: 'Update' },
      'nonsense',
      null,
      { manager: '' },
      { manager: 42 },
      { manager: 'flink-kubernetes-operator', operation: 'Update', subresource: 'status', time: 7 },
    );
    expect(managedFieldsOf(r)).toEqual([
      { manager: 'argocd-controller', operation: 'Apply', time: '2026-01-01T00:00:00Z', fieldsV1: ARGO_FIELDS },
      { manager: 'flink-kubernetes-operator', operation: 'Update', subresource: 'status' },
    ]);
  });

  it('is empty when the object has no list there', () => {
    expect(managedFieldsOf({ metadata: { managedFields: { manager: 'x' } } })).toEqual([]);
    expect(managedFieldsOf({ metadata: {} })).toEqual([]);
    expect(managedFieldsOf(undefined)).toEqual([]);
    expect(managedFieldsOf('text')).toEqual([]);
  });
});

describe('fieldsCover', () => {
  it.each([
    [['spec', 'job', 'parallelism'], true],
    [['spec', 'job'], true],
    [['spec'], true],
    [['spec', 'restartNonce'], false],
    [['spec', 'job', 'savepointRedeployNonce'], false],
    [['spec', 'flinkConfiguration', 'taskmanager.numberOfTaskSlots'], true],
    [['spec', 'flinkConfiguration', 'taskmanager'], false],
    [['spec', 'flinkConfiguration', 'state.savepoints.dir'], false],
    [['spec', 'flinkConfiguration'], true],
  ] as const)('%j → %s', (path, covered) => {
    expect(fieldsCover(ARGO_FIELDS, path)).toBe(covered);
  });

  it('never splits keys on dots', () => {
    const fields = { 'f:spec': { 'f:flinkConfiguration': { 'f:taskmanager': { 'f:numberOfTaskSlots': {} } } } };
    expect(fieldsCover(fields, ['spec', 'flinkConfiguration', 'taskmanager.numberOfTaskSlots'])).toBe(false);
    expect(fieldsCover(fields, ['spec', 'flinkConfiguration', 'taskmanager', 'numberOfTaskSlots'])).toBe(true);
  });

  it('treats a leaf on the way as atomic: it covers everything below', () => {
    expect(fieldsCover(ARGO_FIELDS, ['spec', 'podTemplate', 'spec', 'containers'])).toBe(true);
    expect(fieldsCover(ARGO_FIELDS, ['spec', 'job', 'args', 'anything'])).toBe(true);
  });

  it('does not let a map-existence node cover the keys of the map', () => {
    const fields = { 'f:spec': { 'f:flinkConfiguration': { '.': {} } } };
    expect(fieldsCover(fields, ['spec', 'flinkConfiguration'])).toBe(true);
    expect(fieldsCover(fields, ['spec', 'flinkConfiguration', 'execution.checkpointing.interval'])).toBe(false);
  });

  it('covers nothing when the set is not an object', () => {
    expect(fieldsCover(undefined, ['spec'])).toBe(false);
    expect(fieldsCover([], ['spec'])).toBe(false);
    expect(fieldsCover({ 'f:spec': 'yes' }, ['spec'])).toBe(false);
  });
});

describe('ownersOf', () => {
  const parallelism = { 'f:spec': { 'f:job': { 'f:parallelism': {} } } };

  it('lists the covering managers, newest first, once each, ignoring status writes', () => {
    const r = withEntries(
      { manager: 'helm', operation: 'Update', time: '2026-01-01T10:00:00Z', fieldsV1: parallelism },
      { manager: 'argocd-controller', operation: 'Apply', time: '2026-01-01T12:00:00Z', fieldsV1: parallelism },
      { manager: 'flink-chatops', operation: 'Update', time: '2026-01-01T11:00:00Z', fieldsV1: { 'f:spec': {} } },
      { manager: 'helm', operation: 'Apply', time: '2026-01-01T09:00:00Z', fieldsV1: parallelism },
      { manager: 'kubectl', operation: 'Update', time: '2026-01-01T13:00:00Z', fieldsV1: { 'f:metadata': {} } },
      {
        manager: 'operator',
        operation: 'Update',
        subresource: 'status',
        time: '2026-01-01T14:00:00Z',
        fieldsV1: parallelism,
      },
    );
    expect(ownersOf(r, ['spec', 'job', 'parallelism'])).toEqual(['argocd-controller', 'flink-chatops', 'helm']);
    expect(ownersOf(r, ['spec', 'restartNonce'])).toEqual(['flink-chatops']);
    expect(ownersOf(r, ['metadata', 'labels'])).toEqual(['kubectl']);
  });

  it('puts entries without a readable time last, in their order', () => {
    const r = withEntries(
      { manager: 'b', fieldsV1: { 'f:spec': {} } },
      { manager: 'a', time: 'not a time', fieldsV1: { 'f:spec': {} } },
      { manager: 'c', time: '2026-01-01T00:00:00Z', fieldsV1: { 'f:spec': {} } },
    );
    expect(ownersOf(r, ['spec', 'image'])).toEqual(['c', 'b', 'a']);
  });

  it('is empty for an object nobody manages', () => {
    expect(ownersOf({ metadata: {} }, ['spec'])).toEqual([]);
  });
});

describe('patchLeaves', () => {
  const patch = {
    metadata: { annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' } },
    spec: {
      restartNonce: 4,
      job: { parallelism: 8, args: ['--a'], initialSavepointPath: null },
      flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '4' },
      podTemplate: {},
    },
  };

  it('lists every leaf from the root: scalars, arrays, null and empty objects', () => {
    expect(patchLeaves(patch)).toEqual([
      ['metadata', 'annotations', 'kustomize.toolkit.fluxcd.io/reconcile'],
      ['spec', 'restartNonce'],
      ['spec', 'job', 'parallelism'],
      ['spec', 'job', 'args'],
      ['spec', 'job', 'initialSavepointPath'],
      ['spec', 'flinkConfiguration', 'taskmanager.numberOfTaskSlots'],
      ['spec', 'podTemplate'],
    ]);
  });

  it('lists only the leaves below `under`, as full paths', () => {
    expect(patchLeaves(patch, ['spec', 'job'])).toEqual([
      ['spec', 'job', 'parallelism'],
      ['spec', 'job', 'args'],
      ['spec', 'job', 'initialSavepointPath'],
    ]);
    expect(patchLeaves(patch, ['spec', 'restartNonce'])).toEqual([['spec', 'restartNonce']]);
    expect(patchLeaves(patch, ['status'])).toEqual([]);
  });

  it('reports an ancestor of `under` that the patch replaces or removes', () => {
    expect(patchLeaves({ spec: null }, ['spec', 'job'])).toEqual([['spec']]);
    expect(patchLeaves({ spec: { job: 3 } }, ['spec', 'job', 'parallelism'])).toEqual([['spec', 'job']]);
  });

  it('has no leaves for something that is not a patch object', () => {
    expect(patchLeaves(null)).toEqual([]);
    expect(patchLeaves([1, 2])).toEqual([]);
    expect(patchLeaves({})).toEqual([]);
  });
});
