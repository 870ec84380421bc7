// User impersonation on the simulated API server (docs/sandbox.md#impersonation): Impersonate-User and repeated
// Impersonate-Group headers recorded per request, and forbidImpersonation() refusing them as kube-apiserver words it.
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_USER } from '../../src/kube/faults.js';
import type { RequestInfo } from '../../src/kube/server.js';
import { crPath, flinkDeployment, MERGE_PATCH, startSimApi, type SimApi } from '../support/kube.js';

const NS = 'streaming-prod';
const PATH = `/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments/orders`;
let sim: SimApi;
let seen: RequestInfo[];

beforeEach(async () => {
  sim = await startSimApi();
  sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
  seen = [];
  sim.server.onRequest((info) => seen.push(info));
});
afterEach(async () => {
  await sim.close();
});

/** A raw request, so a header can be sent on several lines (node:http sends an array value that way). */
function send(
  method: string,
  headers: Record<string, string | string[]>,
  body?: unknown,
): Promise<{ status: number; body: { reason?: string; message?: string; code?: number } }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${sim.server.url}${PATH}`,
      { method, headers: { ...(text ? { 'Content-Type': 'application/merge-patch+json' } : {}), ...headers } },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (raw += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(raw) as never }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const parallelism = () =>
  (sim.store.get('flinkdeployments', NS, 'orders')?.spec?.job as { parallelism: number }).parallelism;
const scale = { spec: { job: { parallelism: 4 } } };

describe('Impersonate-* headers', () => {
  it('are recorded with each request: the user and every group line, in order', async () => {
    const headers = { 'Impersonate-User': 'slack:U0ALICE', 'Impersonate-Group': ['flink-chatops:requesters', 'ops'] };
    expect((await send('PATCH', headers, scale)).status).toBe(200);
    expect((await send('GET', {})).status).toBe(200);
    expect(seen.map((i) => [i.verb, i.impersonate])).toEqual([
      ['patch', { user: 'slack:U0ALICE', groups: ['flink-chatops:requesters', 'ops'] }],
      ['get', undefined],
    ]);
  });

  it('client-node requests without them record none', async () => {
    await sim.custom.getNamespacedCustomObject({ ...crPath(NS), name: 'orders' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('impersonate');
  });
});

describe('forbidImpersonation', () => {
  it('refuses a request that impersonates with the real 403, naming the user, and applies nothing', async () => {
    sim.server.faults.forbidImpersonation();
    const answer = await send(
      'PATCH',
      { 'Impersonate-User': 'slack:U123', 'Impersonate-Group': 'flink-chatops:requesters' },
      scale,
    );
    expect(answer).toEqual({
      status: 403,
      body: expect.objectContaining({
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message: `users "slack:U123" is forbidden: User "${DEFAULT_SIM_USER}" cannot impersonate resource "users" in API group "" at the cluster scope`,
      }) as never,
    });
    expect(parallelism()).toBe(2);
    expect(seen).toEqual([]);
  });

  it('names the group when only a group is impersonated, and the caller it is given', async () => {
    sim.server.faults.forbidImpersonation('system:serviceaccount:flink-chatops:flink-chatops-worker');
    const answer = await send('GET', { 'Impersonate-Group': 'flink-chatops:requesters' });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toBe(
      'groups "flink-chatops:requesters" is forbidden: User "system:serviceaccount:flink-chatops:flink-chatops-worker" ' +
        'cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it('leaves requests without Impersonate-* headers alone', async () => {
    sim.server.faults.forbidImpersonation();
    await sim.custom.patchNamespacedCustomObject({ ...crPath(NS), name: 'orders', body: scale }, MERGE_PATCH);
    expect(parallelism()).toBe(4);
  });

  it('ends with allowImpersonation, and with clear', async () => {
    const headers = { 'Impersonate-User': 'slack:U0ALICE' };
    sim.server.faults.forbidImpersonation();
    expect((await send('GET', headers)).status).toBe(403);
    sim.server.faults.allowImpersonation();
    expect((await send('GET', headers)).status).toBe(200);
    sim.server.faults.forbidImpersonation();
    sim.server.faults.clear();
    expect((await send('GET', headers)).status).toBe(200);
  });
});
