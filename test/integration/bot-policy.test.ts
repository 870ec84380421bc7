// Refused vs DENIED (docs/lifecycle.md#refused-or-denied), freezes (docs/policy.md#freezes) and a card that cannot be
// posted (docs/lifecycle.md#the-card).
import { describe, expect, it } from 'vitest';
import {
  clockFrom,
  FRIDAY_AFTERNOON,
  USERS,
  WEDNESDAY,
  type BotEnv,
  type BotEnvOptions,
  useBotEnvs,
} from '../support/bot-env.js';

const bots = useBotEnvs();
const HOUR = 3_600_000;
let env: BotEnv | undefined;

async function started(opts: BotEnvOptions = {}): Promise<BotEnv> {
  env = await bots.start(opts);
  return env;
}

describe('refused: answered privately, nothing recorded, no card', () => {
  it.each([
    ['malformed input', 'scael streaming-dev/orders 3', USERS.alice, 'unknown command "scael"; did you mean `scale`?'],
    [
      'an unmanaged namespace',
      'scale kube-system/orders 3',
      USERS.alice,
      'the bot does not manage namespace kube-system',
    ],
    [
      'a target that does not exist',
      'scale streaming-dev/nope 3',
      USERS.alice,
      'there is no FlinkDeployment streaming-dev/nope',
    ],
    [
      'nothing to do',
      'scale streaming-dev/orders 2',
      USERS.alice,
      'already has parallelism 2 (spec.job.parallelism); nothing to do',
    ],
    [
      'a verb the target kind does not support',
      'upgrade sessionjob:streaming-prod/sessionjob-etl --image x:1 --reason r',
      USERS.alice,
      'session jobs have no image',
    ],
    [
      'a requester the namespace does not allow',
      'scale streaming-prod/orders 5 --reason "x"',
      USERS.bob,
      'you may not request scale in streaming-prod',
    ],
    ['a missing --reason where the policy demands one', 'scale orders 5', USERS.alice, 'say why with --reason'],
    ['an undo of an unknown operation', 'undo op-nosuchop1', USERS.alice, 'there is no operation op-nosuchop1 to undo'],
  ])('%s', async (_name, text, user, message) => {
    const e = await started();
    const sent = await e.command(text, user);
    expect(sent.status).toBe(200);
    const reply = await sent.reply();
    expect(reply.text).toContain(message);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(await e.operationCount()).toBe(0);
    expect(e.sim.messages(e.channel)).toEqual([]);
  });

  it('a namespace the bot may not read (403): says which RoleBinding is missing', async () => {
    const e = await started();
    bots.cluster.server.faults.forbidNamespace('streaming-dev');
    try {
      const reply = await (await e.command('restart streaming-dev/orders')).reply();
      expect(reply.text).toContain('the bot has no access to namespace streaming-dev (add a RoleBinding)');
    } finally {
      bots.cluster.server.faults.allowNamespace('streaming-dev');
    }
    expect(await e.operationCount()).toBe(0);
  });

  it('no policy file: every operation is refused, saying so', async () => {
    const e = await started({ noPolicy: true });
    const reply = await (await e.command('restart streaming-dev/orders')).reply();
    expect(reply.text).toContain('there is no policy file');
    expect(await e.operationCount()).toBe(0);
  });
});

describe('DENIED: recorded, with a card showing every reason', () => {
  it('a schedule deny (injected Friday afternoon) and a failed built-in check together', async () => {
    const e = await started({ now: clockFrom(FRIDAY_AFTERNOON) });
    const record = await e.request('scale streaming-prod/payments 6 --reason "more"', USERS.alice);
    expect(record.state).toBe('DENIED');
    const reasons = record.decision?.outcome === 'deny' ? record.decision.reasons : [];
    expect(reasons).toEqual([
      'No production changes on Friday afternoons (rule friday-freeze)',
      expect.stringContaining('spec.taskManager.replicas'),
    ]);
    expect(record.history.at(-1)).toMatchObject({
      type: 'state',
      name: 'DENIED',
      actor: 'system',
      detail: { reasons },
    });
    const card = JSON.stringify(await e.cardIn(record, 'DENIED'));
    for (const reason of reasons) expect(card).toContain(reason.slice(0, 40));
    expect(card).not.toContain('flink_ops_approve');
    expect(await e.jobState(record.id, 1)).toBe('unknown');
  });
});

describe('lock and unlock', () => {
  it('a lock denies new operations, tells threads in flight, and only the owner or an approver can unlock', async () => {
    const e = await started();
    const inFlight = await e.request('restart streaming-prod/orders --reason "before lock"', USERS.alice);
    const locked = await (
      await e.command('lock streaming-prod/orders --reason "quarter-end close"', USERS.alice)
    ).reply();
    expect(locked.text).toContain('streaming-prod/orders is frozen');
    expect(locked.body.response_type).toBe('ephemeral');
    expect((await e.record(inFlight.id)).history.at(-1)).toMatchObject({
      type: 'command',
      name: 'lock',
      actor: USERS.alice,
      detail: { reason: 'quarter-end close' },
    });

    const denied = await e.request('restart streaming-prod/orders --reason "during lock"', USERS.lead1);
    expect(denied.state).toBe('DENIED');
    expect(denied.decision?.outcome === 'deny' && denied.decision.reasons).toEqual([
      expect.stringContaining('"quarter-end close"; it must be unlocked first'),
    ]);

    const again = await (await e.command('lock streaming-prod/orders --reason "twice"', USERS.lead1)).reply();
    expect(again.text).toContain(`already frozen by <@${USERS.alice}>: quarter-end close`);
    const byOther = await (await e.command('unlock streaming-prod/orders', USERS.bob)).reply();
    expect(byOther.text).toContain(
      `you may not unlock streaming-prod/orders: only <@${USERS.alice}>, who froze it, or a member of leads can`,
    );
    expect(await e.bot.deps.freezes.get(inFlight.target)).toMatchObject({ by: USERS.alice });

    const byApprover = await (await e.command('unlock streaming-prod/orders', USERS.lead2)).reply();
    expect(byApprover.text).toContain('streaming-prod/orders is no longer frozen');
    expect(await e.bot.deps.freezes.get(inFlight.target)).toBeUndefined();
    expect((await e.record(inFlight.id)).history.at(-1)).toMatchObject({
      type: 'command',
      name: 'unlock',
      actor: USERS.lead2,
    });
    expect((await e.request('restart streaming-prod/orders --reason "after unlock"', USERS.alice)).state).toBe(
      'AWAITING_APPROVAL',
    );
  });

  it('a lock --for ends by itself: it denies until then, shows when it ends, and no longer blocks after', async () => {
    let skew = 0;
    const moving = clockFrom(WEDNESDAY);
    const e = await started({ now: () => moving() + skew });
    const locked = await (
      await e.command('lock streaming-prod/orders --reason "load test" --for 2h', USERS.alice)
    ).reply();
    const until = new Date(WEDNESDAY + 2 * HOUR).toISOString().slice(0, 13);
    expect(locked.text).toContain('streaming-prod/orders is frozen: every operation on it is denied until');
    expect(locked.text).toContain(until);
    const frozen = await e.bot.deps.freezes.get({
      kind: 'FlinkDeployment',
      namespace: 'streaming-prod',
      name: 'orders',
    });
    expect((frozen?.until ?? 0) - (frozen?.at ?? 0)).toBe(2 * HOUR);
    const locks = await (await e.command('locks', USERS.bob)).reply();
    expect(JSON.stringify(locks.body)).toContain('until');

    const denied = await e.request('restart streaming-prod/orders --reason "during lock"', USERS.alice);
    expect(denied.state).toBe('DENIED');
    expect(denied.decision?.outcome === 'deny' && denied.decision.reasons.join(' ')).toContain('load test');

    skew = 2 * HOUR + 1_000;
    expect(await e.bot.deps.freezes.list()).toEqual([]);
    const after = await e.request('restart streaming-prod/orders --reason "after the freeze ended"', USERS.alice);
    expect(after.state).toBe('AWAITING_APPROVAL');
    // An ended freeze is not in the way of a new one, and is not there to unlock.
    expect((await (await e.command('unlock streaming-prod/orders', USERS.alice)).reply()).text).toContain(
      'streaming-prod/orders is not frozen',
    );
    const relocked = await (await e.command('lock streaming-prod/orders --reason "again"', USERS.lead1)).reply();
    expect(relocked.text).toContain('every operation on it is denied until `unlock`');
  });

  it.each([
    ['a duration without a unit', '--for 2', '--for takes a duration like 30m, 2h or 3d'],
    ['more than 30 days', '--for 31d', '--for takes from 1m to 30d'],
  ])('refuses lock --for with %s, freezing nothing', async (_what, flag, message) => {
    const e = await started();
    const reply = await (await e.command(`lock streaming-prod/orders --reason "x" ${flag}`, USERS.alice)).reply();
    expect(reply.text).toContain(message);
    expect(await e.bot.deps.freezes.list()).toEqual([]);
  });

  it('refuses a lock by someone who may not request there', async () => {
    const e = await started();
    const reply = await (await e.command('lock streaming-prod/orders --reason "mine"', USERS.bob)).reply();
    expect(reply.text).toContain('you may not lock streaming-prod/orders');
    expect(await e.bot.deps.freezes.list()).toEqual([]);
  });
});

describe('the card cannot be posted', () => {
  it.each([
    ['not_in_channel', { botMember: false }],
    ['channel_not_found', { botMember: false, is_private: true }],
  ])('%s: CANCELLED by the system, nothing enqueued, the requester told to /invite the bot', async (error, channel) => {
    const e = await started({ channel });
    const reply = await (await e.command('restart streaming-dev/orders', USERS.alice)).reply();
    expect(reply.text).toContain('/invite @flink-ops');
    const opId = /op-[a-z0-9]{6,12}/.exec(reply.text)?.[0] as string;
    const record = await e.record(opId);
    expect(record.state).toBe('CANCELLED');
    expect(record.history.at(-1)).toMatchObject({
      name: 'CANCELLED',
      actor: 'system',
      detail: { from: 'ACCEPTED', reason: expect.stringContaining(error) },
    });
    expect(await e.jobState(opId, 1)).toBe('unknown');
  });

  it('any other Slack error: CANCELLED with why, and the requester told so', async () => {
    const e = await started();
    e.sim.faults.failNext('chat.postMessage', 'fatal_error');
    const reply = await (await e.command('restart streaming-dev/orders', USERS.alice)).reply();
    const opId = /op-[a-z0-9]{6,12}/.exec(reply.text)?.[0] as string;
    expect(reply.text).toContain(
      `${opId} was cancelled: the card could not be posted (fatal_error). Nothing was changed`,
    );
    expect(await e.record(opId)).toMatchObject({ state: 'CANCELLED' });
    expect(await e.jobState(opId, 1)).toBe('unknown');
  });
});
