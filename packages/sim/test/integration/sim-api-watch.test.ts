// Watches on the simulated API server through client-node's Watch and informer: order, resume, 410 Gone, breaks, bookmarks.
import { makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/store.js';
import { collectWatch, crPath, flinkDeployment, startSimApi, type SimApi } from '../support/kube.js';

const NS = 'streaming-prod';
const PATH = `/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments`;
let sim: SimApi | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(bookmarkIntervalMs?: number): Promise<SimApi> {
  sim = await startSimApi({}, bookmarkIntervalMs);
  return sim;
}

function scale(s: SimApi, name: string, parallelism: number): KubeObject {
  return s.store.update('flinkdeployments', NS, name, (o) => ({
    ...o,
    spec: { ...o.spec, job: { ...(o.spec?.job as object), parallelism } },
  }));
}

const summary = (events: { type: string; object: KubeObject }[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`);

describe('watch', () => {
  it('without resourceVersion sends current objects as ADDED, then every change in order', async () => {
    const s = await started();
    s.store.create('flinkdeployments', flinkDeployment('a', NS));
    s.store.create('flinkdeployments', flinkDeployment('other-ns', 'streaming-dev'));
    const w = await collectWatch(s.watch, PATH);
    expect(summary(await w.next(1))).toEqual(['ADDED a@1']);
    s.store.create('flinkdeployments', flinkDeployment('b', NS));
    scale(s, 'a', 3);
    s.store.update('flinkdeployments', NS, 'b', (o) => ({ ...o, status: { lifecycleState: 'STABLE' } }), {
      subresource: 'status',
    });
    s.store.delete('flinkdeployments', NS, 'a');
    expect(summary(await w.next(4))).toEqual(['ADDED b@3', 'MODIFIED a@4', 'MODIFIED b@5', 'DELETED a@6']);
    w.abort();
  });

  it('resuming from a resourceVersion delivers exactly the changes missed since then', async () => {
    const s = await started();
    s.store.create('flinkdeployments', flinkDeployment('a', NS));
    const seen = s.store.resourceVersion;
    scale(s, 'a', 3);
    s.store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: NS },
      reason: 'Submit',
    });
    s.store.create('flinkdeployments', flinkDeployment('b', NS));
    const w = await collectWatch(s.watch, PATH, { resourceVersion: seen });
    expect(summary(await w.next(2))).toEqual(['MODIFIED a@2', 'ADDED b@4']);
    scale(s, 'b', 5);
    expect(summary(await w.next(1))).toEqual(['MODIFIED b@5']);
    w.abort();
  });

  it.each([
    ['store.compact()', (s: SimApi) => s.store.compact()],
    ['faults.expireNextWatch()', (s: SimApi) => s.server.faults.expireNextWatch()],
  ])(
    'after %s a resumed watch gets an ERROR event with a 410 Expired Status, then the stream ends',
    async (_label, expire) => {
      const s = await started();
      s.store.create('flinkdeployments', flinkDeployment('a', NS));
      const old = s.store.resourceVersion;
      scale(s, 'a', 4);
      expire(s);
      const w = await collectWatch(s.watch, PATH, { resourceVersion: old });
      const [error] = await w.next(1);
      expect(error?.type).toBe('ERROR');
      expect(error?.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
      expect(await w.done).toBeNull();
    },
  );

  it('closeWatches() ends open streams abruptly and the done callback fires', async () => {
    const s = await started();
    const w1 = await collectWatch(s.watch, PATH);
    const w2 = await collectWatch(s.watch, '/apis/flink.apache.org/v1beta1/flinkdeployments');
    s.store.create('flinkdeployments', flinkDeployment('a', NS));
    await w1.next(1);
    await w2.next(1);
    expect(s.server.faults.closeWatches()).toBe(2);
    await Promise.all([w1.done, w2.done]);
  });

  it.each(['graceful', 'abrupt'] as const)(
    'an informer whose watch is closed (%s) and then expired relists and sees what changed meanwhile',
    async (how) => {
      const s = await started();
      s.store.create('flinkdeployments', flinkDeployment('a', NS));
      const listFn = () =>
        s.custom.listNamespacedCustomObject(crPath(NS)) as Promise<{ items: KubernetesObject[]; metadata: object }>;
      const informer = makeInformer(s.kc, PATH, listFn as never);
      // client-node's documented recipe: an informer stops on a watch error and the caller starts it again.
      informer.on('error', () => void informer.start());
      const added: string[] = [];
      const sawB = new Promise<void>((resolve) =>
        informer.on('add', (o) => {
          added.push(o.metadata?.name ?? '');
          if (o.metadata?.name === 'b') resolve();
        }),
      );
      await informer.start();
      s.store.compact();
      s.server.faults.expireNextWatch();
      expect(s.server.faults.closeWatches(how)).toBe(1);
      // Synchronously after the close: no watch is open when b appears, so only a relist can show it.
      s.store.create('flinkdeployments', flinkDeployment('b', NS));
      await sawB;
      await informer.stop();
      expect(added).toEqual(['a', 'b']);
      expect(s.server.stats().requests['list flinkdeployments']).toBe(2);
    },
  );

  it('label selectors apply to watches; leaving the selection is a DELETED event', async () => {
    const s = await started();
    const w = await collectWatch(s.watch, PATH, { labelSelector: 'tier=gold' });
    s.store.create(
      'flinkdeployments',
      flinkDeployment('silver', NS, { metadata: { name: 'silver', namespace: NS, labels: { tier: 'silver' } } }),
    );
    s.store.create(
      'flinkdeployments',
      flinkDeployment('gold', NS, { metadata: { name: 'gold', namespace: NS, labels: { tier: 'gold' } } }),
    );
    s.store.update('flinkdeployments', NS, 'gold', (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { tier: 'bronze' } },
    }));
    s.store.update('flinkdeployments', NS, 'silver', (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { tier: 'gold' } },
    }));
    expect(summary(await w.next(3))).toEqual(['ADDED gold@2', 'DELETED gold@3', 'ADDED silver@4']);
    w.abort();
  });

  it('field selectors apply to event watches', async () => {
    const s = await started();
    const w = await collectWatch(s.watch, `/api/v1/namespaces/${NS}/events`, {
      fieldSelector: 'involvedObject.name=orders',
    });
    for (const [name, target] of [
      ['e1', 'payments'],
      ['e2', 'orders'],
    ]) {
      s.store.create('events', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: name as string, namespace: NS },
        involvedObject: { kind: 'FlinkDeployment', name: target, namespace: NS },
      });
    }
    expect(summary(await w.next(1))).toEqual(['ADDED e2@2']);
    w.abort();
  });

  it('sends BOOKMARK events carrying the current resourceVersion when allowed', async () => {
    const s = await started(20);
    s.store.create('flinkdeployments', flinkDeployment('a', NS));
    const w = await collectWatch(s.watch, PATH, {
      allowWatchBookmarks: true,
      resourceVersion: s.store.resourceVersion,
    });
    const [bookmark] = await w.next(1);
    expect(bookmark).toMatchObject({
      type: 'BOOKMARK',
      object: { kind: 'FlinkDeployment', metadata: { resourceVersion: '1' } },
    });
    w.abort();
  });

  it('timeoutSeconds ends the stream cleanly', async () => {
    const s = await started();
    const w = await collectWatch(s.watch, PATH, { timeoutSeconds: 1 });
    expect(await w.done).toBeNull();
  });

  it('close() ends watches and frees the port', async () => {
    const s = await started();
    const w = await collectWatch(s.watch, PATH);
    await s.close();
    await w.done;
    await expect(fetch(`${s.server.url}/version`)).rejects.toThrow();
    sim = undefined;
  });
});
