// The simulated cluster: store (with admission validation) + Flink operator + API server + kubeconfig file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../bot.js';
import { EventExpiry } from './event-ttl.js';
import { writeKubeconfig } from './kubeconfig.js';
import { startSimOperator, type SimOperator } from './operator.js';
import { seedDemo } from './seed.js';
import { FlinkRest } from './flink-rest.js';
import { SimGitOps } from './gitops/gitops.js';
import { JobManagerState } from './jobmanager-state.js';
import { SimPods } from './pods.js';
import { startSimApiServer, type SimApiServer } from './server.js';
import { durationSeconds } from './scenarios.js';
import type { Speed } from './speed.js';
import { SimStore } from './store.js';
import { validatorFor } from './validation.js';
import { crdSchema } from './crd-schema.js';
import { isFlinkResource, SimCrds } from './crds.js';
import { simVersions, type OperatorVersion, type SimVersions } from './versions.js';

/** `sim-cluster --seed`: `demo`, the demo jobs, or `none`, empty. */
export const SEEDS = ['demo', 'none'] as const;
/** Also `demo-us`: the sandbox's smaller second cluster (seed.ts). */
export type Seed = (typeof SEEDS)[number] | 'demo-us';

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
  /**
   * How far the cluster's clock is from this process's (ms, may be negative): everything the simulated cluster
   * writes — event and object timestamps, status times, the HTTP `Date` header — is on that clock, as a real
   * cluster's clocks are rarely the bot's.
   */
  clockOffsetMs?: number;
  /** The operator release the cluster runs (default 1.15). */
  operatorVersion?: OperatorVersion;
  /** The release its CRDs come from (default: the operator's). */
  crdVersion?: OperatorVersion;
  /** How long an Event lives after its last write (kube-apiserver `--event-ttl`; default 1 h). */
  eventTtlMs?: number;
  /**
   * false: an API server older than 1.25, which ignores `fieldValidation` and prunes unknown fields without a word
   * (docs/sandbox.md#crd-schemas); default true.
   */
  fieldValidation?: boolean;
}

export interface SimCluster {
  store: SimStore;
  operator: SimOperator;
  jobManagers: JobManagerState;
  /** The JobManager and TaskManager pods of the running FlinkDeployments, with their logs (pods.ts). */
  pods: SimPods;
  server: SimApiServer;
  /** The simulated Argo CD, Flux and Helm: `gitops.manage(…)` puts a resource under one (docs/sandbox.md#gitops-switches). */
  gitops: SimGitOps;
  url: string;
  kubeconfigPath: string;
  /** Resolves once a demo seed's follow-ups (a suspend, a manual savepoint) were submitted. */
  seeded: Promise<void>;
  /** The operator and CRD releases this cluster simulates (versions.ts). */
  versions: SimVersions;
  /** Removes Events their TTL after their last write; `eventExpiry.setTtl(ms)` shortens it (docs/sandbox.md#events-expire). */
  eventExpiry: EventExpiry;
  /** The installed Flink CRDs; `crds.install('1.16')` upgrades them while the cluster runs (docs/sandbox.md#crd-schemas). */
  crds: SimCrds;
  close(): Promise<void>;
}

/** `--clock-offset`: a signed duration ("30s", "-30s", "+2m", "1500ms"; a bare number is seconds) in ms, or undefined. */
export function parseClockOffsetMs(text: string): number | undefined {
  const match = /^([+-]?)\s*(.+)$/.exec(text.trim());
  const seconds = match ? durationSeconds(match[2] as string) : undefined;
  if (seconds === undefined) return undefined;
  return Math.round((match?.[1] === '-' ? -seconds : seconds) * 1000);
}

/** A clock `offsetMs` away from this process's (a cluster whose clocks differ from the bot's). */
export function offsetClock(offsetMs: number): () => Date {
  return offsetMs === 0 ? () => new Date() : () => new Date(Date.now() + offsetMs);
}

export async function startSimCluster(options: SimClusterOptions = {}): Promise<SimCluster> {
  const versions = simVersions(options.operatorVersion, options.crdVersion);
  const store = new SimStore({
    validate: validatorFor(() => versions.crd),
    // The API server prunes what the installed CRDs do not declare (docs/sandbox.md#crd-schemas).
    schema: (resource) => (isFlinkResource(resource) ? crdSchema(resource, versions.crd) : undefined),
    now: offsetClock(options.clockOffsetMs ?? 0),
  });
  const eventExpiry = new EventExpiry(store, options.eventTtlMs);
  const speed = options.speed ?? 'fast';
  // What the simulated JobManagers know beyond the CR status: written by the operator model, read by REST.
  const jobManagers = new JobManagerState();
  const operator = startSimOperator({
    store,
    speed,
    jobManagers,
    version: versions.operator,
    // Random task failovers come only where the `random-failovers` knob is set, so the sandbox's walkthrough is the
    // same on every run (docs/sandbox.md#jobs-that-go-wrong-later-on-their-own).
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  const gitops = new SimGitOps({ store, speed });
  const crds = new SimCrds(versions, store.now());
  const pods = new SimPods(store, options.random);
  let server: SimApiServer;
  try {
    const flinkRest = new FlinkRest({ store, speed, jobManagers, settings: (object) => operator.settingsOf(object) });
    server = await startSimApiServer({
      store,
      flinkRest,
      gitops,
      pods,
      crds,
      ...(options.fieldValidation === false ? { fieldValidation: false } : {}),
      port: options.port ?? 0,
      ...(options.host ? { host: options.host } : {}),
    });
  } catch (error) {
    pods.close();
    gitops.close();
    eventExpiry.close();
    await operator.close();
    throw error;
  }
  const tempDir = options.kubeconfigPath === undefined ? await mkdtemp(join(tmpdir(), 'flink-sim-')) : undefined;
  const kubeconfigPath = options.kubeconfigPath ?? join(tempDir as string, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, server.url);
  const seeding = new AbortController();
  const seed = options.seed ?? 'none';
  const seeded = seed === 'none' ? Promise.resolve() : seedDemo(store, seeding.signal, seed);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      seeding.abort();
      await seeded.catch(() => undefined);
      gitops.close();
      pods.close();
      eventExpiry.close();
      await operator.close();
      await server.close();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    })();
    return closing;
  };
  return {
    store,
    operator,
    jobManagers,
    pods,
    server,
    gitops,
    url: server.url,
    kubeconfigPath,
    seeded,
    versions,
    eventExpiry,
    crds,
    close,
  };
}
