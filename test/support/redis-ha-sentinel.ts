// Redis Sentinel for tests: a primary and a replica watched by 3 sentinels (quorum 2), real processes on loopback.
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './redis-server.js';
import { eventually } from './poll.js';
import {
  closedPort,
  dataArgs,
  DOWN_AFTER_MS,
  HOST,
  info,
  killAndAwaitPromotion,
  probe,
  PROBE_POLL,
  SENTINEL_MASTER,
  startAnswering,
  startProcess,
  stopAll,
  stopper,
  waitAnswers,
  type HaRedis,
  type RedisProcess,
} from './redis-process.js';

/** Sentinel: `primary` + `replica` + 3 sentinels (quorum 2) watching master `mymaster`. */
export async function startSentinelRedis(): Promise<HaRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-sentinel-'));
  const processes: RedisProcess[] = [];
  try {
    const primary = await startAnswering('primary', dir, 1, ([port]) => dataArgs(port as number, ['--dir', dir]));
    processes.push(primary);
    const primaryPort = primary.port;
    const replica = await startAnswering('replica', dir, 1, ([port]) =>
      dataArgs(port as number, ['--dir', dir, '--replicaof', HOST, String(primaryPort)]),
    );
    processes.push(replica);
    const replicaPort = replica.port;
    await eventually(
      'the replica to sync',
      async () => info(await probe(replicaPort, (r) => r.info('replication'))).master_link_status === 'up',
      PROBE_POLL,
    );
    const sentinels: RedisProcess[] = [];
    // Each sentinel is told its own id and the others' (and the replica) up front, instead of discovering them
    // through hello messages every 2 s: the topology is ready for a failover in well under a second.
    const ids = [0, 1, 2].map(() => randomBytes(20).toString('hex'));
    const ports = [await freePort(), await freePort(), await freePort()];
    for (let i = 0; i < 3; i++) {
      const port = ports[i] as number;
      const file = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel myid ${ids[i]}`,
          `sentinel monitor ${SENTINEL_MASTER} ${HOST} ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 4000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
          `sentinel known-replica ${SENTINEL_MASTER} ${HOST} ${replicaPort}`,
          ...ports.flatMap((other, j) =>
            j === i ? [] : [`sentinel known-sentinel ${SENTINEL_MASTER} ${HOST} ${other} ${ids[j]}`],
          ),
          '',
        ].join('\n'),
      );
      const s = startProcess(`sentinel-${i + 1}`, port, [file, '--sentinel'], dir);
      sentinels.push(s);
      processes.push(s);
    }
    await Promise.all(sentinels.map((s) => waitAnswers(s)));
    // Ready for a failover once every sentinel knows the replica and the two other sentinels.
    await eventually(
      'the sentinels to discover the replica and each other',
      async () => {
        for (const s of sentinels) {
          const ok = await probe(s.port, async (r) => {
            const replicas = (await r.call('SENTINEL', 'REPLICAS', SENTINEL_MASTER)) as string[][];
            const others = (await r.call('SENTINEL', 'SENTINELS', SENTINEL_MASTER)) as string[][];
            return replicas.length === 1 && others.length === 2;
          });
          if (!ok) return false;
        }
        return true;
      },
      { ...PROBE_POLL, timeoutMs: 20_000 },
    );
    const dataNodes = [primary, replica];
    const masterAddr = async (s: RedisProcess): Promise<string> => {
      const [host, port] = (await probe(s.port, (r) =>
        r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER),
      )) as [string, string];
      return `${host}:${port}`;
    };
    const current = async (): Promise<RedisProcess> => {
      const address = await masterAddr(sentinels.find((s) => s.alive()) as RedisProcess);
      const node = dataNodes.find((n) => n.address === address);
      if (!node) throw new Error(`the sentinels name ${address}, not one of ours`);
      return node;
    };
    const unreachable = await closedPort();
    const clients: Redis[] = [];
    return {
      kind: 'sentinel',
      nodes: processes,
      env: () => ({
        REDIS_URL: `redis://${HOST}:${unreachable}`,
        REDIS_SENTINELS: sentinels.map((s) => s.address).join(','),
        REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
      }),
      client() {
        const c = new Redis({
          sentinels: sentinels.map((s) => ({ host: HOST, port: s.port })),
          name: SENTINEL_MASTER,
          maxRetriesPerRequest: null,
        });
        c.on('error', () => undefined);
        clients.push(c);
        return c;
      },
      primaryFor: () => current(),
      async killPrimary(_prefix, timeoutMs = 20_000) {
        const killed = await current();
        const promoted = dataNodes.find((n) => n !== killed) as RedisProcess;
        const promotedWhen = async (): Promise<boolean> => {
          for (const s of sentinels) if ((await masterAddr(s)) !== promoted.address) return false;
          return info(await probe(promoted.port, (r) => r.info('replication'))).role === 'master';
        };
        return killAndAwaitPromotion(
          killed,
          promoted,
          promotedWhen,
          `the sentinels to promote ${promoted.name} (${promoted.address})`,
          timeoutMs,
        );
      },
      stop: stopper(clients, processes, dir),
    };
  } catch (error) {
    await stopAll(processes, dir);
    throw error;
  }
}
