// The audit trail end to end (docs/audit.md): a run of operations through the real Bolt app and worker writes an
// event for every transition, click refusal, freeze and policy load; two real `serve --role bot` processes deliver
// them to a real HTTP receiver, which checks every signature; the delivering one is SIGKILLed mid-POST and the other
// takes over after LEASE_TTL, with no gap in seq (duplicates with the same ids).
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { AuditEvent } from '../../src/domain/kit/audit/event.js';
import { verifyChain } from '../../src/domain/kit/audit/verify.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { REVIEW_BLOCK_ID } from '../../src/slack/blocks/break-glass.js';
import { RedisAuditLog } from '../../src/store/audit-log.js';
import { startAuditReceiver, type AuditReceiver } from '../support/audit-receiver.js';
import { SECRET, testPolicy, TOKEN, USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { spawnBot } from '../support/bot-process.js';
import { eventually } from '../support/poll.js';

const HOOK_SECRET = 'audit-receiver-secret';
const bots = useBotEnvs();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const policy = (channel: string) => ({
  ...testPolicy(channel),
  breakGlass: { groups: ['oncall'], environments: ['production'], reviewWithin: '1h' },
});

/** A `serve --role bot` process delivering to the receiver, on the env's Redis, Slack and cluster. */
async function deliverer(env: BotEnv, receiver: AuditReceiver): Promise<ChildProcess> {
  const { child } = await spawnBot({
    PORT: '0',
    LEASE_TTL: '2s',
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: env.sim.apiUrl,
    REDIS_URL: env.config.redis.url,
    REDIS_PREFIX: env.config.redis.prefix,
    KUBECONFIG: env.config.kubeconfig ?? '',
    POLICY_FILE: env.config.policyFile,
    AUDIT_WEBHOOK_URL: receiver.url,
    AUDIT_WEBHOOK_SECRET: HOOK_SECRET,
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

const STATE_ACTION: Record<string, string> = {
  ACCEPTED: 'requested',
  AWAITING_APPROVAL: 'awaiting_approval',
  TIMED_OUT: 'timed_out',
};
const actionOfState = (state: string) => STATE_ACTION[state] ?? state.toLowerCase();

/** The received events, one per seq (a duplicate must be the same event), in seq order. */
function deduplicated(receiver: AuditReceiver): AuditEvent[] {
  const bySeq = new Map<number, string>();
  for (const got of receiver.received) {
    const seen = bySeq.get(got.seq);
    if (seen !== undefined) expect(got.body).toBe(seen);
    bySeq.set(got.seq, got.body);
  }
  return [...bySeq.keys()].sort((a, b) => a - b).map((seq) => JSON.parse(bySeq.get(seq) as string) as AuditEvent);
}

// A command's ack comes before its work (docs/operating.md#under-a-burst): each step waits for the answer, so the
// next one sees its effect (the unlock before the break-glass request, the valid policy read before it breaks).
// The killed process may have died inside the channel's posting turn, which lapses after 12 s
// (docs/lifecycle.md#delivery-and-pacing): the cards after the kill are given that and more.
const CARD_AFTER_KILL_MS = 30_000;

async function runOperations(env: BotEnv, kill: () => Promise<void>): Promise<OperationRecord[]> {
  const approved = await env.request('scale streaming-prod/orders 6 --reason "backlog"', USERS.alice);
  await (await env.click('approve', approved, USERS.lead1)).reply();
  const rejected = await env.request('restart streaming-prod/payments --reason "stuck"', USERS.alice);
  expect((await (await env.click('approve', rejected, USERS.bob)).reply()).text).toContain(rejected.id);
  await (await env.click('reject', rejected, USERS.lead1)).reply();
  await kill();
  await (await env.command('lock streaming-prod/fraud-detection --reason "incident INC-7"', USERS.alice)).reply();
  const denied = await env.request(
    'scale streaming-prod/fraud-detection 4 --reason "more"',
    USERS.alice,
    CARD_AFTER_KILL_MS,
  );
  expect(denied.state).toBe('DENIED');
  await (await env.command('unlock streaming-prod/fraud-detection', USERS.alice)).reply();
  const glass = await env.request(
    'scale streaming-prod/fraud-detection 4 --break-glass --reason "INC-7: consumer lag"',
    USERS.alice,
    CARD_AFTER_KILL_MS,
  );
  expect(glass.state).toBe('QUEUED');
  await env.waitForState(approved.id, ['COMPLETED'], 60_000);
  const ended = await env.waitForState(glass.id, ['COMPLETED'], 60_000);
  await (await env.click('review', ended, USERS.lead1, { blockId: REVIEW_BLOCK_ID })).reply();
  // A reload: a changed valid file, then a broken one (the valid one stays in force), each read at the next command.
  const file = env.config.policyFile;
  const changed: Record<string, unknown> = policy(env.channel);
  await writeFile(file, stringify({ ...changed, approval: { ...(changed.approval as object), ttl: '45m' } }));
  await (await env.command('status streaming-prod/orders', USERS.alice)).reply();
  await writeFile(file, `${await readFile(file, 'utf8')}\n  broken: [`);
  await (await env.command('status streaming-prod/orders', USERS.alice)).reply();
  return Promise.all([approved, rejected, denied, glass].map((r) => env.record(r.id)));
}

describe('the audit trail of a run of operations', () => {
  it('has every transition; the receiver gets every event signed, without a gap, across a SIGKILL of the deliverer', async () => {
    const env = await bots.start({ policy });
    // Each answer held 100 ms, so the kill lands while a POST waits for its answer.
    const receiver = await startAuditReceiver(HOOK_SECRET, () => new Promise((r) => setTimeout(() => r(200), 100)));
    cleanups.push(() => receiver.close());
    const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 600_000 });
    cleanups.push(() => worker.close());
    const first = await deliverer(env, receiver);
    await eventually('the first process delivering', () => receiver.received.length > 0, { timeoutMs: 30_000 });
    await deliverer(env, receiver);
    let killedAtCount = 0;
    const records = await runOperations(env, async () => {
      await eventually('a POST waiting for its answer', () => receiver.inFlight > 0 && receiver.received.length >= 5, {
        timeoutMs: 30_000,
        intervalMs: 5,
      });
      first.kill('SIGKILL');
      killedAtCount = receiver.received.length;
    });

    // A policy read is appended after the command that caused it was answered.
    const log = new RedisAuditLog(env.redis.redis, { prefix: env.redis.prefix });
    await eventually('the broken policy file in the chain', async () =>
      (await log.readAfter(0, 10_000)).some((e) => e.action === 'policy_rejected'),
    );
    const head = await log.head();
    await eventually('every event delivered', () => new Set(receiver.received.map((r) => r.seq)).size === head.seq, {
      timeoutMs: 60_000,
    });
    expect(receiver.received.every((r) => r.genuine)).toBe(true);
    expect(receiver.received.every((r) => r.id === (JSON.parse(r.body) as AuditEvent).id)).toBe(true);
    // The event in flight at the kill came again from the other process: a duplicate, the same id.
    expect(receiver.received.length).toBeGreaterThan(head.seq);
    expect(killedAtCount).toBeLessThan(head.seq);
    const chain = deduplicated(receiver);
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: head.seq }, (_x, i) => i + 1));
    expect(verifyChain(chain.map((e) => JSON.stringify(e)))).toMatchObject({ ok: true, count: head.seq });

    // Every state transition of every operation, in its order, and the events of no transition.
    for (const record of records) {
      const states = record.history.filter((e) => e.type === 'state').map((e) => actionOfState(e.name));
      const audited = chain.filter((e) => e.op?.id === record.id && states.includes(e.action)).map((e) => e.action);
      expect(audited).toEqual(states);
    }
    const actions = new Set(chain.map((e) => e.action));
    for (const action of ['approved', 'approval_refused', 'frozen', 'unfrozen', 'break_glass', 'reviewed'])
      expect(actions).toContain(action);
    expect(chain.filter((e) => e.action === 'policy_loaded').length).toBeGreaterThanOrEqual(1);
    expect(chain.filter((e) => e.action === 'policy_rejected').length).toBeGreaterThanOrEqual(1);
    const refused = chain.find((e) => e.action === 'approval_refused');
    expect(refused).toMatchObject({ actor: { user: USERS.bob }, op: { id: records[1]?.id } });
  });
});
