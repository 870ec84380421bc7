// `GET /sim/gitops` and `POST /sim/gitops` on the simulated API server: switching controllers over HTTP, and bad
// bodies answered with 400 (or 404), the problem named and the usage line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { fetchSim } from '../support/kube.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'team-a';
let cluster: SimCluster;

beforeAll(async () => {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  cluster.store.create('flinkdeployments', deployment('orders', NS));
});
afterAll(async () => {
  await cluster.close();
});

const post = (body: string) =>
  fetchSim(cluster.url, '/sim/gitops', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('/sim/gitops', () => {
  it('switches a controller on, lists it with its counters, and off again', async () => {
    const on = await post(JSON.stringify({ namespace: NS, name: 'orders', controller: 'flux', intervalMs: 600_000 }));
    expect(on.status).toBe(200);
    expect(on.body.target).toMatchObject({
      kind: 'FlinkDeployment',
      controller: 'flux',
      label: 'Flux',
      manager: 'kustomize-controller',
      application: 'flux-system/orders',
      intervalMs: 600_000,
      stats: { passes: 0, reverts: 0, skipped: 0, outOfSync: 0 },
    });
    const listed = await fetchSim(cluster.url, '/sim/gitops');
    expect(listed.status).toBe(200);
    expect(listed.body.targets).toEqual([expect.objectContaining({ name: 'orders', controller: 'flux' })]);
    const off = await post(JSON.stringify({ namespace: NS, name: 'orders', controller: 'off' }));
    expect(off).toEqual({
      status: 200,
      body: { target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders', controller: 'off' } },
    });
    expect((await fetchSim(cluster.url, '/sim/gitops')).body.targets).toEqual([]);
  });

  it.each([
    ['not JSON', '{', 400, /not valid JSON/],
    [
      'an unknown controller',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'jenkins' }),
      400,
      /^controller: /,
    ],
    ['no name', JSON.stringify({ namespace: NS, controller: 'argocd' }), 400, /^name: /],
    [
      'a negative delay',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'argocd', selfHealDelayMs: -1 }),
      400,
      /^selfHealDelayMs: /,
    ],
    [
      'a declared path outside spec',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'argocd', declared: [['status']] }),
      400,
      /neither under spec/,
    ],
    [
      'an Argo CD knob for Flux',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'flux', tracking: 'label' }),
      400,
      /^tracking: only Argo CD takes it/,
    ],
    [
      'a Flux knob for Helm',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'helm', overrideManagers: ['flink-chatops'] }),
      400,
      /^overrideManagers: only Flux takes it/,
    ],
    [
      'an ignore path outside spec',
      JSON.stringify({ namespace: NS, name: 'orders', controller: 'flux', ignore: [['status']] }),
      400,
      /^ignore: .*neither under spec/,
    ],
    ['an unknown key', JSON.stringify({ namespace: NS, name: 'orders', controller: 'argocd', app: 'x' }), 400, /app/],
    [
      'a resource that does not exist',
      JSON.stringify({ namespace: NS, name: 'nope', controller: 'helm' }),
      404,
      /team-a\/nope/,
    ],
  ])('%s: %i with the problem and the usage', async (_what, body, status, message) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatch(message);
    expect(answer.body.usage).toMatch(/^POST \/sim\/gitops takes \{"namespace"/);
  });

  it('other methods are 405', async () => {
    expect((await fetchSim(cluster.url, '/sim/gitops', { method: 'DELETE' })).status).toBe(405);
  });
});
