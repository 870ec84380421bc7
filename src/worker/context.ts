// What one run of an operation works with (dependencies, settings, its signal) and the small helpers every phase shares.
import type { PolicyProvider } from '../app/policy-source.js';
import type { Criterion, EventBaseline, EvidenceVerdict } from '../domain/kit/evidence/types.js';
import type { BaselineVertex } from '../domain/model/rest-vertices.js';
import type { EntryInput, HistoryEntry, MutableFields, OperationRecord } from '../domain/engines/operation.js';
import type { OperationState } from '../domain/model/lifecycle.js';
import type { Sealer } from '../domain/engines/record-seal.js';
import { isKubeError, isUnreachable } from '../kube/errors.js';
import type { CallOptions, FlinkClient } from '../kube/flink-client.js';
import type { CrdSource } from '../kube/crds.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import type { WatchHub } from '../kube/watch-hub.js';
import type { Logger } from '../log.js';
import type { OperationQueue } from '../queue/queue.js';
import type { FreezeStore, Lease, LockStore, OperationStore } from '../app/ports/index.js';
import type { TargetView } from './target-view.js';
import type { AfterCompletedWatcher } from './after-completed.js';

export interface RunnerSettings {
  /** The `actor` of every history entry the worker writes. */
  actor: string;
  leaseTtlMs: number;
  verifyTimeoutMs: number;
  verifyTimeoutSavepointMs: number;
  /** FAILURE_GRACE: how long a JobManager or container failure may persist before it is FAILED. */
  failureGraceMs: number;
  /** Deadline of each Kubernetes call. */
  kubeTimeoutMs: number;
  /** API calls per run before an unresolved submission is handed back (its state stays as recorded). */
  maxSubmitAttempts: number;
  /** Failed reads per run before the run hands the operation back. */
  maxReadAttempts: number;
}

export const DEFAULT_SETTINGS: Omit<RunnerSettings, 'leaseTtlMs' | 'verifyTimeoutMs' | 'verifyTimeoutSavepointMs'> = {
  actor: 'worker',
  failureGraceMs: 120_000,
  kubeTimeoutMs: 10_000,
  maxSubmitAttempts: 5,
  maxReadAttempts: 12,
};

export interface RunnerDeps {
  store: OperationStore;
  leases: LockStore;
  freezes: Pick<FreezeStore, 'get'>;
  /** The cluster this runner executes operations of, and its clients (docs/deployment.md#several-clusters). */
  cluster: string;
  kube: FlinkClient;
  /** Flink REST through the service proxy; absent: evidence stops at operator status and says so. */
  rest?: FlinkRest;
  /** The cluster's installed Flink CRDs (docs/deployment.md#operator-versions); absent: patches are not checked first. */
  crds?: CrdSource;
  watches: Pick<WatchHub, 'subscribe'>;
  /**
   * promote: wake the next head; the rest: scheduled operations' wake-up and run jobs
   * (docs/policy.md#scheduled-operations).
   */
  queue: Pick<OperationQueue, 'promote' | 'enqueue' | 'enqueueAt' | 'removeFinished' | 'jobState'>;
  policy: PolicyProvider;
  logger: Logger;
  settings: RunnerSettings;
  now: () => number;
  /** A fresh int64-safe nonce for re-plans (restartNonce, savepointRedeployNonce). */
  nonce: () => number;
  /** Observes how long an operation waited from QUEUED to holding its target's lease (metrics). */
  onLockWait?: (seconds: number) => void;
  /**
   * The key records are sealed with (docs/lifecycle.md#record-integrity); absent: the process's own
   * (config/record-key.ts).
   */
  recordKey?: Sealer;
  /** The cluster's after-COMPLETED watch (docs/lifecycle.md#after-completed); absent: none. */
  afterCompleted?: Pick<AfterCompletedWatcher, 'begin' | 'endOthers'>;
}

/** What the worker keeps in `record.evidence`: the baseline before the call, then the verdict (StoredEvidence-compatible). */
export interface WorkerEvidence {
  baseline: EventBaseline;
  /** The target as read under the lease right before the first call, trimmed to what evidence compares against. */
  before: unknown;
  previousJobId?: string;
  upgradeSavepointPath?: string;
  /** savepoint: the snapshot created, and its uid once the API accepted it. */
  snapshot?: { name: string; uid?: string };
  /** scale (and an undo judged as one): the job's vertices read through Flink REST right before the call, when it answered. */
  baselineVertices?: BaselineVertex[];
  /** scale: spec.job.parallelism before the change (the old default the vertices ran at). */
  oldParallelism?: number;
  verdict?: EvidenceVerdict;
  summary?: string;
  criteria?: Criterion[];
  timedOut?: { summary: string; unmet: Criterion[]; blocking: string[] };
}

/** One run of one operation under its target's lease. */
export interface Run {
  opId: string;
  deps: RunnerDeps;
  log: Logger;
  /** Aborted on shutdown, a lost lease or a cancelled job; every call takes it. */
  signal: AbortSignal;
  lease: Lease;
  /** The shared watches of the target, once opened (before the events baseline is listed). */
  view?: TargetView;
  /** True when the view was opened before the baseline listing, so it has seen every event since. */
  viewSeeded?: boolean;
  /** The thread was told the cluster cannot be reached, and not yet that it answers again. */
  unreachable?: boolean;
}

/** How a phase ends when it cannot go on: the operation is left as recorded and its job is parked. */
export type Handback = { type: 'handback'; delayMs: number; why: string };

export function callOptions(run: Run): CallOptions {
  return { signal: run.signal, timeoutMs: run.deps.settings.kubeTimeoutMs };
}

export interface CommitRequest {
  from: readonly OperationState[];
  to?: OperationState;
  detail?: Record<string, unknown>;
  set?: MutableFields;
  /** Entries written before the state entry, in the same commit. */
  before?: EntryInput[];
}

/**
 * One atomic change by the worker: optional entries and (when `to` is set) a state transition, refused unless
 * the record is in one of `from`. Returns the new record, or undefined when refused (another writer won).
 */
export async function commit(run: Run, request: CommitRequest): Promise<OperationRecord | undefined> {
  const actor = run.deps.settings.actor;
  const result = await run.deps.store.apply(run.opId, (current) => {
    if (!request.from.includes(current.state)) {
      return { refuse: `${run.opId} is ${current.state}; expected ${request.from.join(' or ')}` };
    }
    const entries: EntryInput[] = [...(request.before ?? [])];
    if (request.to)
      entries.push({ type: 'state', name: request.to, actor, role: 'worker', detail: request.detail ?? {} });
    return { set: request.set, entries };
  });
  if (result.ok) return result.record;
  run.log.warn({ reason: result.reason, to: request.to }, 'change refused; another writer got there first');
  return undefined;
}

/** An entry of the given type written by the worker. */
export function entry(
  run: Run,
  type: Exclude<EntryInput['type'], 'state'>,
  name: string,
  detail: Record<string, unknown>,
): EntryInput {
  return { type, name, actor: run.deps.settings.actor, detail };
}

/** Resolves after `ms`, or at once (false) when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; handback: Handback };

/**
 * A Kubernetes read retried with backoff until it succeeds (nothing is decided without that read:
 * docs/lifecycle.md#submission), the run's signal aborts, or `maxReadAttempts` failed: then the operation is handed
 * back as recorded.
 */
export async function readWithRetry<T>(
  run: Run,
  what: string,
  read: (options: CallOptions) => Promise<T>,
): Promise<ReadResult<T>> {
  const max = run.deps.settings.maxReadAttempts;
  for (let attempt = 1; ; attempt++) {
    if (run.signal.aborted) return { ok: false, handback: interrupted(run) };
    try {
      const value = await read(callOptions(run));
      if (run.unreachable)
        await noteReachability(run, 'reachable', `cluster ${run.deps.cluster} answers again; the operation goes on`);
      return { ok: true, value };
    } catch (error) {
      if (run.signal.aborted || isKubeError(error, 'aborted')) return { ok: false, handback: interrupted(run) };
      run.log.warn({ err: error, attempt, what }, 'read failed; retrying');
      // A blip is not news; a second failure to reach the API server is, once per outage
      // (docs/deployment.md#several-clusters).
      if (attempt >= 2 && isUnreachable(error) && !run.unreachable) {
        await noteReachability(
          run,
          'unreachable',
          `cannot reach cluster ${run.deps.cluster}: ${error.message}; the operation waits and goes on when it answers`,
        );
      }
      if (attempt >= max)
        return {
          ok: false,
          handback: { type: 'handback', delayMs: run.deps.settings.leaseTtlMs, why: `${what} kept failing` },
        };
      if (!(await pause(Math.min(5000, 100 * 2 ** attempt), run.signal)))
        return { ok: false, handback: interrupted(run) };
    }
  }
}

/** `unreachable` / `reachable` notes, each said once per outage (the history decides, so a new run says nothing twice). */
export const REACHABILITY_NOTES = ['unreachable', 'reachable'] as const;

/** Whether the last reachability note in a history says the cluster could not be reached. */
export function unreachableSaid(history: readonly HistoryEntry[]): boolean {
  return (
    history.findLast((e) => e.type === 'note' && (REACHABILITY_NOTES as readonly string[]).includes(e.name))?.name ===
    'unreachable'
  );
}

async function noteReachability(run: Run, name: (typeof REACHABILITY_NOTES)[number], message: string): Promise<void> {
  run.unreachable = name === 'unreachable';
  const actor = run.deps.settings.actor;
  await run.deps.store
    .apply(run.opId, (current) => {
      if (unreachableSaid(current.history) === (name === 'unreachable')) return { refuse: 'already said' };
      return { entries: [{ type: 'note', name, actor, detail: { cluster: run.deps.cluster, message } }] };
    })
    .catch((error: unknown) => run.log.warn({ err: error }, 'could not note the cluster reachability'));
}

/** The hand-back of an interrupted run: prompt after a shutdown, so another worker resumes; else after a pause. */
export function interrupted(run: Run): Handback {
  const reason: unknown = run.signal.reason;
  const why = reason instanceof Error ? reason.message : 'interrupted';
  const shutdown = reason instanceof Error && 'why' in reason && reason.why === 'shutdown';
  return { type: 'handback', delayMs: shutdown ? 0 : 1000, why };
}
