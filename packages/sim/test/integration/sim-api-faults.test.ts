// Fault injection on the simulated API server, seen through client-node: lost responses, 500s, delays, RBAC denials.
import { ApiException } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/store.js';
import { apiFailure, crPath, flinkDeployment, MERGE_PATCH, startSimApi, type SimApi } from '../support/kube.js';

const NS = 'streaming-prod';
const fd = crPath(NS);
let sim: SimApi;

beforeEach(async () => {
  sim = await startSimApi();
  sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
});
afterEach(async () => {
  await sim.close();
});

const scaleTo = (parallelism: number) =>
  sim.custom.patchNamespacedCustomObject(
    { ...fd, name: 'orders', body: { spec: { job: { parallelism } } } },
    MERGE_PATCH,
  ) as Promise<KubeObject>;
const parallelism = () =>
  (sim.store.get('flinkdeployments', NS, 'orders')?.spec?.job as { parallelism: number }).parallelism;

describe('fault injection', () => {
  it('lose-response applies the write, then the client sees a socket error rather than an API answer', async () => {
    sim.server.faults.inject({ kind: 'lose-response', method: 'PATCH', resource: 'flinkdeployments', name: 'orders' });
    const error = await scaleTo(5).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiException);
    expect(parallelism()).toBe(5);
    expect(sim.store.get('flinkdeployments', NS, 'orders')?.metadata.generation).toBe(2);
    await expect(scaleTo(6)).resolves.toMatchObject({ metadata: { generation: 3 } });
  });

  it('error-500 answers InternalError and applies nothing', async () => {
    sim.server.faults.inject({ kind: 'error-500', verb: 'patch' });
    const failure = await apiFailure(() => scaleTo(5));
    expect(failure).toMatchObject({ code: 500, status: { kind: 'Status', reason: 'InternalError' } });
    expect(parallelism()).toBe(2);
  });

  it('delay holds the answer (and the write) for the given time', async () => {
    sim.server.faults.inject({ kind: 'delay', ms: 300, method: 'PATCH' });
    const started = performance.now();
    const pending = scaleTo(7);
    expect(parallelism()).toBe(2);
    await pending;
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(parallelism()).toBe(7);
  });

  it('delay plus lose-response: the write lands after the delay and the answer is lost', async () => {
    sim.server.faults.inject({ kind: 'delay', ms: 100, method: 'PATCH' });
    sim.server.faults.inject({ kind: 'lose-response', method: 'PATCH' });
    await expect(scaleTo(8)).rejects.not.toBeInstanceOf(ApiException);
    expect(parallelism()).toBe(8);
  });

  it('a fault hits only the next `times` matching requests and ignores others', async () => {
    sim.server.faults.inject({ kind: 'error-500', verb: 'get', name: 'orders', times: 2 });
    await expect(sim.custom.listNamespacedCustomObject(fd)).resolves.toBeDefined();
    for (let i = 0; i < 2; i++)
      expect((await apiFailure(() => sim.custom.getNamespacedCustomObject({ ...fd, name: 'orders' }))).code).toBe(500);
    await expect(sim.custom.getNamespacedCustomObject({ ...fd, name: 'orders' })).resolves.toBeDefined();
    expect(sim.server.faults.list()).toEqual([]);
  });

  it('error-403 answers Forbidden with the RBAC message and applies nothing', async () => {
    sim.server.faults.inject({ kind: 'error-403', method: 'PATCH', subresource: 'none' });
    const failure = await apiFailure(() => scaleTo(3));
    expect(failure).toMatchObject({ code: 403, status: { reason: 'Forbidden' } });
    expect(failure.status.message).toBe(
      'flinkdeployments.flink.apache.org "orders" is forbidden: User "system:serviceaccount:flink-chatops:flink-chatops" ' +
        `cannot patch resource "flinkdeployments" in API group "flink.apache.org" in the namespace "${NS}"`,
    );
    expect(parallelism()).toBe(2);
  });

  it.each([
    [
      'list flink deployments',
      () => sim.custom.listNamespacedCustomObject(fd),
      'flinkdeployments.flink.apache.org is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "flinkdeployments" in API group "flink.apache.org" in the namespace "streaming-prod"',
    ],
    [
      'list events',
      () => sim.core.listNamespacedEvent({ namespace: NS }),
      'events is forbidden: User "system:serviceaccount:ops:bot" cannot list resource "events" in API group "" in the namespace "streaming-prod"',
    ],
    [
      'patch status',
      () => sim.custom.patchNamespacedCustomObjectStatus({ ...fd, name: 'orders', body: { status: {} } }, MERGE_PATCH),
      'flinkdeployments.flink.apache.org "orders" is forbidden: User "system:serviceaccount:ops:bot" cannot patch resource "flinkdeployments/status" in API group "flink.apache.org" in the namespace "streaming-prod"',
    ],
  ])('forbidNamespace denies %s with the real RBAC message', async (_label, call, message) => {
    sim.server.faults.forbidNamespace(NS, 'system:serviceaccount:ops:bot');
    const failure = await apiFailure(call);
    expect(failure).toMatchObject({ code: 403, status: { reason: 'Forbidden', message } });
    sim.server.faults.allowNamespace(NS);
    await expect(call()).resolves.toBeDefined();
  });

  it('the admin endpoint adds, lists and clears faults and refuses a malformed one', async () => {
    const post = (body: unknown) =>
      fetch(`${sim.server.url}/sim/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ kind: 'error-500', resource: 'flinkdeployments', times: 3 })).status).toBe(201);
    const listed = (await (await fetch(`${sim.server.url}/sim/faults`)).json()) as { faults: { remaining: number }[] };
    expect(listed.faults).toEqual([expect.objectContaining({ kind: 'error-500', remaining: 3 })]);
    const bad = await post({ kind: 'explode' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/invalid fault: kind/);
    expect((await post({ kind: 'delay' })).status).toBe(400);
    expect((await post({ action: 'forbidNamespace', namespace: NS })).status).toBe(200);
    expect((await apiFailure(() => sim.custom.listNamespacedCustomObject(fd))).code).toBe(403);
    expect((await fetch(`${sim.server.url}/sim/faults`, { method: 'DELETE' })).status).toBe(200);
    await expect(sim.custom.listNamespacedCustomObject(fd)).resolves.toBeDefined();
  });

  it('counts requests by verb and resource', async () => {
    sim.server.resetStats();
    await sim.custom.getNamespacedCustomObject({ ...fd, name: 'orders' });
    await scaleTo(3);
    await sim.custom.listNamespacedCustomObject(fd);
    await sim.core.listNamespacedEvent({ namespace: NS });
    await sim.custom.getNamespacedCustomObjectStatus({ ...fd, name: 'orders' });
    expect(sim.server.stats()).toEqual({
      total: 5,
      requests: {
        'get flinkdeployments': 1,
        'get flinkdeployments/status': 1,
        'list events': 1,
        'list flinkdeployments': 1,
        'patch flinkdeployments': 1,
      },
    });
  });

  it('a client that disconnects while its request is delayed does not disturb the server', async () => {
    // Two delayed gets: the second finishes after the first (abandoned) one has been answered into a closed socket.
    sim.server.faults.inject({ kind: 'delay', ms: 100, verb: 'get', name: 'orders', times: 2 });
    const controller = new AbortController();
    const pending = fetch(`${sim.server.url}/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments/orders`, {
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect(sim.custom.getNamespacedCustomObject({ ...fd, name: 'orders' })).resolves.toBeDefined();
    expect((await fetch(`${sim.server.url}/version`)).status).toBe(200);
  });
});
