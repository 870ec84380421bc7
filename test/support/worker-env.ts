// Worker test harness: simulated cluster + Redis prefix + policy + stores, operations created the way the bot creates them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { assess } from '../../src/app/assess.js';
import { DEFAULT_CLUSTER, loadConfig, type Config } from '../../src/config.js';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import { newOperationId, type OperationRecord } from '../../src/domain/engines/operation.js';
import { isTerminal, type OperationState } from '../../src/domain/model/lifecycle.js';
import type { Policy } from '../../src/domain/engines/policy/schema.js';
import { ClientNodeFlinkClient, loadKubeConfig } from '../../src/kube/client-node.js';
import { createLogger } from '../../src/log.js';
import { parsePolicyText } from '../../src/app/policy-load.js';
import { OperationQueues, type OperationQueue } from '../../src/queue/queue.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { OperatorVersion } from '@flink-chatops/sim/kube/versions';
import { expectAttributedWrites } from './attribution.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { lastEventId, waitForEvents } from '../../src/store/events.js';
import { FreezeStore } from '../../src/store/freezes.js';
import { LeaseStore } from '../../src/store/locks.js';
import { OperationStore } from '../../src/store/operations.js';
import { startWorker, type RunningWorker, type WorkerOverrides } from '../../src/roles/worker.js';
import { redisForTest, type TestRedis } from './redis.js';
import { simVersionOptions } from './sim-versions.js';
import { editSpec, waitForStatus, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment, type DeploymentOptions } from '@flink-chatops/sim/testing/sim-resources';

export const NS = 'streaming-dev';
/** A namespace where re-plans of stateless scales need a lead's approval. */
export const APPROVAL_NS = 'streaming-approval';
export const REQUESTER = 'U0REQUEST';

export const POLICY_YAML = `version: 1
groups:
  leads: { users: [U0LEAD1] }
namespaces:
  - name: ${NS}
  - name: ${APPROVAL_NS}
rules:
  - name: stateless-scale-needs-a-lead
    when: { namespaces: [${APPROVAL_NS}], operations: [scale], upgradeModes: [stateless] }
    require: { approvals: 1, from: [leads] }
approval:
  ttl: 30m
config:
  allow: ["execution.checkpointing.*", "restart-strategy.*", "taskmanager.memory.*", "job.autoscaler.*", "pipeline.jobvertex-parallelism-overrides"]
  deny: ["high-availability*", "kubernetes.operator.*"]
limits:
  taskManagerMemory: 16g
  taskManagerCpu: 8
`;

export interface WorkerEnvOptions {
  /** Extra environment for the worker config (LEASE_TTL, VERIFY_TIMEOUT, …). */
  env?: Record<string, string>;
  /** How far the simulated cluster's clock is from the worker's (its events, status times and `Date` header). */
  clockOffsetMs?: number;
  /** Text appended to the test policy (e.g. a `verify:` block). */
  policyExtra?: string;
  /** The release of the simulated cluster's CRDs (docs/deployment.md#operator-versions); 1.15 unless told. */
  crdVersion?: OperatorVersion;
  /** The operator release the simulated cluster runs (default 1.15). */
  operatorVersion?: OperatorVersion;
  /** false: the simulated API server ignores fieldValidation, as one before 1.25 (docs/sandbox.md#crd-schemas). */
  fieldValidation?: boolean;
}

export class WorkerEnv {
  readonly store: OperationStore;
  readonly leases: LeaseStore;
  readonly freezes: FreezeStore;
  readonly queues: OperationQueues;
  /** The one simulated cluster's queue (`flink-ops.default`). */
  readonly queue: OperationQueue;
  readonly kube: ClientNodeFlinkClient;
  readonly policy: Policy;
  private readonly workers: RunningWorker[] = [];
  private readonly pump: EventPump;

  private constructor(
    readonly redis: TestRedis,
    readonly cluster: SimCluster,
    readonly policyPath: string,
    private readonly dir: string,
    private readonly options: WorkerEnvOptions,
  ) {
    const { prefix } = redis;
    this.store = new OperationStore(redis.redis, { prefix });
    this.leases = new LeaseStore(redis.redis, { prefix });
    this.freezes = new FreezeStore(redis.redis, { prefix });
    this.queues = new OperationQueues({ connection: redis.redis, prefix, clusters: [DEFAULT_CLUSTER] });
    this.queue = this.queues.named(DEFAULT_CLUSTER);
    this.kube = new ClientNodeFlinkClient(loadKubeConfig(cluster.kubeconfigPath), { timeoutMs: 5000 });
    const parsed = parsePolicyText(POLICY_YAML + (options.policyExtra ?? ''));
    if (!parsed.ok) throw new Error(`test policy: ${parsed.errors.join('; ')}`);
    this.policy = parsed.policy;
    this.pump = new EventPump(new Redis(redis.url, { maxRetriesPerRequest: null }), prefix, this.store);
  }

  static async start(options: WorkerEnvOptions = {}): Promise<WorkerEnv> {
    const redis = await redisForTest('wk');
    const dir = await mkdtemp(join(tmpdir(), 'worker-env-'));
    const policyPath = join(dir, 'policy.yaml');
    await writeFile(policyPath, POLICY_YAML + (options.policyExtra ?? ''));
    const clock = options.clockOffsetMs === undefined ? {} : { clockOffsetMs: options.clockOffsetMs };
    const cluster = await startSimCluster({
      port: 0,
      seed: 'none',
      speed: 'fast',
      kubeconfigPath: join(dir, 'kubeconfig'),
      ...clock,
      ...simVersionOptions(),
      ...(options.crdVersion ? { crdVersion: options.crdVersion } : {}),
      ...(options.operatorVersion ? { operatorVersion: options.operatorVersion } : {}),
      ...(options.fieldValidation === false ? { fieldValidation: false } : {}),
    });
    const env = new WorkerEnv(redis, cluster, policyPath, dir, options);
    await env.pump.start();
    return env;
  }

  get prefix(): string {
    return this.redis.prefix;
  }

  /** The environment a worker (in-process or a child process) is configured with. */
  workerEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      REDIS_URL: this.redis.url,
      REDIS_PREFIX: this.redis.prefix,
      KUBECONFIG: this.cluster.kubeconfigPath,
      POLICY_FILE: this.policyPath,
      LEASE_TTL: '5s',
      VERIFY_TIMEOUT: '30s',
      VERIFY_TIMEOUT_SAVEPOINT: '30s',
      FAILURE_GRACE: '2s',
      WORKER_CONCURRENCY: '8',
      PORT: '0',
      LOG_LEVEL: 'silent',
      ...this.options.env,
      ...extra,
    };
  }

  config(extra: Record<string, string> = {}): Config {
    const loaded = loadConfig(this.workerEnv(extra), 'worker');
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    return loaded.config;
  }

  /** An in-process worker (the production startWorker), closed with the env. */
  async startWorker(extra: Record<string, string> = {}, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
    const config = this.config(extra);
    const worker = await startWorker(config, {
      logger: createLogger(config.logLevel),
      sweepIntervalMs: 60_000,
      ...overrides,
    });
    this.workers.push(worker);
    return worker;
  }

  /** Creates a FlinkDeployment in the simulated cluster and waits until it runs (or is suspended) on its spec. */
  async deploy(name: string, options: DeploymentOptions & { namespace?: string } = {}): Promise<KubeObject> {
    const namespace = options.namespace ?? NS;
    const { store } = this.cluster;
    store.create('flinkdeployments', deployment(name, namespace, { ...options, state: 'running' }));
    const running = await waitStable(store, namespace, name);
    if (options.state !== 'suspended') return running;
    // Suspended the way people get there: a running job whose spec is then set to suspended.
    editSpec(store, 'flinkdeployments', namespace, name, (spec) => (spec.job.state = 'suspended'));
    return waitForStatus(
      store,
      'flinkdeployments',
      namespace,
      name,
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
  }

  /** What the bot records first: the plan and decision from `assess`, as an ACCEPTED operation. */
  async accept(intent: OperationIntent, requester = REQUESTER): Promise<OperationRecord> {
    const id = newOperationId(() => randomBytes(16));
    const assessed = await assess(
      this.policy,
      { intent, opId: id, requester },
      {
        clients: () => ({ kube: this.kube }),
        getFreeze: (target) => this.freezes.get(target),
        getOperation: (opId) => this.store.get(opId),
        now: () => new Date(),
        nonce: () => Date.now(),
      },
    );
    if (!assessed.ok) throw new Error(`refused: ${assessed.refusal}`);
    const created = await this.store.create(
      {
        id,
        kind: intent.kind,
        intent,
        target: assessed.target,
        requester,
        channel: 'C0TEST',
        incidentChannels: [],
        plan: assessed.plan,
        decision: assessed.decision,
      },
      requester,
    );
    if (!created.ok) throw new Error(`could not create ${id}`);
    return created.record;
  }

  /** What the bot does for an allowed request: accept, → QUEUED, enqueue (unless told not to). */
  async request(
    intent: OperationIntent,
    options: { requester?: string; enqueue?: boolean } = {},
  ): Promise<OperationRecord> {
    const accepted = await this.accept(intent, options.requester);
    if (accepted.decision?.outcome !== 'allow') throw new Error(`not allowed: ${JSON.stringify(accepted.decision)}`);
    const queued = await this.store.transition(accepted.id, {
      from: ['ACCEPTED'],
      to: 'QUEUED',
      actor: accepted.requester,
      role: 'bot',
    });
    if (!queued.ok) throw new Error(queued.reason);
    if (options.enqueue !== false) await this.queue.enqueue(accepted.id, accepted.plan?.revision ?? 1);
    return queued.record;
  }

  /** Resolves with the record once `predicate` holds, checked on every history entry of the operation. */
  waitFor(
    opId: string,
    predicate: (record: OperationRecord) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<OperationRecord> {
    return this.pump.waitFor(opId, predicate, what, timeoutMs);
  }

  waitForState(
    opId: string,
    states: OperationState | readonly OperationState[],
    timeoutMs = 20_000,
  ): Promise<OperationRecord> {
    const wanted: readonly OperationState[] = typeof states === 'string' ? [states] : states;
    return this.waitFor(opId, (r) => wanted.includes(r.state), `${opId} to be ${wanted.join(' or ')}`, timeoutMs);
  }

  waitTerminal(opId: string, timeoutMs = 20_000): Promise<OperationRecord> {
    return this.waitFor(opId, (r) => isTerminal(r.state), `${opId} to end`, timeoutMs);
  }

  async close(): Promise<void> {
    for (const worker of this.workers) await worker.close();
    await this.pump.stop();
    await this.queue.close();
    await this.cluster.close();
    await this.redis.cleanup();
    await rm(this.dir, { recursive: true, force: true });
    // Every write of the worker named its field manager (the store outlives the closed server).
    expectAttributedWrites(this.cluster);
  }
}

interface Waiter {
  opId: string;
  check(record: OperationRecord): boolean;
}

/** Reads the `{prefix}:events` stream on its own connection and wakes waiters on their operation's entries. */
class EventPump {
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly blocking: Redis,
    private readonly prefix: string,
    private readonly store: OperationStore,
  ) {}

  async start(): Promise<void> {
    let after = await lastEventId(this.blocking, this.prefix);
    this.loop = (async () => {
      while (!this.stopped) {
        const events = await waitForEvents(this.blocking, this.prefix, after, 200, 500).catch(() => []);
        if (events.length === 0) continue;
        after = (events[events.length - 1] as { id: string }).id;
        const ops = new Set(events.map((e) => e.op));
        for (const waiter of [...this.waiters]) if (ops.has(waiter.opId)) await this.recheck(waiter);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    this.blocking.disconnect();
  }

  waitFor(
    opId: string,
    predicate: (record: OperationRecord) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<OperationRecord> {
    return new Promise((resolve, reject) => {
      let last: OperationRecord | undefined;
      const waiter: Waiter = {
        opId,
        check: (record) => {
          last = record;
          if (!predicate(record)) return false;
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(record);
          return true;
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const seen = last
          ? `${last.state}; history: ${last.history.map((e) => `${e.type}:${e.name}`).join(' → ')}`
          : 'no record';
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} — last seen: ${seen}`));
      }, timeoutMs);
      this.waiters.add(waiter);
      void this.recheck(waiter);
    });
  }

  private async recheck(waiter: Waiter): Promise<void> {
    const record = await this.store.get(waiter.opId);
    if (record) waiter.check(record);
  }
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Parsed JSON log lines (and raw stderr lines as `{ stderr }`). */
  lines: Record<string, unknown>[];
  /** Resolves once the process logged "worker started". */
  ready: Promise<void>;
  exited: Promise<number | null>;
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** `node bin/flink-chatops.js serve --role worker` with the env's configuration (LOG_LEVEL info unless given). */
export function spawnWorker(env: WorkerEnv, extra: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'worker'], {
    cwd: REPO,
    env: { ...process.env, ...env.workerEnv({ LOG_LEVEL: 'info', ...extra }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stdout as Readable }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (parsed.msg === 'worker started') markReady();
    } catch {
      lines.push({ stdout: line });
    }
  });
  createInterface({ input: child.stderr as Readable }).on('line', (line) => lines.push({ stderr: line }));
  const failed = exited.then((code) => {
    throw new Error(`the worker process exited (${code}) before it was ready: ${JSON.stringify(lines.slice(-5))}`);
  });
  return { child, lines, ready: Promise.race([ready, failed]), exited };
}
