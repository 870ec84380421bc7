// The building blocks of a kind's plan: field paths, field edits, the plan outcome, nonces and `--mode` edits.
import { getPath } from '../../model/merge-patch.js';
import { formatTarget, type Target } from '../../model/target.js';
import { DEFAULT_UPGRADE_MODE, type UpgradeMode } from '../../model/upgrade-mode.js';
import { upgradeModeOf } from '../../model/resource.js';

/** One field the patch sets; `after: null` removes it (merge patch). */
export interface FieldEdit {
  path: readonly string[];
  after: unknown;
}

export type KindOutcome =
  | { ok: true; type: 'patch'; edits: FieldEdit[]; notes: string[]; effectiveUpgradeMode?: UpgradeMode }
  | { ok: true; type: 'create-snapshot'; savepointPath?: string }
  | { ok: false; refusal: string };

/** What a kind plans against: its intent and the live target as read. */
export interface PlanInput<I> {
  intent: I;
  resource: unknown;
  sessionCluster: boolean;
  /** A fresh int64-safe integer for restartNonce / savepointRedeployNonce. */
  nonce: number;
  /** A FlinkSessionJob's session cluster as read (its configuration lies under the job's). */
  sessionClusterResource?: unknown;
}

/** A field of the target's spec a kind edits, e.g. `['spec', 'job', 'parallelism']`. */
export type FieldPath = readonly ['spec', ...string[]];

/** The fields several kinds and the undo plan edit; a field only one kind edits is named in that kind's module. */
export const PATHS = {
  jobState: ['spec', 'job', 'state'],
  upgradeMode: ['spec', 'job', 'upgradeMode'],
} as const satisfies Record<string, FieldPath>;

/** The `spec.job.upgradeMode` edit and its card note when `--mode` changes the resource's mode. */
export function modeEdit(
  requested: UpgradeMode | undefined,
  resource: unknown,
): { edits: FieldEdit[]; notes: string[] } {
  const current = upgradeModeOf(resource) ?? DEFAULT_UPGRADE_MODE;
  if (requested === undefined || requested === current) return { edits: [], notes: [] };
  return {
    edits: [{ path: PATHS.upgradeMode, after: requested }],
    notes: [`spec.job.upgradeMode changes from ${current} to ${requested}: later operations will use ${requested} too`],
  };
}

/** A nonce the operator sees as new: it acts only when the value differs from the current one. */
export function freshNonce(nonce: number, current: number | undefined): number {
  return nonce === current ? nonce + 1 : nonce;
}

export function patchOutcome(edits: FieldEdit[], notes: string[], mode: UpgradeMode | undefined): KindOutcome {
  return { ok: true, type: 'patch', edits, notes, ...(mode === undefined ? {} : { effectiveUpgradeMode: mode }) };
}

export function refusal(text: string): KindOutcome {
  return { ok: false, refusal: text };
}

export function who(target: Target): string {
  return formatTarget(target);
}

/** The value a field path holds in a patch or resource (undefined when absent). */
export function valueAt(source: unknown, path: readonly string[]): unknown {
  return getPath(source, path);
}

/** What the preflight reads besides the intent: the target as read, its session cluster, REST's vertex names. */
export interface PreflightInput<I extends { kind: string; target: Target } = { kind: string; target: Target }> {
  intent: I;
  resource: unknown;
  /** A FlinkSessionJob's session cluster (its configuration lies under the job's). */
  sessionClusterResource?: unknown;
  /** The target is a session cluster (a FlinkDeployment without spec.job). */
  sessionCluster: boolean;
  /** Vertex id → name from Flink REST, when the caller read them; ids are shown otherwise. */
  vertexNames?: Record<string, string>;
}
