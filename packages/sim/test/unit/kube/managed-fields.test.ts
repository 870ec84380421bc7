// Field sets of managedFields: FieldsV1 encoding, what a write changed, and ownership moving between managers.
import { describe, expect, it } from 'vitest';
import {
  createEntries,
  decodeFields,
  diffFields,
  encodeFields,
  fieldOwners,
  fieldSet,
  managedContent,
  pathKey,
  recordWrite,
  type Writer,
} from '../../../src/kube/managed-fields.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/kube/store.js';

const writer = (manager: string, time = '2025-01-01T00:00:00Z', extra: Partial<Writer> = {}): Writer => ({
  manager,
  operation: 'Update',
  apiVersion: 'flink.apache.org/v1beta1',
  time,
  ...extra,
});

const keys = (...paths: string[][]): Set<string> => new Set(paths.map(pathKey));

function object(spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkDeployment',
    metadata: {
      name: 'orders',
      namespace: 'prod',
      uid: 'u-1',
      resourceVersion: '7',
      generation: 2,
      creationTimestamp: '2025-01-01T00:00:00Z',
      ...(labels ? { labels } : {}),
    },
    spec,
    status: { lifecycleState: 'STABLE' },
  };
}

const content = (o: KubeObject): Record<string, unknown> => managedContent(o, { statusSubresource: true });

describe('FieldsV1', () => {
  it('encodes leaves as {}, a map that is itself a member and has members below with ".", arrays atomically', () => {
    const set = fieldSet({ metadata: { labels: { app: 'x' } }, spec: { job: { parallelism: 2, args: ['a'] }, e: {} } });
    expect(encodeFields(set)).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { '.': {}, 'f:e': {}, 'f:job': { '.': {}, 'f:args': {}, 'f:parallelism': {} } },
    });
  });

  it('decodes what it encodes, keys with dots and slashes included', () => {
    const set = keys(['spec', 'flinkConfiguration', 'state.savepoints.dir'], ['metadata', 'labels', 'a/b'], ['spec']);
    expect(decodeFields(encodeFields(set))).toEqual(set);
  });

  it('leaves out the server-set metadata, apiVersion, kind and status (a subresource)', () => {
    expect([...fieldSet(content(object({ image: 'i' })))]).toEqual([pathKey(['spec']), pathKey(['spec', 'image'])]);
  });
});

describe('what a write changed', () => {
  it('changed and appeared fields, a new map, removed fields; equal values are no change', () => {
    const before = content(object({ image: 'i', job: { parallelism: 2, state: 'running' } }));
    const after = content(object({ image: 'i', job: { parallelism: 4 }, restartNonce: 1 }, { team: 'a' }));
    const { changed, removed } = diffFields(before, after);
    expect(changed).toEqual(
      keys(
        ['spec', 'job', 'parallelism'],
        ['spec', 'restartNonce'],
        ['metadata', 'labels'],
        ['metadata', 'labels', 'team'],
      ),
    );
    expect(removed).toEqual(keys(['spec', 'job', 'state']));
  });

  it('compares values regardless of key order', () => {
    const a = content(object({ r: { cpu: 1, memory: '1g' } }));
    const b = content(object({ r: { memory: '1g', cpu: 1 } }));
    expect(diffFields(a, b)).toEqual({ changed: new Set(), removed: new Set() });
  });
});

describe('ownership', () => {
  const created = (): ManagedFieldsEntry[] =>
    createEntries(writer('kubectl'), content(object({ image: 'i', job: { parallelism: 2 } })));

  it('a create owns every field it sent', () => {
    const [entry] = created();
    expect(entry).toMatchObject({ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1' });
    expect(entry?.fieldsV1).toEqual({
      'f:spec': { '.': {}, 'f:image': {}, 'f:job': { '.': {}, 'f:parallelism': {} } },
    });
  });

  it('a changed field moves to the writer; the others keep the rest; time moves only on the writer', () => {
    const change = diffFields(
      content(object({ image: 'i', job: { parallelism: 2 } })),
      content(object({ image: 'i', job: { parallelism: 8 } })),
    );
    const entries = recordWrite(created(), writer('flink-chatops', '2025-01-01T00:05:00Z'), change);
    expect(entries.map((e) => [e.manager, e.time])).toEqual([
      ['kubectl', '2025-01-01T00:00:00Z'],
      ['flink-chatops', '2025-01-01T00:05:00Z'],
    ]);
    expect(fieldOwners(entries, ['spec', 'job', 'parallelism'])).toEqual(['flink-chatops']);
    expect(fieldOwners(entries, ['spec', 'image'])).toEqual(['kubectl']);
    // The map spec.job stays kubectl's: it existed before.
    expect(fieldOwners(entries, ['spec', 'job'])).toEqual(['kubectl']);
  });

  it('a removed field leaves every set; an emptied entry is dropped', () => {
    const bot = recordWrite(
      created(),
      writer('flink-chatops'),
      diffFields(
        content(object({ image: 'i', job: { parallelism: 2 } })),
        content(object({ image: 'i', job: { parallelism: 8 } })),
      ),
    );
    const change = diffFields(
      content(object({ image: 'i', job: { parallelism: 8 } })),
      content(object({ image: 'i' })),
    );
    const entries = recordWrite(bot, writer('cleaner'), change);
    expect(entries.map((e) => e.manager)).toEqual(['kubectl']);
    expect(entries[0]?.fieldsV1).toEqual({ 'f:spec': { '.': {}, 'f:image': {} } });
  });

  it('a write that changes nothing leaves the entries as they were', () => {
    const entries = created();
    expect(recordWrite(entries, writer('other'), { changed: new Set(), removed: new Set() })).toEqual(entries);
  });

  it('status writes get an entry of their own, marked with the subresource', () => {
    const change = diffFields({ status: { a: 1 } }, { status: { a: 2 } });
    const entries = recordWrite(
      created(),
      writer('kubectl', '2025-01-01T00:01:00Z', { subresource: 'status' }),
      change,
    );
    expect(entries.map((e) => [e.manager, e.subresource ?? ''])).toEqual([
      ['kubectl', ''],
      ['kubectl', 'status'],
    ]);
  });

  it('an Apply owns exactly its configuration and takes it from the others; Apply entries come first', () => {
    const bot = recordWrite(
      created(),
      writer('flink-chatops', '2025-01-01T00:05:00Z'),
      diffFields(content(object({ job: { parallelism: 2 } })), content(object({ job: { parallelism: 8 } }))),
    );
    const owned = keys(['spec', 'job', 'parallelism']);
    const change = diffFields(
      content(object({ job: { parallelism: 8 } })),
      content(object({ job: { parallelism: 2 } })),
    );
    const entries = recordWrite(
      bot,
      writer('argocd-controller', '2025-01-01T00:06:00Z', { operation: 'Apply' }),
      change,
      owned,
    );
    expect(entries[0]).toMatchObject({ manager: 'argocd-controller', operation: 'Apply' });
    expect(entries[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:job': { 'f:parallelism': {} } } });
    expect(fieldOwners(entries, ['spec', 'job', 'parallelism'])).toEqual(['argocd-controller']);
    expect(entries.map((e) => e.manager)).not.toContain('flink-chatops');
  });
});
