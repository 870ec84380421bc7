// Redis Cluster for tests: 3 primaries with one replica each, real processes on loopback, made with redis-cli.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, type Redis } from 'ioredis';
import { eventually } from './poll.js';
import {
  allStarted,
  closedPort,
  dataArgs,
  DOWN_AFTER_MS,
  HOST,
  info,
  killAndAwaitPromotion,
  probe,
  PROBE_POLL,
  startAnswering,
  stopAll,
  stopper,
  type HaRedis,
  type RedisProcess,
} from './redis-process.js';

interface ClusterNodeLine {
  id: string;
  address: string;
  flags: string[];
  master: string;
  slots: [number, number][];
}

function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', addr = '', flags = '', master = '', , , , , ...slots] = line.trim().split(' ');
      return {
        id,
        address: addr.split('@')[0] as string,
        flags: flags.split(','),
        master,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-').map(Number) as [number, number | undefined];
            return [a, b ?? a] as [number, number];
          }),
      };
    });
}

/** Cluster: 6 nodes, `redis-cli --cluster create … --cluster-replicas 1`: 3 primaries, each with one replica. */
export async function startClusterRedis(): Promise<HaRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const processes: RedisProcess[] = [];
  try {
    const node = (i: number) =>
      startAnswering(`node-${i + 1}`, dir, 2, ([port, bus]) =>
        dataArgs(port as number, [
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          // The bus port on a free port of its own (the default, port + 10000, may be taken).
          '--cluster-port',
          String(bus),
          '--cluster-node-timeout',
          String(DOWN_AFTER_MS),
          // A replica that lost its primary a moment ago may always take over (the test kills it on purpose).
          '--cluster-replica-validity-factor',
          '0',
        ]),
      );
    await allStarted([0, 1, 2, 3, 4, 5].map(node), processes);
    const created = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const cli = spawn(
        'redis-cli',
        ['--cluster', 'create', ...processes.map((p) => p.address), '--cluster-replicas', '1', '--cluster-yes'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      cli.stdout.on('data', (c: Buffer) => (out += c.toString()));
      cli.stderr.on('data', (c: Buffer) => (out += c.toString()));
      cli.once('error', (error) => resolve({ code: -1, out: String(error) }));
      cli.once('exit', (code) => resolve({ code, out }));
    });
    if (created.code !== 0) throw new Error(`redis-cli --cluster create failed (${created.code}):\n${created.out}`);
    // Ready once every node sees the whole cluster as ok and every replica is in sync with its primary.
    await eventually(
      'the cluster to be ok on every node with every replica in sync',
      async () => {
        for (const p of processes) {
          const state = await probe(p.port, async (r) => ({
            cluster: info(String(await r.call('CLUSTER', 'INFO'))),
            repl: info(await r.info('replication')),
          }));
          if (state.cluster.cluster_state !== 'ok' || state.cluster.cluster_known_nodes !== '6') return false;
          if (state.repl.role === 'slave' && state.repl.master_link_status !== 'up') return false;
        }
        return true;
      },
      { ...PROBE_POLL, timeoutMs: 30_000 },
    );
    const byAddress = (address: string) => processes.find((p) => p.address === address);
    const nodesSeenBy = async (p: RedisProcess) =>
      parseClusterNodes(String(await probe(p.port, (r) => r.call('CLUSTER', 'NODES'))));
    const slotOf = async (prefix: string): Promise<number> => {
      const alive = processes.find((p) => p.alive()) as RedisProcess;
      return Number(await probe(alive.port, (r) => r.call('CLUSTER', 'KEYSLOT', `{${prefix}}`)));
    };
    const ownerSeenBy = async (p: RedisProcess, slot: number): Promise<ClusterNodeLine | undefined> =>
      (await nodesSeenBy(p)).find(
        (n) =>
          n.flags.includes('master') && !n.flags.includes('fail') && n.slots.some(([a, b]) => a <= slot && slot <= b),
      );
    const primaryFor = async (prefix: string): Promise<RedisProcess> => {
      const slot = await slotOf(prefix);
      const alive = processes.find((p) => p.alive()) as RedisProcess;
      const owner = await ownerSeenBy(alive, slot);
      const node = owner && byAddress(owner.address);
      if (!node) throw new Error(`no node owns slot ${slot} of {${prefix}}`);
      return node;
    };
    const unreachable = await closedPort();
    const clients: Redis[] = [];
    return {
      kind: 'cluster',
      nodes: processes,
      env: () => ({
        REDIS_URL: `redis://${HOST}:${unreachable}`,
        REDIS_CLUSTER_NODES: processes.map((p) => p.address).join(','),
      }),
      client() {
        const c = new Cluster(
          processes.map((p) => ({ host: HOST, port: p.port })),
          {
            redisOptions: { maxRetriesPerRequest: null },
            retryDelayOnClusterDown: 200,
            retryDelayOnFailover: 200,
            maxRedirections: 50,
            clusterRetryStrategy: () => 200,
          },
        );
        c.on('error', () => undefined);
        // The stores take a Redis; a Cluster client answers the same commands (every key shares one slot).
        const asRedis = c as unknown as Redis;
        clients.push(asRedis);
        return asRedis;
      },
      primaryFor,
      async killPrimary(prefix, timeoutMs = 20_000) {
        const slot = await slotOf(prefix);
        const killed = await primaryFor(prefix);
        const all = await nodesSeenBy(killed);
        const killedId = all.find((n) => n.address === killed.address)?.id;
        const replicaLine = all.find((n) => n.master === killedId);
        const promoted = replicaLine && byAddress(replicaLine.address);
        if (!promoted) throw new Error(`${killed.name} has no replica: ${JSON.stringify(all)}`);
        // The replica is master of the slot in its own view and in every other live node's, and answers.
        const promotedWhen = async (): Promise<boolean> => {
          for (const p of processes.filter((n) => n.alive())) {
            if ((await ownerSeenBy(p, slot))?.address !== promoted.address) return false;
            if (info(String(await probe(p.port, (r) => r.call('CLUSTER', 'INFO')))).cluster_state !== 'ok')
              return false;
          }
          return info(await probe(promoted.port, (r) => r.info('replication'))).role === 'master';
        };
        return killAndAwaitPromotion(
          killed,
          promoted,
          promotedWhen,
          `${promoted.name} (${promoted.address}) to own slot ${slot} of {${prefix}}`,
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
