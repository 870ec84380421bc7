// Refusals before planning that depend on what the target's job is doing (the kind's own, then a job the operator would
// wait on), and the plan note for a savepoint-mode target the operator will redeploy from its HA checkpoint instead.
import { haConfigured, readFlinkConfig } from '../../model/flink-config.js';
import { getPath } from '../../model/merge-patch.js';
import { jobManagerStatusOf, jobSpecOf, jobStatusStateOf, lastReconciledSpecOf } from '../../model/resource.js';
import { formatTarget } from '../../model/target.js';
import { MODE, effectiveUpgradeMode, type UpgradeMode } from '../../model/upgrade-mode.js';
import { kindModule, type KindIntent } from '../../kinds/index.js';
import type { PreflightInput } from '../../kit/planning/edits.js';

export const LAST_STATE_FALLBACK_KEY = 'kubernetes.operator.job.upgrade.last-state-fallback.enabled';
/** The job states in which the operator does not stop anything: it restores from the savepoint in the status. */
const TERMINAL_JOB_STATES: ReadonlySet<string> = new Set(['FAILED', 'FINISHED', 'CANCELED']);

/** The refusal that applies to this intent on this target, or undefined: the kind's own first, then E6. */
export function preflightRefusal(input: PreflightInput<KindIntent>): string | undefined {
  return kindModule(input.intent.kind).refuseBefore?.(input) ?? notUpgradeableYet(input);
}

/** The mode the operator will redeploy with, or undefined when the change redeploys nothing (or there is no job). */
function redeployMode(input: PreflightInput<KindIntent>): UpgradeMode | undefined {
  const { intent, resource } = input;
  const module = kindModule(intent.kind);
  // The kinds that redeploy the running job with its upgrade mode (the ones refused on a suspended target).
  if (!module.traits.refusedWhileSuspended || input.sessionCluster || jobSpecOf(resource) === undefined)
    return undefined;
  if (module.redeploysJob?.(intent, resource) === false) return undefined;
  return effectiveUpgradeMode('mode' in intent ? intent.mode : undefined, resource);
}

function config(input: PreflightInput, keys: readonly string[]) {
  const layered = input.intent.target.kind === 'FlinkSessionJob' ? (input.sessionClusterResource ?? {}) : undefined;
  return readFlinkConfig(input.resource, keys, layered);
}

function hasHa(input: PreflightInput): boolean {
  return haConfigured(
    input.resource,
    input.intent.target.kind === 'FlinkSessionJob' ? (input.sessionClusterResource ?? {}) : undefined,
  );
}

/**
 * Why the operator would wait ("waiting for upgradeable state") instead of acting, following its choice of how to
 * stop the job: a cancel in progress; a savepoint that cannot be taken with the last-state fallback off; a job it
 * cannot reach (RECONCILING) that has no HA metadata to restore from, or is a session job. Terminal jobs are not
 * waited on (they restore from the savepoint in the status); other non-running states are cancelled.
 */
function waitReason(input: PreflightInput<KindIntent>, mode: UpgradeMode): string | undefined {
  const state = jobStatusStateOf(input.resource);
  if (mode === MODE.stateless || state === 'RUNNING' || (state !== undefined && TERMINAL_JOB_STATES.has(state)))
    return undefined;
  const shownState = state ?? 'not reported';
  if (state === 'CANCELLING') return 'its job is CANCELLING and the operator waits for the cancel to finish';
  if (mode === MODE.savepoint && config(input, [LAST_STATE_FALLBACK_KEY])?.value.trim().toLowerCase() === 'false') {
    return `its job is ${shownState}, so no savepoint can be taken, and ${LAST_STATE_FALLBACK_KEY} is false, so the operator does not fall back to last-state`;
  }
  if (state !== undefined && state !== 'RECONCILING') return undefined;
  if (input.intent.target.kind === 'FlinkSessionJob')
    return `its job is ${shownState}: the operator cannot stop a session job it cannot reach`;
  if (hasHa(input)) return undefined;
  const jm = jobManagerStatusOf(input.resource);
  const recorded = getPath(lastReconciledSpecOf(input.resource), ['job', 'upgradeMode']);
  // A JobManager that never came up is dropped and the job restored from the status; a missing one is an error.
  if (jm === 'MISSING' || jm === 'ERROR' || (jm === 'DEPLOYING' && recorded !== MODE.lastState)) return undefined;
  return `its job is ${shownState} (the operator cannot reach it) and it has no high availability, so there is no state it could carry over`;
}

/** E6: the operator would record the change and wait; refused with what works now. */
function notUpgradeableYet(input: PreflightInput<KindIntent>): string | undefined {
  const mode = redeployMode(input);
  const why = mode === undefined ? undefined : waitReason(input, mode);
  if (why === undefined || mode === undefined) return undefined;
  const { intent } = input;
  const shown = formatTarget(intent.target);
  const stateless = kindModule(intent.kind).traits.hasMode
    ? '`--mode stateless` (starts without state)'
    : 'a stateless change (spec.job.upgradeMode: stateless; the job starts without state)';
  return (
    `${shown} is not upgradeable yet in ${mode} mode: ${why}; the operator would record the ${intent.kind} and wait. ` +
    `Instead: wait until the job is RUNNING, restore it from a savepoint with \`/flink restore ${shown} --from <savepoint>\`, or use ${stateless}`
  );
}

/** E2: the plan's note when the operator will fall back to last-state instead of taking a savepoint. */
export function fallbackNote(input: PreflightInput<KindIntent>): string | undefined {
  const mode = redeployMode(input);
  const state = jobStatusStateOf(input.resource);
  if (mode !== MODE.savepoint || state === undefined || state === 'RUNNING' || TERMINAL_JOB_STATES.has(state))
    return undefined;
  if (input.intent.target.kind === 'FlinkSessionJob' || !hasHa(input) || waitReason(input, mode) !== undefined)
    return undefined;
  return `the job is ${state}, not RUNNING: the operator will fall back to last-state — no savepoint is taken; the job restores from its latest checkpoint (HA metadata)`;
}
