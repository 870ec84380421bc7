// The sandbox page's GitOps switch: `POST /api/gitops` puts a row's resource under a simulated controller on the
// row's cluster; the state shows it on the row and offers the choices; bad requests name the problem.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { startPageServer, type PageServer } from '../../src/page-server.js';
import type { PageState } from '../../src/page-state.js';
import { startSimSlack, type SimSlack } from '../../src/slack-api.js';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from '../../src/workspace.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-prod';
let slack: SimSlack;
let eu: SimCluster;
let us: SimCluster;
let page: PageServer;

beforeEach(async () => {
  page = await startPageServer({ port: 0 });
  slack = await startSimSlack({
    users: [...USERS],
    channels: CHANNELS.map(({ topic: _t, ...c }) => c),
    usergroups: [...USERGROUPS],
    ...BOT,
    ...TEAM,
    permalinkBase: page.url,
  });
  [eu, us] = await Promise.all([
    startSimCluster({ seed: 'none', speed: 'fast' }),
    startSimCluster({ seed: 'none', speed: 'fast' }),
  ]);
  for (const c of [eu, us]) c.store.create('flinkdeployments', deployment('orders', NS));
  page.connect({
    slack,
    clusters: [
      { name: 'eu', cluster: eu },
      { name: 'us', cluster: us },
    ],
    botEventsUrl: 'http://127.0.0.1:9/slack/events',
    signingSecret: 'page-gitops-secret',
    command: '/flink',
    policy: undefined,
    policyFile: 'policy.yaml',
  });
});
afterEach(async () => {
  await page.close();
  await Promise.all([slack.close(), eu.close(), us.close()]);
});

const post = async (body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const res = await fetch(`${page.url}/api/gitops`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
const state = async (): Promise<PageState> => (await (await fetch(`${page.url}/api/state`)).json()) as PageState;
const rowOf = (s: PageState, cluster: string) => s.cluster.find((r) => r.cluster === cluster && r.name === 'orders');

describe('the GitOps switch on the cluster panel', () => {
  it('offers off, Argo CD self-heal, Flux and Helm', async () => {
    expect((await state()).gitops).toEqual([
      { id: 'off', label: 'off' },
      { id: 'argocd', label: 'Argo CD self-heal' },
      { id: 'flux', label: 'Flux' },
      { id: 'helm', label: 'Helm' },
    ]);
  });

  it('switches the named cluster’s resource only; the row shows the controller; off clears it', async () => {
    const on = await post({
      cluster: 'us',
      kind: 'FlinkDeployment',
      namespace: NS,
      name: 'orders',
      controller: 'argocd',
    });
    expect(on).toEqual({
      status: 200,
      json: {
        ok: true,
        cluster: 'us',
        namespace: NS,
        name: 'orders',
        controller: 'argocd',
        gitops: { label: 'Argo CD self-heal', application: 'streaming-prod_orders' },
      },
    });
    const s = await state();
    expect(rowOf(s, 'us')?.gitops).toEqual({
      controller: 'argocd',
      label: 'Argo CD self-heal',
      application: 'streaming-prod_orders',
    });
    expect(rowOf(s, 'eu')?.gitops).toBeUndefined();
    expect(us.store.get('flinkdeployments', NS, 'orders')?.metadata.annotations).toHaveProperty(
      'argocd.argoproj.io/tracking-id',
    );
    expect(eu.gitops.list()).toEqual([]);

    // Argo CD's knobs pass through: 2.x label tracking, server-side apply, no self-heal.
    const knobs = { tracking: 'label', serverSideApply: true, selfHeal: false };
    expect((await post({ cluster: 'us', namespace: NS, name: 'orders', controller: 'argocd', ...knobs })).status).toBe(
      200,
    );
    expect(us.gitops.list()[0]?.argocd).toEqual({ ...knobs, sync: 'Synced' });

    expect((await post({ cluster: 'us', namespace: NS, name: 'orders', controller: 'off' })).status).toBe(200);
    expect(rowOf(await state(), 'us')?.gitops).toBeUndefined();
    expect(us.gitops.list()).toEqual([]);
  });

  it.each([
    [{ namespace: NS, name: 'orders', controller: 'flux' }, 400, /"cluster" must name one of the simulated clusters/],
    [{ cluster: 'ap', namespace: NS, name: 'orders', controller: 'flux' }, 404, /no simulated cluster "ap"/],
    [
      { cluster: 'eu', namespace: NS, name: 'orders', controller: 'jenkins' },
      400,
      /"controller" must be one of off, argocd, flux, helm/,
    ],
    [{ cluster: 'eu', namespace: NS, name: 'orders', kind: 'Pod', controller: 'helm' }, 400, /"kind" must be/],
    [{ cluster: 'eu', namespace: NS, name: 'nope', controller: 'helm' }, 404, /streaming-prod\/nope/],
    [{ cluster: 'eu', name: 'orders', controller: 'helm' }, 400, /"namespace" must be a non-empty string/],
  ])('%j → %i', async (body, status, message) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ ok: false, error: expect.stringMatching(message) });
  });
});
