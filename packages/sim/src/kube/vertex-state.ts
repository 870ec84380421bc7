// The execution state of each subtask of a simulated job's vertices, and the vertex status Flink derives from
// them (docs/sandbox.md#subtasks-and-vertex-status): `tasks` counts subtasks per ExecutionState, `status` is
// their aggregate, as Flink's ExecutionJobVertex.getAggregateJobVertexState computes it.

/** Flink's ExecutionState values, in its declaration order: a vertex's `tasks` has one count for each. */
export const EXECUTION_STATES = [
  'CREATED',
  'SCHEDULED',
  'DEPLOYING',
  'RUNNING',
  'FINISHED',
  'CANCELING',
  'CANCELED',
  'FAILED',
  'RECONCILING',
  'INITIALIZING',
] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];
export type TaskCounts = Record<ExecutionState, number>;

/** How many of `p` subtasks are in each state; `states` lists the state of some, the rest take `rest`. */
export function countTasks(p: number, rest: ExecutionState, states: Partial<TaskCounts> = {}): TaskCounts {
  const counts = Object.fromEntries(EXECUTION_STATES.map((s) => [s, states[s] ?? 0])) as TaskCounts;
  const given = EXECUTION_STATES.reduce((sum, s) => sum + counts[s], 0);
  counts[rest] += Math.max(0, p - given);
  return counts;
}

/**
 * The vertex status: FAILED, CANCELING, CANCELED, INITIALIZING, RUNNING as soon as any subtask is in it (in that
 * order); FINISHED only when every subtask finished (some finished, the others not yet started: RUNNING); else
 * CREATED — SCHEDULED and DEPLOYING never show as a vertex status.
 */
export function aggregateState(counts: TaskCounts, parallelism: number): ExecutionState {
  for (const state of ['FAILED', 'CANCELING', 'CANCELED', 'INITIALIZING', 'RUNNING'] as const)
    if (counts[state] > 0) return state;
  if (counts.FINISHED > 0) return counts.FINISHED === parallelism ? 'FINISHED' : 'RUNNING';
  return 'CREATED';
}

/** What the subtasks of one vertex are doing, as the REST view sees the job. */
export interface VertexRun {
  /** The job's state (JobStatus), as the operator observed it. */
  jobState: string;
  parallelism: number;
  /** The vertex's bounded input is done (only while the job runs). */
  finished: boolean;
  /** Subtasks of this vertex that got no slot (the `tasks-waiting` knob). */
  waiting: number;
  /** Subtasks of this vertex whose failure failed the job (when it FAILED): their slot request timed out, or one. */
  failed: number;
}

/**
 * The subtask counts of a vertex. A running job's subtasks run (or wait for a slot, SCHEDULED; or finished); a job
 * not yet running has them CREATED; RESTARTING and the stops cancel them; a FAILED job has the subtasks that failed
 * it FAILED and cancelled the others; a FINISHED job finished them.
 */
export function vertexTasks(run: VertexRun): TaskCounts {
  const p = run.parallelism;
  const waiting = Math.min(run.waiting, p);
  switch (run.jobState) {
    case 'RUNNING':
      return run.finished ? countTasks(p, 'FINISHED') : countTasks(p, 'RUNNING', { SCHEDULED: waiting });
    case 'RESTARTING':
    case 'CANCELED':
    case 'SUSPENDED':
      return countTasks(p, 'CANCELED');
    case 'CANCELLING':
    case 'FAILING':
      return countTasks(p, 'CANCELING');
    case 'FAILED':
      return countTasks(p, 'CANCELED', { FAILED: Math.min(run.failed, p) });
    case 'FINISHED':
      return countTasks(p, 'FINISHED');
    default:
      return countTasks(p, 'CREATED');
  }
}
