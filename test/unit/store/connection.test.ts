// The one Redis connection factory (store/connection.ts): which client and options each mode gets, the
// duplicates, log fields without passwords, and the replica WAIT after the writes that decide a submission.
import { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, type RedisSettings } from '../../../src/config.js';
import type { EntryInput } from '../../../src/domain/engines/operation.js';
import type { OperationState } from '../../../src/domain/model/lifecycle.js';
import {
  connectionPlan,
  createConnection,
  blockingReadDeadline,
  duplicateConnection,
  redisLogFields,
  replicaWait,
  NO_REPLICA_RECHECK_MS,
  REPLICA_WAIT_MS,
  type RedisConnection,
  type ReplicaWait,
} from '../../../src/store/connection.js';
import { storeKeys } from '../../../src/store/keys.js';
import { OperationStore } from '../../../src/store/operations.js';
import { redisForTest } from '../../support/redis.js';

function settings(env: Record<string, string>): RedisSettings {
  const result = loadConfig(env, 'worker');
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config.redis;
}

const standalone = settings({ REDIS_URL: 'redis://app:hunter2@redis.example:6380/2' });
const sentinel = settings({
  REDIS_URL: 'rediss://app:hunter2@ignored:6379/3',
  REDIS_SENTINELS: 's-0:26379,s-1:26380',
  REDIS_SENTINEL_MASTER: 'flink',
});
const cluster = settings({ REDIS_URL: 'rediss://app:hunter2@ignored:6379', REDIS_CLUSTER_NODES: 'c-0:7000,c-1:7001' });
const plainCluster = settings({ REDIS_URL: 'redis://:hunter2@ignored', REDIS_CLUSTER_NODES: 'c-0:7000' });

const opened: RedisConnection[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.disconnect();
});
function keep<T extends RedisConnection>(c: T): T {
  opened.push(c);
  return c;
}

describe('connectionPlan', () => {
  it('standalone: the URL as given; workers wait out reconnects, producers fail after two', () => {
    expect(connectionPlan(standalone, 'worker')).toEqual({
      kind: 'standalone',
      url: standalone.url,
      options: { maxRetriesPerRequest: null },
    });
    expect(connectionPlan(standalone, 'producer', { lazyConnect: true })).toEqual({
      kind: 'standalone',
      url: standalone.url,
      options: { lazyConnect: true, maxRetriesPerRequest: 2 },
    });
  });

  it("Sentinel: ioredis' Sentinel client with REDIS_URL's user, password, database and TLS", () => {
    const plan = connectionPlan(sentinel, 'worker');
    expect(plan.kind).toBe('sentinel');
    if (plan.kind !== 'sentinel') return;
    expect(plan.options).toMatchObject({
      sentinels: [
        { host: 's-0', port: 26379 },
        { host: 's-1', port: 26380 },
      ],
      name: 'flink',
      role: 'master',
      username: 'app',
      password: 'hunter2',
      db: 3,
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
      failoverDetector: true,
      maxRetriesPerRequest: null,
    });
    // The sentinels are asked without the data password.
    expect(plan.options.sentinelPassword).toBeUndefined();
    const reconnect = plan.options.reconnectOnError as (error: Error) => unknown;
    expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnect(new Error('ERR other'))).toBe(false);
  });

  it("Cluster: ioredis' Cluster with the seeds, per-node credentials and TLS, every command on the slot's primary", () => {
    const plan = connectionPlan(cluster, 'worker', { lazyConnect: true });
    expect(plan.kind).toBe('cluster');
    if (plan.kind !== 'cluster') return;
    expect(plan.nodes).toEqual([
      { host: 'c-0', port: 7000 },
      { host: 'c-1', port: 7001 },
    ]);
    expect(plan.options).toMatchObject({
      lazyConnect: true,
      scaleReads: 'master',
      redisOptions: { username: 'app', password: 'hunter2', tls: {}, maxRetriesPerRequest: null },
    });
    expect(plan.options.redisOptions).not.toHaveProperty('lazyConnect');
    expect(typeof plan.options.dnsLookup).toBe('function');
    const plain = connectionPlan(plainCluster, 'producer');
    expect(plain.kind === 'cluster' && plain.options.redisOptions).toEqual({
      password: 'hunter2',
      maxRetriesPerRequest: 2,
    });
    expect(plain.kind === 'cluster' && plain.options.dnsLookup).toBeUndefined();
  });
});

describe('createConnection and duplicateConnection', () => {
  it('makes the client class of each mode (without connecting)', () => {
    const a = keep(createConnection(standalone, 'producer', { lazyConnect: true }));
    expect(a).toBeInstanceOf(Redis);
    expect((a as Redis).options).toMatchObject({
      host: 'redis.example',
      port: 6380,
      db: 2,
      username: 'app',
      maxRetriesPerRequest: 2,
    });

    const s = keep(createConnection(sentinel, 'worker', { lazyConnect: true }));
    expect(s).toBeInstanceOf(Redis);
    expect((s as Redis).options).toMatchObject({ name: 'flink', db: 3, maxRetriesPerRequest: null });

    const c = keep(createConnection(cluster, 'worker', { lazyConnect: true }));
    expect(c).toBeInstanceOf(Cluster);
    expect((c as Cluster).options.redisOptions).toMatchObject({ password: 'hunter2', maxRetriesPerRequest: null });
    expect(c.status).toBe('wait');
  });

  it('duplicates a connection for blocking reads: same mode and server, retries as asked', () => {
    const c = keep(createConnection(cluster, 'producer', { lazyConnect: true })) as Cluster;
    const d = keep(duplicateConnection(c, 'worker'));
    expect(d).toBeInstanceOf(Cluster);
    expect((d as Cluster).options.redisOptions).toMatchObject({
      username: 'app',
      password: 'hunter2',
      tls: {},
      maxRetriesPerRequest: null,
    });
    expect(c.options.redisOptions?.maxRetriesPerRequest).toBe(2);

    const s = keep(createConnection(sentinel, 'producer', { lazyConnect: true }));
    const t = keep(duplicateConnection(s, 'worker'));
    expect(t).toBeInstanceOf(Redis);
    expect((t as Redis).options).toMatchObject({ name: 'flink', password: 'hunter2', maxRetriesPerRequest: null });
  });

  it('gives a blocking-read duplicate a deadline of BLOCK plus the grace, in every mode', () => {
    const deadline = blockingReadDeadline(5_000);
    const s = keep(
      duplicateConnection(keep(createConnection(sentinel, 'producer', { lazyConnect: true })), 'worker', deadline),
    );
    expect((s as Redis).options).toMatchObject({ blockingTimeout: 5_000, blockingTimeoutGrace: 5_000 });
    const c = keep(
      duplicateConnection(keep(createConnection(cluster, 'producer', { lazyConnect: true })), 'worker', deadline),
    );
    expect((c as Cluster).options.redisOptions).toMatchObject({
      blockingTimeoutGrace: 5_000,
      maxRetriesPerRequest: null,
    });
  });

  it('describes where Redis is for logs without any password', () => {
    const all = [standalone, sentinel, cluster].map(redisLogFields);
    expect(all).toEqual([
      { redis: 'redis://app:***@redis.example:6380/2' },
      { redis: 'sentinel', sentinels: 's-0:26379,s-1:26380', master: 'flink' },
      { redis: 'cluster', nodes: 'c-0:7000,c-1:7001' },
    ]);
    expect(JSON.stringify(all)).not.toContain('hunter2');
  });
});

/** A connection that records what is sent (per pipeline); INFO replication and the WAIT reply are given. */
function fakeConnection(opts: { replicas?: number; acked?: number; waitError?: Error }) {
  const sent: unknown[][] = [];
  const info = `# Replication\r\nrole:master\r\nconnected_slaves:${opts.replicas ?? 0}\r\n`;
  const connection = {
    pipeline() {
      const replies: [Error | null, unknown][] = [];
      const chain = {
        exists: (key: string) => (sent.push(['exists', key]), replies.push([null, 1]), chain),
        wait: (n: number, ms: number) => (
          sent.push(['wait', n, ms]),
          replies.push([opts.waitError ?? null, opts.acked ?? 1]),
          chain
        ),
        info: (section: string) => (sent.push(['info', section]), replies.push([null, info]), chain),
        exec: async () => replies,
      };
      return chain;
    },
  };
  return {
    connection: connection as unknown as RedisConnection,
    sent,
    infos: () => sent.filter((c) => c[0] === 'info').length,
  };
}

describe('replicaWait', () => {
  it('Sentinel and Cluster: WAIT 1 pipelined behind a read of the written slot', async () => {
    for (const mode of [sentinel, cluster]) {
      const fake = fakeConnection({ acked: 1 });
      const onShort = vi.fn();
      await replicaWait(fake.connection, mode, { onShort }).afterWrite('{fco}:op:op-1');
      expect(fake.sent).toEqual([
        ['exists', '{fco}:op:op-1'],
        ['wait', 1, REPLICA_WAIT_MS],
      ]);
      expect(onShort).not.toHaveBeenCalled();
    }
  });

  it('reports a WAIT that a connected replica did not acknowledge, or that failed, without throwing', async () => {
    const short = fakeConnection({ acked: 0, replicas: 1 });
    const onShort = vi.fn();
    await replicaWait(short.connection, cluster, { onShort, timeoutMs: 50 }).afterWrite('{fco}:op:op-1');
    expect(onShort).toHaveBeenCalledWith({ acked: 0, timeoutMs: 50 });
    const failing = fakeConnection({ waitError: new Error('CLUSTERDOWN') });
    const onError = vi.fn();
    await replicaWait(failing.connection, sentinel, { onShort: onError }).afterWrite('{fco}:op:op-1');
    expect(onError).toHaveBeenCalledWith({ error: expect.objectContaining({ message: 'CLUSTERDOWN' }) });
  });

  it('a primary left without replicas (after a failover) is not waited on again until the re-check', async () => {
    let clock = 1_000_000;
    const alone = fakeConnection({ acked: 0, replicas: 0 });
    const onShort = vi.fn();
    const wait = replicaWait(alone.connection, sentinel, { onShort, now: () => clock });
    await wait.afterWrite('{fco}:op:a');
    expect(alone.sent.filter((c) => c[0] === 'wait')).toHaveLength(1);
    expect(onShort).not.toHaveBeenCalled();
    await wait.afterWrite('{fco}:op:a');
    expect(alone.sent.filter((c) => c[0] === 'wait')).toHaveLength(1);
    clock += NO_REPLICA_RECHECK_MS;
    await wait.afterWrite('{fco}:op:a');
    expect(alone.sent.filter((c) => c[0] === 'wait')).toHaveLength(2);
  });

  it('standalone: asks INFO replication first, and waits only when a replica is connected', async () => {
    const alone = fakeConnection({ replicas: 0 });
    const waitAlone = replicaWait(alone.connection, standalone, { onShort: vi.fn() });
    await waitAlone.afterWrite('{fco}:op:a');
    await waitAlone.afterWrite('{fco}:op:a');
    expect(alone.infos()).toBe(1);
    expect(alone.sent.filter((c) => c[0] === 'wait')).toEqual([]);

    const replicated = fakeConnection({ replicas: 1 });
    await replicaWait(replicated.connection, standalone, { onShort: vi.fn() }).afterWrite('{fco}:op:b');
    expect(replicated.sent).toContainEqual(['wait', 1, REPLICA_WAIT_MS]);
  });

  it('against the local standalone Redis (no replica): no WAIT, no warning', async () => {
    const t = await redisForTest('wait');
    try {
      const onShort = vi.fn();
      const wait = replicaWait(t.redis, { ...standalone, url: t.url, prefix: t.prefix }, { onShort });
      const started = Date.now();
      await wait.afterWrite(`{${t.prefix}}:op:x`);
      expect(Date.now() - started).toBeLessThan(REPLICA_WAIT_MS);
      expect(onShort).not.toHaveBeenCalled();
    } finally {
      await t.cleanup();
    }
  });
});

describe('OperationStore and the replica wait', () => {
  it('waits after the commits to SUBMITTING and SUBMITTED, and after no other', async () => {
    const t = await redisForTest('wait-store');
    try {
      const calls: string[] = [];
      const replicas: ReplicaWait = { afterWrite: async (key) => void calls.push(key) };
      const store = new OperationStore(t.redis, { prefix: t.prefix, replicas });
      const target = { kind: 'FlinkDeployment', namespace: 'ns', name: 'orders' } as const;
      const created = await store.create(
        {
          id: 'op-waitab1',
          kind: 'restart',
          intent: { kind: 'restart', target, incidentChannels: [] },
          target,
          requester: 'U1',
          channel: 'C1',
          incidentChannels: [],
        },
        'U1',
      );
      expect(created.ok).toBe(true);
      const to = (name: OperationState, role: 'bot' | 'worker'): EntryInput => ({
        type: 'state',
        name,
        actor: role,
        role,
      });
      const seen: Record<string, number> = {};
      for (const [state, role] of [
        ['QUEUED', 'bot'],
        ['SUBMITTING', 'worker'],
        ['SUBMITTED', 'worker'],
        ['COMPLETED', 'worker'],
      ] as const) {
        const result = await store.apply('op-waitab1', () => ({ entries: [to(state, role)] }));
        expect(result.ok, state).toBe(true);
        seen[state] = calls.length;
      }
      expect(seen).toEqual({ QUEUED: 0, SUBMITTING: 1, SUBMITTED: 2, COMPLETED: 2 });
      const key = storeKeys(t.prefix).operation('op-waitab1');
      expect(calls).toEqual([key, key]);
    } finally {
      await t.cleanup();
    }
  });
});
