// Where `restore --from` may read (docs/policy.md#restore-sources), through signed Slack requests against the simulated
// cluster: the target's own state directories and savepoints, prefixes the policy names, and nothing else.
import { describe, expect, it } from 'vitest';
import { testPolicy, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';

const bots = useBotEnvs();
const OWN = 's3://flink-state/streaming-dev/orders';

/** The test policy, with a shared golden-state prefix for restores. */
const withAllowedFrom = (channel: string) => ({
  ...testPolicy(channel),
  restore: { allowedFrom: ['s3://shared-state/*/golden'] },
});

async function refused(e: BotEnv, from: string, message: string): Promise<void> {
  const sent = await e.command(`restore streaming-dev/orders --from ${from}`, USERS.alice);
  const reply = await sent.reply();
  expect(reply.text).toContain(message);
  expect(reply.body).toMatchObject({ response_type: 'ephemeral' });
  expect(await e.operationCount()).toBe(0);
  expect(e.sim.messages(e.channel)).toEqual([]);
}

describe('restore --from', () => {
  it.each([
    ['another namespace’s state', 's3://flink-state/streaming-prod/orders/savepoints/savepoint-1', 'is not one of'],
    ['another environment’s bucket', 's3://flink-state-us/streaming-dev/orders/savepoints/sp-1', 'is not one of'],
    ['a sibling that only shares a prefix of characters', `${OWN}/savepoints-other/sp-1`, 'is not one of'],
    [
      'a path that climbs out with ..',
      `${OWN}/savepoints/../../../streaming-prod/orders/savepoints/sp-1`,
      'may not contain "." or ".." path segments',
    ],
    ['a percent-encoded ..', `${OWN}/savepoints/%2E%2e/x`, 'may not contain "." or ".." path segments'],
  ])('refuses %s privately and records nothing', async (_what, from, message) => {
    await refused(await bots.start(), from, message);
  });

  it('takes the target’s own savepoint and checkpoint directories', async () => {
    const e = await bots.start();
    for (const from of [`${OWN}/savepoints/savepoint-1a2b`, `${OWN}/checkpoints/3f2a/chk-7`]) {
      const record = await e.request(`restore streaming-dev/orders --from ${from}`, USERS.alice);
      expect(record.decision?.checks).toContainEqual(
        expect.objectContaining({ name: 'restore-source', outcome: 'pass' }),
      );
      expect(JSON.stringify(record.plan)).toContain(`"initialSavepointPath":"${from}"`);
      await e.command(`cancel ${record.id}`, USERS.alice);
    }
  });

  it('takes a prefix the policy names in restore.allowedFrom (a * is one segment), and nothing beside it', async () => {
    const e = await bots.start({ policy: withAllowedFrom });
    const record = await e.request('restore streaming-dev/orders --from s3://shared-state/team-a/golden/sp-1');
    expect(JSON.stringify(record.plan)).toContain('s3://shared-state/team-a/golden/sp-1');
    await e.command(`cancel ${record.id}`, USERS.alice);
    const before = await e.operationCount();
    const sent = await e.command('restore streaming-dev/orders --from s3://shared-state/team-a/b/golden/sp-1');
    expect((await sent.reply()).text).toContain('restore.allowedFrom');
    expect(await e.operationCount()).toBe(before);
  });
});
