// The health part of the after-COMPLETED watch (docs/lifecycle.md#after-completed): for `verify.watchAfter` after a
// change to the job, the worker compares the job with its state at COMPLETED — Flink REST where it answers (at most
// one read per job every 30 s, whichever replica reads it), else the operator status and JobException events the
// shared watches deliver — and records the first regression as one REGRESSED note, or the end of a quiet watch as one
// HEALTHY note.
import type { PolicyProvider } from '../app/policy-source.js';
import type {
  AfterCompletedWatch,
  AfterCompletedWatches,
  HealthWatch,
  OperationStore,
  SharedReadings,
} from '../app/ports/index.js';
import {
  HEALTHY_NOTE,
  isHealthy,
  isRegression,
  judgeHealth,
  readRestHealth,
  REGRESSED_NOTE,
  SOURCE,
  type HealthBaseline,
  type Regression,
  type RestHealth,
} from '../domain/kit/evidence/regression.js';
import { findNamespace } from '../domain/engines/policy/evaluate.js';
import { watchAfterFor } from '../domain/engines/policy/verify.js';
import type { IntentKind } from '../domain/kinds/index.js';
import { verifyFor } from '../domain/kit/policy/verify.js';
import { jobIdOf, jobManagerStatusOf, jobStatusStateOf, uidOf } from '../domain/model/resource.js';
import { restAddressOf } from '../domain/model/rest-address.js';
import { sameTarget, type Target } from '../domain/model/target.js';
import type { UpgradeMode } from '../domain/model/upgrade-mode.js';
import type { FlinkClient, KubeEvent, KubeObject } from '../kube/flink-client.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import type { Logger } from '../log.js';
import { lookAgainMs, sharedRead } from './shared-read.js';

/** At most one REST read per watched job in this interval (docs/lifecycle.md#after-completed). */
export const POST_CHANGE_REST_MS = 30_000;
const REST_TIMEOUT_MS = 3_000;

export interface PostChangeDeps {
  store: Pick<OperationStore, 'apply'>;
  watches: Pick<AfterCompletedWatches, 'list'>;
  cluster: string;
  logger: Logger;
  now: () => number;
  actor: string;
  /** Reads the target and its events at COMPLETED; absent: no health part. */
  kube?: Pick<FlinkClient, 'get' | 'listEvents'>;
  rest?: FlinkRest;
  /** Where the worker replicas share their REST readings (one read per watch and interval); absent: each reads. */
  readings?: SharedReadings;
  /** Where `verify.watchAfter` comes from; absent: no health part. */
  policy?: PolicyProvider;
  /** FAILURE_GRACE: how long the job may stay out of RUNNING (the JobManager out of READY). */
  failureGraceMs?: number;
  /** Default POST_CHANGE_REST_MS. */
  restEveryMs?: number;
  /** Each regression this process records (metrics). */
  onRegression?: (regression: { cluster: string; kind: string }) => void;
}

/** What a just-completed change tells the health part: how policy rules match it. */
export interface JobChange {
  upgradeMode?: UpgradeMode;
}

/** This replica's view of one health watch. */
interface Runtime {
  /** The operator status as last seen (jobStatus, JobManager). */
  object?: KubeObject;
  /** JobException event name → count, as last seen. */
  events: Record<string, number>;
  rest?: RestHealth;
  /** ms of the last REST read (the baseline's counts as one). */
  readAt: number;
  notRunningSince?: number;
  notReadySince?: number;
  /** A note was written (here or, as the refusal said, by another replica): nothing more to say. */
  done: boolean;
  reading?: boolean;
}

/**
 * The health part for a change that just completed, or undefined: `verify.watchAfter` is 0, the job is not RUNNING
 * (a suspend), there is no job (a session cluster), or the target cannot be read.
 */
export async function healthOf(
  deps: PostChangeDeps,
  watch: AfterCompletedWatch,
  change: JobChange,
): Promise<HealthWatch | undefined> {
  const { kube, policy } = deps;
  if (!kube || !policy) return undefined;
  const state = await policy.current();
  if (!state.ok) return undefined;
  const { namespace, name, kind, cluster } = watch.target;
  const watchAfter = watchAfterFor(state.policy, {
    namespace,
    ...(cluster === undefined ? {} : { cluster }),
    intentKind: watch.kind as IntentKind,
    ...(change.upgradeMode === undefined ? {} : { upgradeMode: change.upgradeMode }),
    now: new Date(watch.startedAt),
  });
  if (watchAfter.watchAfterMs <= 0) return undefined;
  const options = { timeoutMs: REST_TIMEOUT_MS };
  const object = await kube.get(kind, namespace, name, options);
  const address = restAddressOf(watch.target, object);
  const uid = uidOf(object);
  if (!object || !address.ok || uid === undefined) return undefined;
  const { clusterId, jobId } = address;
  if (jobStatusStateOf(object) !== 'RUNNING') return undefined;
  const events = exceptionCounts(await kube.listEvents(namespace, uid, options), watch.target);
  const readRest = verifyFor(state.policy, findNamespace(state.policy, namespace, cluster)?.environment).rest;
  const rest = readRest ? await readHealth(deps, namespace, clusterId, jobId) : undefined;
  const baseline: HealthBaseline = {
    at: watch.startedAt,
    jobId,
    clusterId,
    ...(rest === undefined ? {} : { rest }),
    exceptionEvents: events,
  };
  return { until: watch.startedAt + watchAfter.watchAfterMs, watchAfter: watchAfter.watchAfter, baseline };
}

/** JobException Warnings about `target` (name → count). */
function exceptionCounts(events: readonly KubeEvent[], target: Target): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) if (isJobException(e, target)) counts[e.metadata.name] = e.count ?? 1;
  return counts;
}

function isJobException(e: KubeEvent, target: Target): boolean {
  return e.reason === 'JobException' && e.involvedObject?.kind === target.kind && e.involvedObject.name === target.name;
}

/** One REST reading of the job (job, checkpoints, numRestarts; the exception history when the metric is missing). */
async function readHealth(
  deps: Pick<PostChangeDeps, 'rest'>,
  namespace: string,
  clusterId: string,
  jobId: string,
): Promise<RestHealth | undefined> {
  const { rest } = deps;
  if (!rest) return undefined;
  const options = { timeoutMs: REST_TIMEOUT_MS };
  const [job, checkpoints, metrics] = await Promise.all([
    rest.get(namespace, clusterId, `/jobs/${jobId}`, options),
    rest.get(namespace, clusterId, `/jobs/${jobId}/checkpoints`, options),
    rest.get(namespace, clusterId, `/jobs/${jobId}/metrics?get=numRestarts`, options),
  ]);
  if (!job.ok) return undefined;
  const parts = {
    job: job.value,
    ...(checkpoints.ok ? { checkpoints: checkpoints.value } : {}),
    ...(metrics.ok ? { metrics: metrics.value } : {}),
  };
  const health = readRestHealth(parts);
  if (health.numRestarts !== undefined) return health;
  const exceptions = await rest.get(namespace, clusterId, `/jobs/${jobId}/exceptions`, options);
  return exceptions.ok ? readRestHealth({ ...parts, exceptions: exceptions.value }) : health;
}

/** The health parts this replica judges; the watcher (after-completed.ts) feeds it what the shared watches see. */
export class PostChangeHealth {
  private readonly runtimes = new Map<string, Runtime>();

  constructor(private readonly deps: PostChangeDeps) {}

  /** The target as the shared watch delivered it. */
  observe(watch: AfterCompletedWatch, object: KubeObject): void {
    const runtime = this.runtime(watch);
    if (!runtime || !watch.health) return;
    runtime.object = object;
    this.judgeQuietly(watch, runtime);
  }

  /** An Event of the target's namespace as the shared watch delivered it. */
  observeEvent(watch: AfterCompletedWatch, event: KubeEvent): void {
    const runtime = this.runtime(watch);
    if (!runtime || !isJobException(event, watch.target)) return;
    runtime.events[event.metadata.name] = event.count ?? 1;
    this.judgeQuietly(watch, runtime);
  }

  /** Every refresh while the period runs: a REST read in the background when one is due, then a judgement. */
  poll(watch: AfterCompletedWatch): void {
    const runtime = this.runtime(watch);
    const health = watch.health;
    if (!runtime || !health || runtime.reading) return;
    const now = this.deps.now();
    const every = this.deps.restEveryMs ?? POST_CHANGE_REST_MS;
    if (now >= health.until || now < runtime.readAt + every) return;
    runtime.reading = true;
    runtime.readAt = now;
    const { baseline } = health;
    // A job the operator submitted anew is not the one the baseline counted: the operator's view judges it.
    const same = (jobIdOf(runtime.object) ?? baseline.jobId) === baseline.jobId;
    const read = same
      ? sharedRead({
          readings: this.deps.readings,
          key: `health:${watch.opId}:${baseline.jobId}`,
          intervalMs: every,
          now: this.deps.now,
          logger: this.deps.logger,
          read: () => readHealth(this.deps, watch.target.namespace, baseline.clusterId, baseline.jobId),
        })
      : Promise.resolve({ at: now, value: undefined });
    void read
      .then(async (got) => {
        runtime.reading = false;
        // The turn's holder (another replica) has not shared its reading yet: look again a little later.
        if (got === undefined) runtime.readAt = now - every + lookAgainMs(every);
        else {
          runtime.readAt = got.at;
          runtime.rest = got.value;
          await this.judge(watch, runtime);
        }
      })
      .catch((error: unknown) => {
        runtime.reading = false;
        this.deps.logger.warn({ err: error, opId: watch.opId }, 'could not read the job after the change');
      });
  }

  /** The period is over: without a regression, one HEALTHY note, however many replicas get here. */
  async conclude(watch: AfterCompletedWatch): Promise<void> {
    const runtime = this.runtime(watch);
    const health = watch.health;
    if (!runtime || !health) return;
    runtime.done = true;
    const { deps } = this;
    const sources: string[] = [...(health.baseline.rest ? [SOURCE.rest] : []), SOURCE.operator, SOURCE.events];
    const detail = { watchAfter: health.watchAfter, watchAfterMs: health.until - watch.startedAt, sources };
    await deps.store.apply(watch.opId, (current) => {
      if (current.state !== 'COMPLETED') return { refuse: current.state };
      if (current.history.some((e) => isRegression(e) || isHealthy(e))) return { refuse: 'already said' };
      return { entries: [{ type: 'note', name: HEALTHY_NOTE, actor: deps.actor, detail }] };
    });
  }

  /** Drops what this replica kept for watches no longer listed. */
  keepOnly(opIds: ReadonlySet<string>): void {
    for (const id of this.runtimes.keys()) if (!opIds.has(id)) this.runtimes.delete(id);
  }

  private runtime(watch: AfterCompletedWatch): Runtime | undefined {
    if (!watch.health) return undefined;
    let runtime = this.runtimes.get(watch.opId);
    if (!runtime) {
      const { baseline } = watch.health;
      runtime = { events: { ...baseline.exceptionEvents }, readAt: baseline.at, done: false };
      if (baseline.rest) runtime.rest = baseline.rest;
      this.runtimes.set(watch.opId, runtime);
    }
    return runtime.done ? undefined : runtime;
  }

  private judgeQuietly(watch: AfterCompletedWatch, runtime: Runtime): void {
    void this.judge(watch, runtime).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, opId: watch.opId }, 'could not record a post-change regression'),
    );
  }

  private async judge(watch: AfterCompletedWatch, runtime: Runtime): Promise<void> {
    const health = watch.health;
    const now = this.deps.now();
    if (!health || runtime.done || now >= health.until) return;
    const jobState = jobStatusStateOf(runtime.object);
    const jobManager = watch.target.kind === 'FlinkDeployment' ? jobManagerStatusOf(runtime.object) : undefined;
    const state = jobState ?? runtime.rest?.jobState;
    runtime.notRunningSince = state === undefined || state === 'RUNNING' ? undefined : (runtime.notRunningSince ?? now);
    runtime.notReadySince =
      jobManager === undefined || jobManager === 'READY' ? undefined : (runtime.notReadySince ?? now);
    const regression = judgeHealth(health.baseline, {
      now,
      ...(runtime.rest ? { rest: runtime.rest } : {}),
      ...(jobState === undefined ? {} : { jobState }),
      ...(jobManager === undefined ? {} : { jobManager }),
      exceptionEvents: runtime.events,
      ...(runtime.notRunningSince === undefined ? {} : { notRunningSince: runtime.notRunningSince }),
      ...(runtime.notReadySince === undefined ? {} : { notReadySince: runtime.notReadySince }),
      graceMs: this.deps.failureGraceMs ?? 120_000,
    });
    if (regression) await this.record(watch, runtime, regression);
  }

  private async record(watch: AfterCompletedWatch, runtime: Runtime, regression: Regression): Promise<void> {
    runtime.done = true;
    // A later operation may have ended the watch a moment ago; what it causes is not this change's regression.
    if (!(await this.stillWatched(watch))) return;
    const { deps } = this;
    const detail = { ...regression, watchAfter: watch.health?.watchAfter, at: deps.now() };
    const result = await deps.store.apply(watch.opId, (current) => {
      if (current.state !== 'COMPLETED') return { refuse: current.state };
      if (current.history.some((e) => isRegression(e) || isHealthy(e))) return { refuse: 'already said' };
      return { entries: [{ type: 'note', name: REGRESSED_NOTE, actor: deps.actor, detail }] };
    });
    if (!result.ok) return;
    deps.logger.info({ opId: watch.opId, kind: regression.kind, what: regression.what }, 'a change regressed');
    deps.onRegression?.({ cluster: deps.cluster, kind: regression.kind });
  }

  private async stillWatched(watch: AfterCompletedWatch): Promise<boolean> {
    const listed = await this.deps.watches.list(this.deps.cluster);
    return listed.some((w) => w.opId === watch.opId && sameTarget(w.target, watch.target));
  }
}
