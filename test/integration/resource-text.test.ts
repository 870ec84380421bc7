// Text from the cluster is data (docs/deep-verification.md#how-rest-is-reached): a session job's spec.deploymentName
// or a job id holding "../" never steers a Flink REST read through the API server's service proxy to another
// Service; the read is refused in words naming the field. Through the real Bolt app (signed commands), the real
// @kubernetes/client-node and the simulated API server's request log.
import { describe, expect, it } from 'vitest';
import type { RequestInfo } from '@flink-chatops/sim/kube/server';
import { recordEvent } from '@flink-chatops/sim/kube/events';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { mentionsIn } from '@flink-chatops/sim/slack-api';
import { waitFor } from '@flink-chatops/sim/testing/sim';
import { sessionJob } from '@flink-chatops/sim/testing/sim-resources';
import { USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';

const bots = useBotEnvs();

async function ask(e: BotEnv, text: string) {
  return JSON.stringify((await reply(e, text)).body);
}

async function reply(e: BotEnv, text: string) {
  const sent = await e.command(text, USERS.alice);
  expect(sent.status).toBe(200);
  return sent.reply();
}

/** The service-proxy requests the simulated API server answered while `run` ran. */
async function proxyRequests<T>(run: () => Promise<T>): Promise<{ result: T; seen: RequestInfo[] }> {
  const seen: RequestInfo[] = [];
  const stop = bots.cluster.server.onRequest((info) => {
    if (info.subresource === 'proxy') seen.push(info);
  });
  try {
    return { result: await run(), seen };
  } finally {
    stop();
  }
}

/** streaming-prod/orders' running job id: what the steered read would fetch from the production cluster. */
async function prodJobId(): Promise<string> {
  const { store } = bots.cluster;
  const id = () =>
    (store.get('flinkdeployments', 'streaming-prod', 'orders')?.status?.jobStatus as { jobId?: string } | undefined)
      ?.jobId;
  return waitFor(store, () => id(), 15_000, 'the job id of streaming-prod/orders', id);
}

/** A session job in streaming-dev (where anyone may edit), its status written as if its job were RUNNING. */
async function plant(name: string, deploymentName: string, jobId: string): Promise<void> {
  const { store } = bots.cluster;
  store.create('flinksessionjobs', sessionJob(name, 'streaming-dev', deploymentName));
  // The operator's own first word comes before ours, or it would overwrite it.
  const reconciled = () => store.get('flinksessionjobs', 'streaming-dev', name)?.status?.lifecycleState;
  await waitFor(store, () => reconciled(), 15_000, `the operator to reconcile ${name}`, reconciled);
  const status = (o: KubeObject) => ({
    ...o,
    status: { ...o.status, jobStatus: { jobId, state: 'RUNNING', jobName: name } },
  });
  store.update('flinksessionjobs', 'streaming-dev', name, status, { subresource: 'status' });
}

describe('cluster text in REST paths', () => {
  it('a spec.deploymentName with "../" is refused by name and no proxy request leaves streaming-dev', async () => {
    const e = await bots.start();
    const jobId = await prodJobId();
    await plant('steered-cluster', 'x/../../../streaming-prod/services/orders', jobId);
    const { result: answer, seen } = await proxyRequests(() =>
      ask(e, 'exceptions sessionjob:streaming-dev/steered-cluster'),
    );
    expect(seen.filter((s) => s.namespace !== 'streaming-dev')).toEqual([]);
    expect(seen).toEqual([]);
    expect(answer).toContain('spec.deploymentName \\"x/../../../streaming-prod/services/orders\\" is not a valid name');
  });

  it('a status.jobStatus.jobId with "../" is refused by name and no proxy request leaves streaming-dev', async () => {
    const e = await bots.start();
    const prod = await prodJobId();
    const steering = `../../../../../streaming-prod/services/orders-rest:rest/proxy/jobs/${prod}`;
    await plant('steered-job', 'session-cluster', steering);
    const { result: answer, seen } = await proxyRequests(() =>
      ask(e, 'exceptions sessionjob:streaming-dev/steered-job'),
    );
    expect(seen.filter((s) => s.namespace !== 'streaming-dev')).toEqual([]);
    expect(seen).toEqual([]);
    expect(answer).toContain('status.jobStatus.jobId \\"../../../../../streaming-prod/');
    expect(answer).toContain('is not a Flink job id (32 hex characters)');
  });
});

/** Everything Slack would ping or link, written where Flink and Kubernetes write text. */
const PINGS =
  '<!channel> <@U0LEAD1> <!subteam^S0LEADS> <https://evil.example/x|click here> @here https://evil.example/y';

describe('cluster text in Slack', () => {
  it('an exception Event and status.error holding mentions and links reach the channel with none of them live', async () => {
    const e = await bots.start();
    const { store } = bots.cluster;
    await plant('pinging', 'session-cluster', 'a1b2c3d4e5f60718293a4b5c6d7e8f90');
    store.update(
      'flinksessionjobs',
      'streaming-dev',
      'pinging',
      (o) => ({ ...o, status: { ...o.status, error: `java.lang.RuntimeException: ${PINGS}` } }),
      { subresource: 'status' },
    );
    const involved = store.get('flinksessionjobs', 'streaming-dev', 'pinging') as KubeObject;
    recordEvent(store, {
      involved,
      type: 'Warning',
      reason: 'JobException',
      component: 'Job',
      message: `java.lang.IllegalStateException: record ${PINGS}`,
      annotations: { 'task-name': `Sink ${PINGS}`, 'exception-timestamp': new Date().toISOString() },
    });
    const before = e.sim.messages(e.channel).length;
    const answer = await reply(e, 'exceptions sessionjob:streaming-dev/pinging --public');
    expect(answer.body.response_type).toBe('in_channel');
    const posted = await e.sim.waitFor(() => e.sim.messages(e.channel)[before], 10_000, 'the public answer');
    const all = JSON.stringify(posted.blocks);
    // The text is shown (escaped), three times: the Event's message, its task name and status.error.
    expect(all).toContain('IllegalStateException: record');
    expect(all).toContain('click here');
    expect(all.split('evil.example/y').length - 1).toBeGreaterThanOrEqual(3);
    expect(mentionsIn(posted)).toEqual([]);
  });
});
