// The policy's hold on `config` through signed slash commands and the simulated Slack and cluster
// (docs/policy.md#state-directories, docs/policy.md#memory-keys): keys that move state need an exact name, memory sizes
// meet `limits`.
import { describe, expect, it } from 'vitest';
import { testPolicy, USERS, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

function withConfig(config: { allow: string[]; deny?: string[] }, limits?: Record<string, unknown>) {
  return (channel: string) => {
    const policy = testPolicy(channel);
    return {
      ...policy,
      config: { deny: ['high-availability*', 'kubernetes.operator.*'], ...config },
      ...(limits ? { limits } : {}),
    };
  };
}

const checkOf = (
  record: { decision?: { checks: { name: string; outcome: string; message: string }[] } },
  name: string,
) => record.decision?.checks.find((c) => c.name === name);

describe('keys that move state', () => {
  it('admitted only by a glob: refused privately naming the key; nothing recorded', async () => {
    const e = await bots.start();
    for (const key of ['execution.checkpointing.dir', 'execution.checkpointing.savepoint-dir']) {
      const reply = await (
        await e.command(`config streaming-dev/orders set ${key}=s3://someone-else/state`, USERS.alice)
      ).reply();
      expect(reply.text).toContain(
        `${key} moves where the job's state is kept (checkpoints, savepoints, HA metadata or the restore path), so the policy must name it exactly in config.allow; a glob does not admit it`,
      );
      expect(reply.text).toContain('nothing was recorded');
    }
    expect(await e.operationCount()).toBe(0);
  });

  it('named exactly in config.allow: admitted', async () => {
    const key = 'execution.checkpointing.savepoint-dir';
    const e = await bots.start({ policy: withConfig({ allow: ['execution.checkpointing.*', key] }) });
    const record = await e.request(
      `config streaming-dev/orders set ${key}=s3://flink-state/dev/orders/sp2`,
      USERS.alice,
    );
    expect(checkOf(record, 'config-keys')).toMatchObject({ outcome: 'pass' });
    expect(record.plan?.diff).toEqual([
      { path: `spec.flinkConfiguration.${key}`, before: null, after: 's3://flink-state/dev/orders/sp2' },
    ]);
  });
});

describe('memory keys against limits', () => {
  const policy = withConfig(
    { allow: ['taskmanager.memory.*', 'jobmanager.memory.*'] },
    { taskManagerMemory: '16g', jobManagerMemory: '4g' },
  );

  it('a size above its role’s ceiling: DENIED, the card naming the limit', async () => {
    const e = await bots.start({ policy });
    const record = await e.request(
      'config streaming-dev/orders set taskmanager.memory.flink.size=64g jobmanager.memory.heap.size=8g',
      USERS.alice,
    );
    expect(record.state).toBe('DENIED');
    const reasons = record.decision?.outcome === 'deny' ? record.decision.reasons : [];
    expect(reasons).toEqual([
      'taskmanager.memory.flink.size 64g is above the policy limit limits.taskManagerMemory = 16g; jobmanager.memory.heap.size 8g is above the policy limit limits.jobManagerMemory = 4g',
    ]);
    expect(JSON.stringify(await e.cardIn(record, 'DENIED'))).toContain('limits.taskManagerMemory = 16g');
  });

  it('a memory limit factor that lets the container grow above the ceiling: DENIED', async () => {
    const e = await bots.start({
      policy: withConfig({ allow: ['kubernetes.taskmanager.memory.limit-factor'] }, { taskManagerMemory: '16g' }),
    });
    // streaming-dev/orders asks for 4096m per TaskManager: a factor of 8 lets each container use 32g.
    const record = await e.request(
      'config streaming-dev/orders set kubernetes.taskmanager.memory.limit-factor=8',
      USERS.alice,
    );
    expect(record.state).toBe('DENIED');
    expect(checkOf(record, 'limits')?.message).toBe(
      'kubernetes.taskmanager.memory.limit-factor 8 lets the taskManager container grow to 32g, above the policy limit limits.taskManagerMemory = 16g',
    );
    const within = await e.request(
      'config streaming-dev/orders set kubernetes.taskmanager.memory.limit-factor=2',
      USERS.alice,
    );
    expect(checkOf(within, 'limits')).toMatchObject({ outcome: 'pass' });
  });

  it('a size within it passes the limits check; a value that is no size is DENIED', async () => {
    const e = await bots.start({ policy });
    const within = await e.request('config streaming-dev/orders set taskmanager.memory.managed.size=2g', USERS.alice);
    expect(within.state).not.toBe('DENIED');
    expect(checkOf(within, 'limits')).toEqual({
      name: 'limits',
      outcome: 'pass',
      message: 'taskmanager.memory.managed.size 2g is within limits.taskManagerMemory = 16g',
    });
    const garbage = await e.request(
      'config streaming-dev/orders set taskmanager.memory.task.heap.size=lots',
      USERS.alice,
    );
    expect(garbage.state).toBe('DENIED');
    expect(checkOf(garbage, 'limits')?.message).toContain(
      'taskmanager.memory.task.heap.size "lots" is not a memory size',
    );
  });
});
