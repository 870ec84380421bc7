// The simulated cluster: store (with admission validation) + Flink operator + API server + kubeconfig file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../log.js';
import { writeKubeconfig } from './kubeconfig.js';
import { startSimOperator, type SimOperator } from './operator.js';
import { seedDemo } from './seed.js';
import { startSimApiServer, type SimApiServer } from './server.js';
import type { Speed } from './speed.js';
import { SimStore } from './store.js';
import { validateSpec } from './validation.js';

export const SEEDS = ['demo', 'none'] as const;
export type Seed = (typeof SEEDS)[number];

export interface SimClusterOptions {
  /** 0 (default) = a free port. */
  port?: number;
  host?: string;
  seed?: Seed;
  speed?: Speed;
  /** Where to write the kubeconfig; default a fresh temp directory (removed on close). */
  kubeconfigPath?: string;
  logger?: Logger;
  random?: () => number;
}

export interface SimCluster {
  store: SimStore;
  operator: SimOperator;
  server: SimApiServer;
  url: string;
  kubeconfigPath: string;
  /** Resolves once the demo seed's follow-ups (a suspend, a manual savepoint) were submitted. */
  seeded: Promise<void>;
  close(): Promise<void>;
}

export async function startSimCluster(options: SimClusterOptions = {}): Promise<SimCluster> {
  const store = new SimStore({ validate: validateSpec });
  const operator = startSimOperator({
    store,
    speed: options.speed ?? 'fast',
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  let server: SimApiServer;
  try {
    server = await startSimApiServer({ store, port: options.port ?? 0, ...(options.host ? { host: options.host } : {}) });
  } catch (error) {
    await operator.close();
    throw error;
  }
  const tempDir = options.kubeconfigPath === undefined ? await mkdtemp(join(tmpdir(), 'flink-sim-')) : undefined;
  const kubeconfigPath = options.kubeconfigPath ?? join(tempDir as string, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, server.url);
  const seeding = new AbortController();
  const seeded = options.seed === 'demo' ? seedDemo(store, seeding.signal) : Promise.resolve();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      seeding.abort();
      await seeded.catch(() => undefined);
      await operator.close();
      await server.close();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    })();
    return closing;
  };
  return { store, operator, server, url: server.url, kubeconfigPath, seeded, close };
}
