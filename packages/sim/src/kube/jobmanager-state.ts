// What a simulated JobManager knows that the operator's CR status does not: rescales still under way inside
// Flink (adaptive scheduler), savepoints Flink completed that the operator stopped tracking, checkpoints a
// job restored from its HA metadata, when a run's checkpoints start to fail, each run's exception history, the max
// parallelism of each run's vertices and of the state a resource's next restore reads. Shared by the operator model
// (writes) and the REST API (reads).

export interface RestoreRefusal {
  vertexId: string;
  /** The max parallelism the restored state was written with. */
  stateMax: number;
  parallelism: number;
}

export interface SettledRun {
  /** Vertex id → its max parallelism in this run. */
  maxima: Map<string, number>;
  /** The first vertex whose restored state cannot take its parallelism (StateAssignmentOperation). */
  refused?: RestoreRefusal;
}

export interface PendingRescale {
  /** Vertex id → the parallelism the vertex still runs at until the rescale lands. */
  previous: ReadonlyMap<string, number>;
  /** ms (the store's clock) when the vertices run at the new parallelism. */
  landsAt: number;
}

export interface CompletedSavepoint {
  id: number;
  /** The savepoint's directory, as Flink reports it (normalised: no trailing `/_metadata`, no trailing `/`). */
  path: string;
  /** ms (the JobManager's clock). */
  at: number;
  /** ms (the JobManager's clock) when the savepoint was triggered; REST falls back to `at`. */
  triggeredAt?: number;
}

export interface HaRestore {
  /** The checkpoint the job restored from its HA metadata: `<checkpoint dir>/<job id>/chk-<n>`. */
  path: string;
  /** ms (the JobManager's clock). */
  at: number;
}

/** One entry of a JobMaster's exception history (REST `exceptionHistory.entries`). */
export interface ExceptionEntry {
  exceptionName: string;
  /** The whole stack trace (the operator's JobException event carries only its first lines). */
  stacktrace: string;
  /** ms (the JobManager's clock). */
  timestamp: number;
  taskName: string | null;
  endpoint: string | null;
  taskManagerId: string | null;
}

/** `web.exception-history-size`'s default: a JobMaster keeps this many of a run's newest root exceptions. */
export const EXCEPTION_HISTORY_SIZE = 16;

/** Per Flink job id; forgotten never (a simulator runs for minutes, not months). */
export class JobManagerState {
  private readonly rescales = new Map<string, PendingRescale>();
  private readonly savepoints = new Map<string, CompletedSavepoint[]>();
  private readonly haRestores = new Map<string, HaRestore>();
  /** Per job id: the run (its start time) whose checkpoints fail from `from` (ms) on. */
  private readonly checkpointFailures = new Map<string, { startTime: string; from: number }>();
  /** Per job id: the run (its start time) whose exception history this is, newest first, and its restarts. */
  private readonly exceptions = new Map<string, { startTime: string; entries: ExceptionEntry[]; restarts: number }>();
  private readonly savepointWaiters: ((jobId: string) => void)[] = [];
  /** Per resource: the vertex maxima its latest state (checkpoints, savepoints) was written with. */
  private readonly stateMaxima = new Map<string, ReadonlyMap<string, number>>();
  /** Per job id: its vertices' maxima, and the restore that refused to start it. */
  private readonly runs = new Map<string, SettledRun>();

  /** The vertex maxima the resource's state carries, if a run of it started (what a restore reads). */
  restoredMaxima(resource: string): ReadonlyMap<string, number> | undefined {
    return this.stateMaxima.get(resource);
  }

  /** A run starts with these maxima; unless its restore was refused, its state carries them from now on. */
  startRun(resource: string, jobId: string, run: SettledRun): void {
    this.runs.set(jobId, run);
    if (run.refused === undefined) this.stateMaxima.set(resource, run.maxima);
  }

  /** The job's vertex maxima as its run settled them, or undefined for a run the simulator did not start. */
  maxParallelism(jobId: string): ReadonlyMap<string, number> | undefined {
    return this.runs.get(jobId)?.maxima;
  }

  restoreRefusal(jobId: string): RestoreRefusal | undefined {
    return this.runs.get(jobId)?.refused;
  }

  rescale(jobId: string, pending: PendingRescale): void {
    this.rescales.set(jobId, pending);
  }

  /** The previous parallelism of each vertex while a rescale has not landed yet, else undefined. */
  pendingRescale(jobId: string, now: number): PendingRescale | undefined {
    const pending = this.rescales.get(jobId);
    if (pending === undefined) return undefined;
    if (now >= pending.landsAt) {
      this.rescales.delete(jobId);
      return undefined;
    }
    return pending;
  }

  completeSavepoint(jobId: string, savepoint: CompletedSavepoint): void {
    this.savepoints.set(jobId, [...(this.savepoints.get(jobId) ?? []), savepoint]);
    for (const wake of this.savepointWaiters.splice(0)) wake(jobId);
  }

  /**
   * The job's next completed savepoint, or its latest when it has one already: Flink finishing a savepoint changes
   * no Kubernetes object, so tests and tools wait on the JobManager itself.
   */
  nextSavepoint(jobId: string): Promise<CompletedSavepoint> {
    const latest = this.latestSavepoint(jobId);
    if (latest !== undefined) return Promise.resolve(latest);
    return new Promise((resolve) => {
      const wait = (completed: string): void => {
        const found = completed === jobId ? this.latestSavepoint(jobId) : undefined;
        if (found !== undefined) resolve(found);
        else this.savepointWaiters.push(wait);
      };
      this.savepointWaiters.push(wait);
    });
  }

  /**
   * The id of the savepoint this JobManager completed at `path` (a `/_metadata` file or a trailing `/` is the same
   * savepoint), if any: what a restore from it reports as `latest.restored.id` and numbers its checkpoints on from.
   */
  savepointIdAt(path: string): number | undefined {
    const dir = path.replace(/\/_metadata$/, '').replace(/\/+$/, '');
    for (const list of this.savepoints.values()) for (const sp of list) if (sp.path === dir) return sp.id;
    return undefined;
  }

  /** The latest savepoint Flink completed for the job (REST `latest.savepoint`), if any. */
  latestSavepoint(jobId: string): CompletedSavepoint | undefined {
    return this.savepoints.get(jobId)?.at(-1);
  }

  restoredFromHa(jobId: string, restore: HaRestore): void {
    this.haRestores.set(jobId, restore);
  }

  haRestore(jobId: string): HaRestore | undefined {
    return this.haRestores.get(jobId);
  }

  /** The job's checkpoints fail from `from` (ms, the JobManager's clock) on, in the run started at `startTime`. */
  failCheckpointsFrom(jobId: string, startTime: string, from: number): void {
    this.checkpointFailures.set(jobId, { startTime, from });
  }

  /** When the run started at `startTime` began failing its checkpoints, if it was told to. */
  checkpointsFailingFrom(jobId: string, startTime: string): number | undefined {
    const failure = this.checkpointFailures.get(jobId);
    return failure?.startTime === startTime ? failure.from : undefined;
  }

  /**
   * The run started at `startTime` handled a root exception. Its JobMaster keeps the newest `size` of them in
   * memory, independent of Kubernetes: they outlive the operator's events and are gone with the run.
   */
  recordException(jobId: string, startTime: string, entry: ExceptionEntry, size = EXCEPTION_HISTORY_SIZE): void {
    const known = this.exceptions.get(jobId);
    const run = known?.startTime === startTime ? known : { startTime, entries: [], restarts: 0 };
    run.entries = [entry, ...run.entries].slice(0, Math.max(0, size));
    run.restarts += 1;
    this.exceptions.set(jobId, run);
  }

  /** The exception history of the run started at `startTime`, newest first, and how many it handled in all. */
  exceptionHistory(jobId: string, startTime: string): { entries: ExceptionEntry[]; restarts: number } {
    const run = this.exceptions.get(jobId);
    return run?.startTime === startTime
      ? { entries: [...run.entries], restarts: run.restarts }
      : { entries: [], restarts: 0 };
  }
}
