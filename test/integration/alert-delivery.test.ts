// Job alerts, the bot side (src/notifier/alert-delivery.ts) against real Redis, the real RedisAlertStore and the
// simulated Slack Web API through the real WebClient: one message per incident, edits on new versions, the recovered
// edit, two replicas, a post whose response was lost, a replica killed mid-post, 429s, the channel digest, and a post
// that lost to another message of its incident, deleted with chat.delete.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimMessage, SimSlack } from '@flink-chatops/sim/slack-api';
import type { AlertSignal, AlertStore, Incident, IncidentMessage } from '../../src/app/ports/alerts.js';
import type { Target } from '../../src/domain/model/target.js';
import { createLogger } from '../../src/log.js';
import { AlertDelivery, ALERTS_GROUP, type AlertDeliveryOptions } from '../../src/notifier/alert-delivery.js';
import { METADATA_EVENT_TYPE } from '../../src/notifier/notifier.js';
import { RedisAlertStore } from '../../src/store/alerts.js';
import { storeKeys } from '../../src/store/keys.js';
import { OPS, startTestSlack, TEST_TIMEOUT_MS, testClient } from '../support/notifier-records.js';
import { recordLogs } from '../support/log-lines.js';
import { eventually, holds } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

let t: TestRedis;
let sim: SimSlack;
let store: RedisAlertStore;
let deliveries: AlertDelivery[];

const job = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: 'streaming-prod', name });
const restarting = (n: number): AlertSignal => ({
  kind: 'restarting',
  since: Date.now(),
  summary: `${n} restarts in 6 min`,
  source: 'rest',
});
const failed: AlertSignal = { kind: 'job-failed', since: Date.now(), summary: 'job FAILED', source: 'status' };

async function observe(name: string, signals: AlertSignal[], channel = OPS): Promise<Incident> {
  const result = await store.observe({
    cluster: '',
    target: job(name),
    rule: 'prod-jobs',
    channel,
    mention: '<!subteam^S0ONCALL>',
    signals,
    now: Date.now(),
  });
  if (result.incident === undefined) throw new Error(`no incident for ${name}`);
  return result.incident;
}

async function startDelivery(extra: Partial<AlertDeliveryOptions> = {}): Promise<AlertDelivery> {
  const delivery = new AlertDelivery({
    redis: t.redis,
    prefix: t.prefix,
    store,
    client: testClient(sim),
    consumer: `test-${Math.random().toString(36).slice(2, 8)}`,
    channelIntervalMs: 20,
    editWindowMs: 50,
    claimIdleMs: 600,
    blockMs: 200,
    holdMs: 50,
    lockTtlMs: 3_000,
    requestTimeoutMs: TEST_TIMEOUT_MS,
    settleMs: 100,
    logger: createLogger(process.env.ALERTS_TEST_LOG ?? 'silent'),
    ...extra,
  });
  deliveries.push(delivery);
  await delivery.start();
  return delivery;
}

/** Our alert messages in the channel (metadata `{op: inc-…, seq: 'alert'}`). */
function alertsIn(channel = OPS): SimMessage[] {
  return sim
    .messages(channel)
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE && m.metadata.event_payload.seq === 'alert');
}

const posts = (channel = OPS) => sim.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel);

/** The message of the incident once shown at `version` (its context line says so). */
async function shown(incident: Incident, version = incident.version): Promise<SimMessage> {
  return eventually(`${incident.id} shown at version ${version}`, async () => {
    const where = await store.message(incident.id);
    const message = where && sim.messages(where.channel).find((m) => m.ts === where.ts);
    return message && JSON.stringify(message.blocks).includes(`version ${version} `) ? message : undefined;
  });
}

async function allAcked(): Promise<boolean> {
  const key = storeKeys(t.prefix).alertEvents;
  const groups = (await t.redis.call('XINFO', 'GROUPS', key)) as unknown[][];
  const group = groups.find((g) => g[1] === ALERTS_GROUP);
  const at = (name: string) => group?.[group.indexOf(name) + 1];
  const last = (await t.redis.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0];
  return group !== undefined && at('last-delivered-id') === last && Number(at('pending')) === 0;
}
const settled = () => eventually('every alert entry acknowledged', allAcked, { timeoutMs: 15_000 });

beforeEach(async () => {
  t = await redisForTest('alr');
  sim = await startTestSlack();
  store = new RedisAlertStore(t.redis, t.prefix);
  deliveries = [];
});

afterEach(async () => {
  await Promise.all(deliveries.map((d) => d.stop()));
  await sim.close();
  await t.cleanup();
});

describe('one message per incident', () => {
  it('posts the incident once with the mention and its metadata, and stores the message', async () => {
    await startDelivery();
    const incident = await observe('orders', [restarting(3)]);
    const message = await shown(incident);
    await settled();

    expect(alertsIn()).toHaveLength(1);
    expect(message.text).toContain('<!subteam^S0ONCALL>');
    expect(message.text).toContain(incident.id);
    expect(message.metadata?.event_payload).toEqual({ op: incident.id, seq: 'alert', version: 1 });
    expect(await store.message(incident.id)).toEqual({ channel: OPS, ts: message.ts });
  });

  it('edits the same message on each new version, then to "recovered at" without buttons', async () => {
    await startDelivery();
    const first = await observe('orders', [restarting(3)]);
    const posted = await shown(first);
    const worse = await observe('orders', [restarting(5), failed]);
    const edited = await shown(worse);
    expect(edited.ts).toBe(posted.ts);
    expect(JSON.stringify(edited.blocks)).toContain('5 restarts in 6 min');
    expect(JSON.stringify(edited.blocks)).toContain('job FAILED');

    const over = await observe('orders', []);
    expect(over.recoveredAt).toBeDefined();
    const recovered = await shown(over);
    await settled();
    expect(recovered.ts).toBe(posted.ts);
    expect(JSON.stringify(recovered.blocks)).toContain('Recovered at');
    expect(JSON.stringify(recovered.blocks)).not.toContain('"type":"actions"');
    expect(alertsIn()).toHaveLength(1);
    expect(posts().filter((c) => c.status === 200)).toHaveLength(1);
  });

  it('two replicas show each incident with exactly one message', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const incidents = await Promise.all(names.map((n) => observe(n, [restarting(3)])));
    await Promise.all([startDelivery(), startDelivery()]);
    for (const incident of incidents) await shown(incident);
    await settled();
    expect(alertsIn()).toHaveLength(names.length);
    expect(new Set(alertsIn().map((m) => m.metadata?.event_payload.op))).toEqual(new Set(incidents.map((i) => i.id)));
    expect(posts().filter((c) => c.status === 200)).toHaveLength(names.length);
  });
});

describe('posts of unknown outcome', () => {
  it('a post whose response was lost is found in the channel by its metadata, not posted twice', async () => {
    sim.faults.timeoutNext('chat.postMessage');
    await startDelivery();
    const incident = await observe('orders', [restarting(3)]);
    const message = await shown(incident);
    await settled();
    expect(alertsIn()).toHaveLength(1);
    expect(await store.message(incident.id)).toEqual({ channel: OPS, ts: message.ts });
    expect(sim.calls.some((c) => c.method === 'conversations.history')).toBe(true);
  });

  it("under Slack's 2025 limits outside the Marketplace (history once a minute) the lost post is found in one read", async () => {
    await sim.close();
    sim = await startTestSlack(Infinity, { nonMarketplaceReads: true });
    sim.faults.timeoutNext('chat.postMessage');
    await startDelivery();
    const incident = await observe('orders', [restarting(3)]);
    await shown(incident);
    await settled();
    expect(alertsIn()).toHaveLength(1);
    expect(sim.calls.filter((c) => c.method === 'conversations.history').map((c) => c.status)).toEqual([200]);
  });

  it('a replica stopped mid-post leaves it to another, which finds the post instead of posting again', async () => {
    sim.faults.timeoutNext('chat.postMessage');
    const first = await startDelivery();
    const incident = await observe('orders', [restarting(3)]);
    await eventually('the post applied', () => alertsIn().length === 1);
    // Stopped while its call is unanswered: the entry stays pending, the delivery mark says "pending".
    await first.stop();
    expect(await store.message(incident.id)).toBeUndefined();

    await startDelivery();
    const message = await shown(incident);
    await settled();
    expect(alertsIn()).toHaveLength(1);
    expect(message.ts).toBe(alertsIn()[0]?.ts);
  });

  it('waits out a 429 (Retry-After) and posts once', async () => {
    sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 1 });
    await startDelivery();
    const startedAt = Date.now();
    const incident = await observe('orders', [restarting(3)]);
    await shown(incident);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    expect(posts().map((c) => c.status)).toEqual([429, 200]);
  });
});

/**
 * The store, except that another message of the incident (`rival`'s, e.g. a replica's or the digest's) is set just
 * before this delivery sets its own post: the post loses and is a duplicate.
 */
function rivalFirst(rival: (mine: IncidentMessage) => Promise<IncidentMessage>): AlertStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'setMessage')
        return async (id: string, mine: IncidentMessage) => {
          await target.setMessage(id, await rival(mine));
          return target.setMessage(id, mine);
        };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Another alert message in the channel, as a rival replica would have posted it. */
async function rivalPost(incident: Incident): Promise<IncidentMessage> {
  const metadata = { event_type: METADATA_EVENT_TYPE, event_payload: { op: incident.id, seq: 'alert', version: 1 } };
  const posted = await testClient(sim).chat.postMessage({ channel: OPS, text: `rival ${incident.id}`, metadata });
  return { channel: OPS, ts: posted.ts as string };
}

describe('a post that lost to another message of its incident (chat.delete)', () => {
  const deletes = () => sim.calls.filter((c) => c.method === 'chat.delete');

  it('is deleted: the winner is the one message left and the one stored', async () => {
    let winner: IncidentMessage | undefined;
    const incident = await observe('orders', [restarting(3)]);
    await startDelivery({ store: rivalFirst(async () => (winner = await rivalPost(incident))) });
    await eventually('the duplicate deleted', () => deletes().find((c) => c.status === 200));
    await settled();
    expect(alertsIn().map((m) => m.ts)).toEqual([winner?.ts]);
    expect(await store.message(incident.id)).toEqual(winner);
    expect(deletes()).toHaveLength(1);
  });

  it('a delete Slack refuses is logged once with the channel, ts and error, not retried; the winner is kept', async () => {
    const logs = recordLogs('warn');
    sim.faults.failNext('chat.delete', 'cant_delete_message');
    const incident = await observe('orders', [restarting(3)]);
    await startDelivery({ logger: logs.logger, store: rivalFirst(() => rivalPost(incident)) });
    const line = await logs.logged('the failed delete', (l) => l.msg.startsWith('could not delete our duplicate'));
    await settled();
    const [call] = deletes();
    expect(line).toMatchObject({ channel: OPS, ts: call?.args.ts, error: 'cant_delete_message' });
    expect(JSON.stringify(logs.lines)).not.toContain('xoxb-');
    expect(deletes()).toHaveLength(1);
    expect(await store.message(incident.id)).not.toEqual({ channel: OPS, ts: call?.args.ts });
  });

  it('a duplicate already gone (message_not_found) is what was wanted: nothing logged', async () => {
    const logs = recordLogs('warn');
    const incident = await observe('orders', [restarting(3)]);
    const rival = async (mine: IncidentMessage) => {
      await testClient(sim).chat.delete({ channel: mine.channel, ts: mine.ts });
      return rivalPost(incident);
    };
    await startDelivery({ logger: logs.logger, store: rivalFirst(rival) });
    await eventually('the second delete', () => deletes()[1]);
    await settled();
    expect(deletes()[1]?.response).toMatchObject({ ok: false, error: 'message_not_found' });
    expect(alertsIn()).toHaveLength(1);
    expect(logs.lines.filter((l) => l.msg.startsWith('could not delete'))).toEqual([]);
  });
});

describe('many at once', () => {
  it('more than 10 incidents awaiting their first post in one channel get ONE digest, edited as they change', async () => {
    const incidents: Incident[] = [];
    for (let n = 0; n < 12; n++) incidents.push(await observe(`job-${n}`, [restarting(3)]));
    await startDelivery();
    await startDelivery();

    const digest = await eventually('one digest for all 12', async () => {
      const where = await Promise.all(incidents.map((i) => store.message(i.id)));
      const ts = new Set(where.map((w) => w?.ts));
      return ts.size === 1 && !ts.has(undefined) ? where[0] : undefined;
    });
    await settled();
    expect(alertsIn()).toEqual([]);
    expect(posts().filter((c) => c.status === 200)).toHaveLength(1);
    const text = () => JSON.stringify(sim.messages(OPS).find((m) => m.ts === digest.ts)?.blocks);
    await eventually(
      'the digest lists all 12',
      holds(() => {
        for (let n = 0; n < 12; n++) expect(text()).toContain(`streaming-prod/job-${n}`);
        expect(text()).toContain('12 jobs need attention');
      }),
    );

    await observe('job-3', [restarting(3), failed]);
    await eventually('the digest shows the change', () => text().includes('job FAILED'));
    await observe('job-4', []);
    await eventually('the digest shows the recovery', () => text().includes('11 jobs need attention'));
    await settled();
    expect(posts().filter((c) => c.status === 200)).toHaveLength(1);

    // While the digest lists an open incident, newcomers of the channel join it: a storm stays one message.
    const late = await observe('late', [restarting(3)]);
    await eventually('the newcomer filed in the digest', async () => (await store.message(late.id))?.ts === digest.ts);
    await eventually('the digest lists it', () => text().includes('streaming-prod/late'));

    // Once every incident it listed has recovered, the channel's next incident has a message of its own again.
    const stillOpen = [...incidents.map((i) => i.target.name), 'late'].filter((name) => name !== 'job-4');
    for (const name of stillOpen) await observe(name, []);
    await eventually('the digest says none is open', () => text().includes('none open any more'));
    const alone = await observe('lonely', [restarting(3)]);
    const own = await shown(alone);
    await settled();
    expect(own.ts).not.toBe(digest.ts);
    expect(alertsIn()).toHaveLength(1);
    expect(posts().filter((c) => c.status === 200)).toHaveLength(2);
  });
});
