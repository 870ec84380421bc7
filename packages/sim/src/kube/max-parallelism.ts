// The max parallelism of a simulated job's vertices as Flink settles it when the job starts
// (docs/sandbox.md#max-parallelism): `pipeline.max-parallelism` when set, else the restored state's, else derived
// from the vertex's parallelism; a restore whose parallelism exceeds the state's fails the job.
import type { JobFailure } from './job-failure.js';
import type { RestoreRefusal, SettledRun } from './jobmanager-state.js';

/** Flink's bounds for a derived max parallelism (KeyGroupRangeAssignment). */
const DERIVED_FLOOR = 128;
const UPPER_BOUND = 32_768;

/** KeyGroupRangeAssignment.computeDefaultMaxParallelism: 1.5 × p rounded up to a power of two, within 128..32768. */
export function defaultMaxParallelism(parallelism: number): number {
  const wanted = parallelism + Math.floor(parallelism / 2);
  const powerOfTwo = 2 ** Math.ceil(Math.log2(Math.max(1, wanted)));
  return Math.min(Math.max(powerOfTwo, DERIVED_FLOOR), UPPER_BOUND);
}

/** `pipeline.max-parallelism` as a whole number, else undefined (unset: Flink's ExecutionConfig says -1). */
export function configuredMaxParallelism(conf: Readonly<Record<string, string>>): number | undefined {
  const value = Number(conf['pipeline.max-parallelism']);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The maxima of a run starting now. Unset in the configuration, a vertex takes the max parallelism its restored
 * state carries (the state's key groups decide it), else the derived one; a vertex whose parallelism exceeds what
 * its state carries cannot be restored.
 */
export function settleRun(
  vertices: readonly { id: string; parallelism: number }[],
  configured: number | undefined,
  restored: ReadonlyMap<string, number> | undefined,
): SettledRun {
  const maxima = new Map<string, number>();
  let refused: RestoreRefusal | undefined;
  for (const v of vertices) {
    const stateMax = restored?.get(v.id);
    if (stateMax !== undefined && v.parallelism > stateMax)
      refused ??= { vertexId: v.id, stateMax, parallelism: v.parallelism };
    maxima.set(v.id, configured ?? stateMax ?? defaultMaxParallelism(v.parallelism));
  }
  return refused === undefined ? { maxima } : { maxima, refused };
}

/** What Flink reports when the JobMaster cannot restore the state (StateAssignmentOperation's check). */
export function restoreRefused(refusal: RestoreRefusal): JobFailure {
  const message =
    `The state for task ${refusal.vertexId} can not be restored. The maximum parallelism (${refusal.stateMax}) of ` +
    `the restored state is lower than the configured parallelism (${refusal.parallelism}). Please reduce the ` +
    'parallelism of the task to be lower or equal to the maximum parallelism.';
  return {
    root: `java.lang.IllegalStateException: ${message}`,
    causes: [{ type: 'java.lang.IllegalStateException', message }],
    wrapper: {
      type: 'org.apache.flink.runtime.client.JobInitializationException',
      message: 'Could not start the JobMaster.',
    },
    checkpointed: false,
  };
}
