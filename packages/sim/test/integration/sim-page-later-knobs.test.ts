// The sandbox page's "later" knobs, switched per row through `POST /api/knob`: a job that fails in a minute,
// restarts some minutes after the next change, or whose checkpoints fail later (incidents-after on the operator).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnobBoard } from '../../src/page-knobs.js';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { scaledMs } from '../../src/kube/speed.js';
import type { KubeObject } from '../../src/kube/store.js';
import { startPageServer, type PageServer } from '../../src/page-server.js';
import type { PageState } from '../../src/page-state.js';
import { startSimSlack, type SimSlack } from '../../src/slack-api.js';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from '../../src/workspace.js';
import { editSpec, eventsFor, statusOf, waitFor, waitForStatus, waitStable } from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-dev';
/** A timer never fires early by more than a millisecond or so. */
const SLACK_MS = 10;
let slack: SimSlack;
let c: SimCluster;
let page: PageServer;

beforeEach(async () => {
  page = await startPageServer({ port: 0 });
  slack = await startSimSlack({
    users: [...USERS],
    channels: CHANNELS.map(({ topic: _t, ...ch }) => ch),
    usergroups: [...USERGROUPS],
    ...BOT,
    ...TEAM,
    permalinkBase: page.url,
  });
  c = await startSimCluster({ seed: 'none', speed: 'fast' });
  c.store.create('flinkdeployments', deployment('orders', NS));
  page.connect({
    slack,
    cluster: c,
    botEventsUrl: 'http://127.0.0.1:9/slack/events',
    signingSecret: 'page-later-knobs-secret',
    command: '/flink',
    policy: undefined,
    policyFile: 'policy.yaml',
  });
  await waitStable(c.store, NS, 'orders');
});
afterEach(async () => {
  await page.close();
  await Promise.all([slack.close(), c.close()]);
});

async function knob(name: string, on?: boolean): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = { namespace: NS, name: 'orders', knob: name, ...(on === undefined ? {} : { on }) };
  const res = await fetch(`${page.url}/api/knob`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const state = async (): Promise<PageState> => (await (await fetch(`${page.url}/api/state`)).json()) as PageState;
const orders = (): KubeObject => c.store.get('flinkdeployments', NS, 'orders') as KubeObject;
/** The operator's knobs on the job as `name` or `name=value`, sorted. */
const operatorKnobs = (): string[] => {
  const { scenarios, values } = c.operator.settingsOf(orders());
  return [...scenarios].map((s) => (values.has(s) ? `${s}=${values.get(s)}` : s)).sort();
};
const jobExceptions = (): number => eventsFor(c.store, orders()).filter((e) => e.reason === 'JobException').length;

describe('the later knobs on the cluster panel', () => {
  it('are offered with what they do', async () => {
    const offered = new Map((await state()).knobs.map((k) => [k.id, k.label]));
    expect(offered.get('fails-in-1-min')).toMatch(/FAILS on its own 60 s of operator time after it reaches RUNNING/);
    expect(offered.get('restarts-later')).toMatch(/^3 task failovers .* 120 s of operator time after each start/);
    expect(offered.get('checkpoints-fail-later')).toMatch(/^checkpoints complete for 60 s .* then fail/);
  });

  it('fails in 1 min: job-failure held back 60 s; the job FAILS that long after the switch, not before', async () => {
    const t0 = Date.now();
    expect(await knob('fails-in-1-min', true)).toMatchObject({ status: 200, json: { knobs: ['fails-in-1-min'] } });
    expect(operatorKnobs()).toEqual(['incidents-after=60', 'job-failure']);
    expect((await state()).cluster.find((r) => r.name === 'orders')?.knobs).toEqual(['fails-in-1-min']);
    await waitForStatus(c.store, 'flinkdeployments', NS, 'orders', (s) => s.jobStatus?.state === 'FAILED', 'FAILED');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(scaledMs('fast', 60) - SLACK_MS);
    expect(await knob('fails-in-1-min', false)).toMatchObject({ status: 200, json: { knobs: [] } });
    expect(operatorKnobs()).toEqual([]);
  });

  it('restarts 3× some minutes after the next change: three failovers 120 s after the new run reached RUNNING', async () => {
    expect((await knob('restarts-later', true)).json.knobs).toEqual(['restarts-later']);
    expect(operatorKnobs()).toEqual(['incidents-after=120', 'job-exceptions=3']);
    const before = statusOf(orders()).jobStatus?.startTime;
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const running = await waitStable(c.store, NS, 'orders');
    const runningAt = Date.now();
    expect(statusOf(running).jobStatus?.startTime).not.toBe(before);
    expect(jobExceptions()).toBe(0);
    await waitFor(c.store, () => jobExceptions() === 3, 5000, 'three JobException events');
    expect(Date.now() - runningAt).toBeGreaterThanOrEqual(scaledMs('fast', 120) - SLACK_MS);
    const jobId = String(statusOf(orders()).jobStatus?.jobId);
    const metrics = await fetch(
      `${c.url}/api/v1/namespaces/${NS}/services/orders-rest:rest/proxy/jobs/${jobId}/metrics`,
    );
    expect(await metrics.json()).toEqual([{ id: 'numRestarts', value: '3' }]);
  });

  it('a board with a floor (the sandbox) holds the later knobs back that long at least', async () => {
    const board = new KnobBoard(c, 1000);
    expect(board.set(NS, 'orders', 'restarts-later', true)).toEqual(['restarts-later']);
    expect(operatorKnobs()).toEqual(['incidents-after=1000', 'job-exceptions=3']);
    expect(board.set(NS, 'orders', 'restarts-later', false)).toEqual([]);
  });

  it('one later knob at a time, and none beside a knob whose incidents come right away', async () => {
    await knob('task-failovers', true);
    expect((await knob('restarts-later', true)).json.knobs).toEqual(['restarts-later']);
    expect((await knob('checkpoints-fail-later', true)).json.knobs).toEqual(['checkpoints-fail-later']);
    expect(operatorKnobs()).toEqual(['checkpoints-failing', 'incidents-after=60']);
    expect((await knob('upgrade-failed', true)).json.knobs).toEqual(['checkpoints-fail-later', 'upgrade-failed']);
    expect((await knob('checkpoints-failing', true)).json.knobs).toEqual(['upgrade-failed', 'checkpoints-failing']);
    expect(operatorKnobs()).toEqual(['checkpoints-failing', 'upgrade-failed']);
  });

  it('an unknown knob is refused with the list, and changes nothing', async () => {
    await knob('fails-in-1-min', true);
    const refused = await knob('fails-in-2-min', true);
    expect(refused.status).toBe(400);
    expect(String(refused.json.error)).toMatch(
      /^"knob" must be one of .*fails-in-1-min, restarts-later, checkpoints-fail-later/,
    );
    expect(operatorKnobs()).toEqual(['incidents-after=60', 'job-failure']);
  });
});
