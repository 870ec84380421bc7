// Job alerts through the whole bot (real Bolt app, Redis, simulated Slack and cluster): an incident the workers raise
// is posted in its channel by the bot's alert delivery, and its buttons file normal requests as the clicker. End to
// end, a job that fails on its own under two bot and two worker replicas gets one message, edited as it develops.
import { describe, expect, it } from 'vitest';
import type { SimMessage } from '@flink-chatops/sim/slack-api';
import type { AlertSignal, Incident } from '../../src/app/ports/alerts.js';
import type { Target } from '../../src/domain/model/target.js';
import { createLogger } from '../../src/log.js';
import { startBot } from '../../src/roles/bot.js';
import { startWorker } from '../../src/roles/worker.js';
import { ALERT_ACTION_IDS, type AlertAction } from '../../src/slack/blocks/index.js';
import { RedisAlertStore } from '../../src/store/alerts.js';
import { storeKeys } from '../../src/store/keys.js';
import { clockFrom, GUEST, SECRET, testPolicy, USERS, useBotEnvs, WEDNESDAY, type BotEnv } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';
import { runningDeployment } from '../support/running-job.js';
import { messageClickBody, postSigned } from '../support/slack.js';

const bots = useBotEnvs();

const restarting: AlertSignal = {
  kind: 'restarting',
  since: Date.now(),
  summary: '4 restarts in 6 min',
  source: 'rest',
};

/** What a worker does on a failing job: an incident in the store (its stream entry wakes the bot). */
async function raise(env: BotEnv, namespace: string): Promise<Incident> {
  const store = new RedisAlertStore(env.redis.redis, env.redis.prefix);
  const { incident } = await store.observe({
    cluster: '',
    target: { kind: 'FlinkDeployment', namespace, name: 'orders' },
    rule: 'all-jobs',
    channel: env.channel,
    signals: [restarting],
    now: Date.now(),
  });
  if (incident === undefined) throw new Error('no incident raised');
  return incident;
}

async function alertMessage(env: BotEnv, incident: Incident): Promise<SimMessage> {
  return eventually(`the alert of ${incident.id}`, () =>
    env.sim.messages(env.channel).find((m) => m.metadata?.event_payload.op === incident.id),
  );
}

let clicks = 0;

/** `user` clicks a button of the alert; resolves with the private answer. */
async function click(
  env: BotEnv,
  message: SimMessage,
  action: AlertAction,
  user: string,
  teamId?: string,
): Promise<{ text: string; body: Record<string, unknown> }> {
  type Actions = { type: string; block_id: string; elements: { action_id: string; value: string }[] };
  const actions = ((message.blocks ?? []) as Actions[]).find((b) => b.type === 'actions');
  const element = actions?.elements.find((e) => e.action_id === ALERT_ACTION_IDS[action]);
  if (actions === undefined || element === undefined) throw new Error(`no ${action} button on the alert`);
  const responseId = `alert-click-${++clicks}`;
  const body = messageClickBody(
    env.sim,
    { channel: env.channel, ts: message.ts, message: message as unknown as Record<string, unknown> },
    {
      user,
      actionId: element.action_id,
      value: element.value,
      blockId: actions.block_id,
      responseId,
      ...(teamId ? { teamId } : {}),
    },
  );
  const res = await postSigned(env.bot.url as string, body, SECRET);
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('');
  const found = await env.sim.waitFor(() => env.sim.responses.find((r) => r.id === responseId), 10_000);
  const replyBody = (typeof found.body === 'string' ? { text: found.body } : found.body) as Record<string, unknown>;
  return { text: String(replyBody.text ?? ''), body: replyBody };
}

const opIdIn = (text: string): string => {
  const id = /op-[a-z0-9]{6,12}/.exec(text)?.[0];
  if (id === undefined) throw new Error(`no operation id in "${text}"`);
  return id;
};

describe('job alerts in the bot', () => {
  it('posts the alert once; Restart in production files a request as the clicker that awaits approval', async () => {
    const env = await bots.start();
    const incident = await raise(env, 'streaming-prod');
    const message = await alertMessage(env, incident);
    expect(message.text).toContain(incident.id);

    const answer = await click(env, message, 'restart', USERS.alice);
    expect(answer.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(answer.text).toContain('State: AWAITING_APPROVAL');
    const record = await env.waitForState(opIdIn(answer.text), ['AWAITING_APPROVAL']);
    expect(record).toMatchObject({
      kind: 'restart',
      requester: USERS.alice,
      channel: env.channel,
      target: { namespace: 'streaming-prod', name: 'orders' },
      decision: { requirements: [{ rule: 'prod-needs-a-lead' }] },
    });
    expect(record.intent.reason).toBe(`job alert ${incident.id}`);
    await env.cardIn(record, 'AWAITING_APPROVAL');
    const alerts = env.sim.messages(env.channel).filter((m) => m.metadata?.event_payload.op === incident.id);
    expect(alerts).toHaveLength(1);
  });

  it('Restart in a dev namespace is queued; someone the policy does not allow is refused and nothing is recorded', async () => {
    const env = await bots.start();
    const message = await alertMessage(env, await raise(env, 'streaming-dev'));
    const queued = await click(env, message, 'restart', USERS.bob);
    expect(queued.text).toContain('State: QUEUED');
    const record = await env.waitForState(opIdIn(queued.text), ['QUEUED']);
    expect(record).toMatchObject({ kind: 'restart', requester: USERS.bob });
    expect(await env.waitForJob(record.id, 1)).toBe('waiting');

    const prod = await alertMessage(env, await raise(env, 'streaming-prod'));
    const before = await env.operationCount();
    const refused = await click(env, prod, 'suspend', USERS.bob);
    expect(refused.text).toContain('you may not request suspend in streaming-prod');
    expect(await env.operationCount()).toBe(before);
  });

  it('Status answers privately like `/flink status`, and records nothing', async () => {
    const env = await bots.start();
    const message = await alertMessage(env, await raise(env, 'streaming-prod'));
    const before = await env.operationCount();
    const status = await click(env, message, 'status', USERS.bob);
    expect(status.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(JSON.stringify(status.body)).toContain('streaming-prod/orders');
    const typed = await (await env.command('status streaming-prod/orders', USERS.bob)).reply();
    expect(typed.text).toBe(status.text);
    expect(await env.operationCount()).toBe(before);
  });

  it('refuses a click from another workspace like every other click', async () => {
    const env = await bots.start();
    const message = await alertMessage(env, await raise(env, 'streaming-dev'));
    const before = await env.operationCount();
    const refused = await click(env, message, 'restart', GUEST.id, GUEST.team);
    expect(refused.text).toContain('this bot serves only its own Slack workspace');
    expect(await env.operationCount()).toBe(before);
  });
});

/** testPolicy, with one `alerts` entry: the `al-*` jobs of streaming-prod, posted in the test's channel. */
function alertsPolicy(channel: string): Record<string, unknown> {
  return {
    ...testPolicy(channel),
    alerts: [{ name: 'prod-jobs', targets: ['streaming-prod/al-*'], channel, mention: '<!subteam^S0LEADS>' }],
  };
}

function jobState(target: Target): string | undefined {
  const o = bots.cluster.store.get('flinkdeployments', target.namespace, target.name);
  return (o?.status as { jobStatus?: { state?: string } } | undefined)?.jobStatus?.state;
}

/** The alert's message once its blocks say `words`. */
async function shownWith(env: BotEnv, incident: Incident, words: string): Promise<SimMessage> {
  return eventually(`the alert of ${incident.id} saying "${words}"`, () =>
    env.sim
      .messages(env.channel)
      .find((m) => m.metadata?.event_payload.op === incident.id && JSON.stringify(m.blocks).includes(words)),
  );
}

describe('a watched job that fails on its own, with two bot and two worker replicas', () => {
  it('one alert message, edited while the job is started again and "recovered" when it runs; Restart follows policy; a job outside `alerts` raises nothing', async () => {
    const env = await bots.start({ policy: alertsPolicy });
    const second = await startBot(env.config, { logger: createLogger('silent'), now: clockFrom(WEDNESDAY) });
    const timing = { jobAlertTiming: { tickMs: 100, resyncMs: 500 } };
    const logger = createLogger('silent');
    const workers = [
      await startWorker(env.config, { logger, sweepIntervalMs: 60_000, ...timing }),
      await startWorker(env.config, { logger, sweepIntervalMs: 60_000, ...timing }),
    ];
    const store = new RedisAlertStore(env.redis.redis, env.redis.prefix);
    try {
      const watched = await runningDeployment(bots.cluster, 'streaming-prod', 'al-orders');
      const outside = await runningDeployment(bots.cluster, 'streaming-prod', 'other-orders');
      for (const t of [watched, outside]) bots.cluster.operator.setScenario(t.namespace, t.name, 'job-failure');
      const incident = await eventually('the incident of al-orders', async () => {
        const found = await store.get('', watched);
        return found?.signals.some((s) => s.kind === 'job-failed') ? found : undefined;
      });
      expect(jobState(outside)).toBe('FAILED');
      const message = await shownWith(env, incident, 'job FAILED');
      expect(message.text).toContain('<!subteam^S0LEADS>');

      // Restart from the alert: production's rule applies, as to a typed restart; the alert is its reason.
      const answer = await click(env, message, 'restart', USERS.alice);
      const restart = await env.waitForState(opIdIn(answer.text), ['AWAITING_APPROVAL']);
      expect(restart).toMatchObject({ kind: 'restart', requester: USERS.alice });
      expect(restart.intent.reason).toBe(`job alert ${incident.id}`);
      expect(restart.decision?.requirements.map((r) => r.rule)).toContain('prod-needs-a-lead');
      // The cause is fixed; the new JobManager's image pulls fail for 6 s (600 s of operator time at the test speed),
      // so the job is seen on its way back before it runs.
      bots.cluster.operator.setScenario(watched.namespace, watched.name, 'image-pull-failure=600s');
      for (const lead of [USERS.lead1, USERS.lead2]) {
        if ((await env.record(restart.id)).state !== 'AWAITING_APPROVAL') break;
        await (await env.click('approve', restart, lead)).reply();
      }
      const edited = await shownWith(env, incident, 'being started again');
      expect(edited.ts).toBe(message.ts);

      const done = await env.waitForState(restart.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
      expect(done.state).toBe('COMPLETED');
      const recovered = await shownWith(env, incident, 'Recovered at');
      expect(recovered.ts).toBe(message.ts);
      expect(JSON.stringify(recovered.blocks)).not.toContain('"type":"actions"');

      // One message and one successful post for the incident, however many replicas; nothing for the other job.
      const ours = env.sim.messages(env.channel).filter((m) => m.metadata?.event_payload.seq === 'alert');
      expect(ours.map((m) => m.metadata?.event_payload.op)).toEqual([incident.id]);
      const metadataOf = (args: Record<string, unknown>) =>
        (typeof args.metadata === 'string' ? JSON.parse(args.metadata) : args.metadata) as
          { event_payload?: { op?: string; seq?: string } } | undefined;
      const posted = env.sim.calls.filter((c) => {
        const payload = metadataOf(c.args)?.event_payload;
        return c.method === 'chat.postMessage' && c.status === 200 && payload?.op === incident.id;
      });
      expect(posted).toHaveLength(1);
      expect(await store.get('', outside)).toBeUndefined();
      expect(await store.listOpen()).toEqual([]);
      const versions = await env.redis.redis.xrange(storeKeys(env.redis.prefix).alertEvents, '-', '+');
      expect(versions.length).toBeGreaterThanOrEqual(3);
    } finally {
      for (const worker of workers) await worker.close();
      await second.close();
    }
  }, 120_000);
});
