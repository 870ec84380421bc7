// The worker's after-COMPLETED watch (docs/lifecycle.md#after-completed) on the memory twins and a watch feed standing
// in for the Kubernetes API's: a revert by another manager becomes one REVERTED note, however often it is seen; a later
// operation of the bot ends the watch; the state stays COMPLETED.
import { describe, expect, it } from 'vitest';
import { REVERTED_NOTE } from '../../../src/domain/kit/evidence/reverts.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import type { PlanGitops } from '../../../src/domain/model/plan.js';
import type { KubeObject } from '../../../src/kube/flink-client.js';
import type { WatchListener } from '../../../src/kube/watch-hub.js';
import { createLogger } from '../../../src/log.js';
import { memoryStores } from '../../../src/store/memory/index.js';
import { AfterCompletedWatcher, watchOf } from '../../../src/worker/after-completed.js';
import { OP_ID } from '../../support/records.js';
import { completedInStore } from '../../support/store-records.js';
import { eventually } from '../../support/poll.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const GITOPS: PlanGitops = {
  owner: 'Argo CD application team-a_orders',
  tool: 'argocd',
  declared: ['spec.job.parallelism'],
  undeclared: [],
  onManaged: 'warn',
  pauses: false,
  paused: false,
  revertWatchMs: 15 * 60_000,
};

/** Feeds objects to the watcher as a namespace watch would. */
class Feed {
  readonly listeners = new Set<WatchListener>();
  async subscribe(_kind: string, _ns: string, listener: WatchListener): Promise<() => void> {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  send(object: KubeObject, type: 'MODIFIED' | 'DELETED' = 'MODIFIED'): void {
    for (const l of this.listeners) l(type, object);
  }
}

function target(parallelism: number, manager: string, opId = OP_ID): KubeObject {
  return {
    metadata: {
      name: 'orders-enricher',
      namespace: 'streaming-prod',
      generation: 5,
      annotations: { 'flink-chatops/operation-id': opId },
      managedFields: [
        {
          manager,
          operation: 'Apply',
          time: '2030-03-01T12:00:05Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:job': { 'f:parallelism': {} } } },
        },
      ],
    },
    spec: { job: { parallelism } },
  };
}

async function setUp() {
  let now = T0;
  const stores = memoryStores({ now: () => now });
  const feed = new Feed();
  const reverts: unknown[] = [];
  const watcher = new AfterCompletedWatcher({
    store: stores.store,
    watches: stores.afterCompleted,
    hub: feed,
    cluster: 'eu',
    logger: createLogger('silent'),
    now: () => now,
    actor: 'worker',
    onRevert: (r) => reverts.push(r),
  });
  const record = await completedInStore(stores.store, { gitops: { ...GITOPS } });
  const watch = watchOf(record, 'eu', now);
  if (!watch) throw new Error('expected a watch');
  await watcher.begin(watch);
  return { stores, feed, watcher, reverts, watch, tick: (ms: number) => (now += ms) };
}

const notes = (record: OperationRecord | undefined) =>
  (record?.history ?? []).filter((e) => e.type === 'note' && e.name === REVERTED_NOTE);

describe('AfterCompletedWatcher', () => {
  it('watches every spec field the patch set, for the policy period', async () => {
    const { watch } = await setUp();
    expect(watch).toMatchObject({ opId: OP_ID, kind: 'scale', cluster: 'eu', until: T0 + 15 * 60_000 });
    expect(watch.fields).toEqual([{ path: ['spec', 'job', 'parallelism'], value: 8 }]);
  });

  it('records one REVERTED note for a change back by another manager, however often it is seen', async () => {
    const { stores, feed, reverts, watcher } = await setUp();
    feed.send(target(8, 'flink-chatops'));
    feed.send(target(4, 'argocd-controller'));
    feed.send(target(4, 'argocd-controller'));
    await eventually('the revert recorded', () => reverts.length === 1);
    const record = await stores.store.get(OP_ID);
    expect(record?.state).toBe('COMPLETED');
    expect(notes(record).map((e) => e.detail)).toEqual([
      expect.objectContaining({
        path: ['spec', 'job', 'parallelism'],
        from: 8,
        to: 4,
        manager: 'argocd-controller',
        gitopsOwner: GITOPS.owner,
      }),
    ]);
    expect(reverts).toEqual([{ cluster: 'eu', manager: 'argocd-controller', kind: 'scale' }]);
    watcher.close();
  });

  it('ends when a later operation of the bot changed the target: a revert after that is not recorded', async () => {
    const { stores, feed, watcher } = await setUp();
    feed.send(target(6, 'flink-chatops', 'op-later00001'));
    await eventually('the watch ended', async () => (await stores.afterCompleted.list('eu')).length === 0);
    feed.send(target(4, 'argocd-controller'));
    expect(notes(await stores.store.get(OP_ID))).toEqual([]);
    watcher.close();
  });

  it('ends when the target is deleted', async () => {
    const { stores, feed, watcher } = await setUp();
    feed.send(target(8, 'flink-chatops'), 'DELETED');
    await eventually('the watch ended', async () => (await stores.afterCompleted.list('eu')).length === 0);
    watcher.close();
  });

  it('ends when its time runs out: the next read of the list drops it', async () => {
    const { stores, tick, watcher } = await setUp();
    watcher.close();
    tick(15 * 60_000);
    const replica = new AfterCompletedWatcher({
      store: stores.store,
      watches: stores.afterCompleted,
      hub: new Feed(),
      cluster: 'eu',
      logger: createLogger('silent'),
      now: () => T0 + 15 * 60_000,
      actor: 'worker',
    });
    await replica.start();
    expect(await stores.afterCompleted.list('eu')).toEqual([]);
    replica.close();
  });
});
