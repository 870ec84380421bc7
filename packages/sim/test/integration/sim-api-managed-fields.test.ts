// metadata.managedFields through the real @kubernetes/client-node: who created, who changed what, ownership moving
// between managers, status writes, forged entries, and fieldManager values kube-apiserver refuses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fieldOwners } from '../../src/kube/managed-fields.js';
import type { KubeObject } from '../../src/kube/store.js';
import {
  apiFailure,
  crPath,
  fetchSim,
  flinkDeployment,
  MERGE_PATCH,
  startSimApi,
  type SimApi,
} from '../support/kube.js';

const NS = 'streaming-prod';
const fd = crPath(NS);
let sim: SimApi;

beforeEach(async () => {
  sim = await startSimApi();
});
afterEach(async () => {
  await sim.close();
});

const create = (object: KubeObject, fieldManager?: string) =>
  sim.custom.createNamespacedCustomObject({
    ...fd,
    body: object,
    ...(fieldManager ? { fieldManager } : {}),
  }) as Promise<KubeObject>;
const patch = (body: unknown, fieldManager?: string) =>
  sim.custom.patchNamespacedCustomObject(
    { ...fd, name: 'orders', body, ...(fieldManager ? { fieldManager } : {}) },
    MERGE_PATCH,
  ) as Promise<KubeObject>;
// Entries written in the same second are in manager order (kube-apiserver's): compare them as sets.
const managers = (o: KubeObject) => (o.metadata.managedFields ?? []).map((e) => e.manager).sort();
const owners = (o: KubeObject, ...path: string[]) => fieldOwners(o.metadata.managedFields, path);

describe('managedFields on HTTP writes', () => {
  it('a create without fieldManager is the User-Agent program of client-node (node-fetch), owning all it sent', async () => {
    const created = await create(flinkDeployment('orders', NS));
    const [entry] = created.metadata.managedFields ?? [];
    expect(entry).toMatchObject({
      manager: 'node-fetch',
      operation: 'Update',
      apiVersion: 'flink.apache.org/v1beta1',
      fieldsType: 'FieldsV1',
    });
    expect(entry?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(entry?.subresource).toBeUndefined();
    const fields = entry?.fieldsV1 as Record<string, Record<string, unknown>>;
    expect(Object.keys(fields)).toEqual(['f:metadata', 'f:spec']);
    expect(fields['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    expect(fields['f:spec']?.['f:job']).toEqual({
      '.': {},
      'f:jarURI': {},
      'f:parallelism': {},
      'f:state': {},
      'f:upgradeMode': {},
    });
  });

  it('a patch with fieldManager moves the changed field to that manager; a second manager takes it on', async () => {
    await create(flinkDeployment('orders', NS), 'kubectl');
    const bot = await patch({ spec: { job: { parallelism: 8 }, restartNonce: 3 } }, 'flink-chatops');
    expect(managers(bot)).toEqual(['flink-chatops', 'kubectl']);
    expect(owners(bot, 'spec', 'job', 'parallelism')).toEqual(['flink-chatops']);
    expect(owners(bot, 'spec', 'restartNonce')).toEqual(['flink-chatops']);
    expect(owners(bot, 'spec', 'image')).toEqual(['kubectl']);
    const bot2 = bot.metadata.managedFields?.find((e) => e.manager === 'flink-chatops');
    expect(bot2?.fieldsV1).toEqual({ 'f:spec': { 'f:job': { 'f:parallelism': {} }, 'f:restartNonce': {} } });

    // Without fieldManager: node-fetch, client-node's User-Agent, takes parallelism from the bot.
    const other = await patch({ spec: { job: { parallelism: 4 } } });
    expect(owners(other, 'spec', 'job', 'parallelism')).toEqual(['node-fetch']);
    expect(owners(other, 'spec', 'restartNonce')).toEqual(['flink-chatops']);

    // Removing restartNonce empties the bot's entry, which goes.
    const removed = await patch({ spec: { restartNonce: null } }, 'cleanup');
    expect(managers(removed)).toEqual(['kubectl', 'node-fetch']);
  });

  it('a write that changes nothing leaves managedFields (and the resourceVersion) alone', async () => {
    const created = await create(flinkDeployment('orders', NS), 'kubectl');
    const same = await patch({ spec: { job: { parallelism: 2 } } }, 'flink-chatops');
    expect(same.metadata.managedFields).toEqual(created.metadata.managedFields);
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('status writes get entries with subresource status; spec writes ignore status', async () => {
    await create(flinkDeployment('orders', NS), 'kubectl');
    const written = (await sim.custom.patchNamespacedCustomObjectStatus(
      { ...fd, name: 'orders', body: { status: { lifecycleState: 'STABLE' } }, fieldManager: 'flink-operator' },
      MERGE_PATCH,
    )) as KubeObject;
    const entry = written.metadata.managedFields?.find((e) => e.manager === 'flink-operator');
    expect(entry).toMatchObject({ subresource: 'status', operation: 'Update' });
    expect(entry?.fieldsV1).toEqual({ 'f:status': { '.': {}, 'f:lifecycleState': {} } });
    const viaMain = await patch({ status: { lifecycleState: 'FAILED' } }, 'flink-chatops');
    expect(managers(viaMain)).not.toContain('flink-chatops');
  });

  it('PUT records a replace as Update; managedFields sent by a client are ignored', async () => {
    const created = await create(flinkDeployment('orders', NS), 'kubectl');
    const forged = [{ manager: 'argocd-controller', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }];
    const afterPatch = await patch({ metadata: { managedFields: forged } }, 'mallory');
    expect(afterPatch.metadata.managedFields).toEqual(created.metadata.managedFields);
    const body = { ...afterPatch, spec: { ...afterPatch.spec, image: 'flink:2.0' } };
    body.metadata = { ...body.metadata, managedFields: [] };
    const replaced = (await sim.custom.replaceNamespacedCustomObject({
      ...fd,
      name: 'orders',
      body,
      fieldManager: 'helm',
    })) as KubeObject;
    expect(owners(replaced, 'spec', 'image')).toEqual(['helm']);
    expect(managers(replaced)).toEqual(['helm', 'kubectl']);
  });

  it.each([
    ['more than 128 bytes', 'x'.repeat(129), 'Too long: must have at most 128 bytes'],
    ['a non-printable character', 'bot\u0007', 'invalid character U+0007 (at position 3)'],
  ])('refuses a fieldManager with %s: 422 Invalid on PatchOptions', async (_what, fieldManager, message) => {
    await create(flinkDeployment('orders', NS));
    const failed = await apiFailure(() => patch({ spec: { job: { parallelism: 9 } } }, fieldManager));
    expect(failed.code).toBe(422);
    expect(failed.status.reason).toBe('Invalid');
    expect(failed.status.message).toContain('PatchOptions.meta.k8s.io "" is invalid: fieldManager: ');
    expect(failed.status.message).toContain(message);
    const create422 = await apiFailure(() => create(flinkDeployment('other', NS), fieldManager));
    expect(create422.status.message).toContain('CreateOptions.meta.k8s.io');
  });

  it('core resources too: an Event created with a fieldManager', async () => {
    const { status, body } = await fetchSim(sim.server.url, `/api/v1/namespaces/${NS}/events?fieldManager=recorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'e1' }, reason: 'Test', involvedObject: { name: 'orders' } }),
    });
    expect(status).toBe(201);
    const entry = (body.metadata as KubeObject['metadata']).managedFields?.[0];
    expect(entry).toMatchObject({ manager: 'recorder', apiVersion: 'v1' });
    expect(entry?.fieldsV1).toEqual({ 'f:involvedObject': { '.': {}, 'f:name': {} }, 'f:reason': {} });
  });
});
