// What a `flink-chatops serve` process under test needs around it: a simulated cluster and Slack, a Redis prefix of
// its own and a policy file, started together and closed together.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimCluster, type Seed, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { startSimSlack, type SimSlack, type SimSlackOptions } from '@flink-chatops/sim/slack-api';
import { redisForTest, type TestRedis } from './redis.js';
import { POLICY_YAML } from './worker-env.js';

export interface ServeEnv {
  cluster: SimCluster;
  slack: SimSlack;
  redis: TestRedis;
  /** The policy file (worker-env's POLICY_YAML) for POLICY_FILE. */
  policyFile: string;
  close(): Promise<void>;
}

export async function startServeEnv(name: string, opts: { seed: Seed; slack: SimSlackOptions }): Promise<ServeEnv> {
  const [cluster, slack, redis] = await Promise.all([
    startSimCluster({ port: 0, seed: opts.seed, speed: 'fast' }),
    startSimSlack(opts.slack),
    redisForTest(name),
  ]);
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, POLICY_YAML);
  return {
    cluster,
    slack,
    redis,
    policyFile,
    close: async () => {
      await Promise.all([cluster.close(), slack.close(), redis.cleanup(), rm(dir, { recursive: true, force: true })]);
    },
  };
}
