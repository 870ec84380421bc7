// What each operation kind changes on the target (SPEC §3 "change submitted"), as field edits or a snapshot.
import type { IntentOf, UpgradeMode } from '../model/intent.js';
import { getPath } from '../model/merge-patch.js';
import {
  deploymentNameOf,
  imageOf,
  jobStateOf,
  parallelismOf,
  restartNonceOf,
  savepointRedeployNonceOf,
  upgradeModeOf,
} from '../model/resource.js';
import { formatTarget, type Target } from '../model/target.js';

/** The kinds planned directly against a target; `undo` is planned from the undone operation (undo.ts). */
export type PlannableKind = 'suspend' | 'resume' | 'restart' | 'scale' | 'upgrade' | 'savepoint' | 'restore';
export type PlannableIntent = IntentOf<PlannableKind>;

/** One field the patch sets; `after: null` removes it (merge patch). */
export interface FieldEdit {
  path: readonly string[];
  after: unknown;
}

export type KindOutcome =
  | { ok: true; type: 'patch'; edits: FieldEdit[]; notes: string[]; effectiveUpgradeMode?: UpgradeMode }
  | { ok: true; type: 'create-snapshot' }
  | { ok: false; refusal: string };

export interface KindInput<K extends PlannableKind> {
  intent: IntentOf<K>;
  resource: unknown;
  sessionCluster: boolean;
  nonce: number;
}

export const PATHS = {
  jobState: ['spec', 'job', 'state'],
  upgradeMode: ['spec', 'job', 'upgradeMode'],
  parallelism: ['spec', 'job', 'parallelism'],
  image: ['spec', 'image'],
  restartNonce: ['spec', 'restartNonce'],
  initialSavepointPath: ['spec', 'job', 'initialSavepointPath'],
  savepointRedeployNonce: ['spec', 'job', 'savepointRedeployNonce'],
  allowNonRestoredState: ['spec', 'job', 'allowNonRestoredState'],
} as const satisfies Record<string, readonly string[]>;

/** The operator's own default when `spec.job.upgradeMode` is unset (JobSpec.upgradeMode = STATELESS). */
export const DEFAULT_UPGRADE_MODE: UpgradeMode = 'stateless';

/** The mode the operator will redeploy with: `--mode`, else the resource's, else stateless. */
export function effectiveMode(requested: UpgradeMode | undefined, resource: unknown): UpgradeMode {
  return requested ?? upgradeModeOf(resource) ?? DEFAULT_UPGRADE_MODE;
}

/** The `spec.job.upgradeMode` edit and its card note when `--mode` changes the resource's mode. */
function modeEdit(requested: UpgradeMode | undefined, resource: unknown): { edits: FieldEdit[]; notes: string[] } {
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

function patch(edits: FieldEdit[], notes: string[], mode: UpgradeMode | undefined): KindOutcome {
  return { ok: true, type: 'patch', edits, notes, ...(mode === undefined ? {} : { effectiveUpgradeMode: mode }) };
}

function refuse(refusal: string): KindOutcome {
  return { ok: false, refusal };
}

function who(target: Target): string {
  return formatTarget(target);
}

export const KIND_PLANNERS = {
  suspend: ({ intent, resource }: KindInput<'suspend'>) => {
    if (jobStateOf(resource) === 'suspended') {
      return refuse(`${who(intent.target)} is already suspended (spec.job.state: suspended); nothing to do`);
    }
    const mode = modeEdit(intent.mode, resource);
    return patch([{ path: PATHS.jobState, after: 'suspended' }, ...mode.edits], mode.notes, effectiveMode(intent.mode, resource));
  },
  resume: ({ intent, resource }: KindInput<'resume'>) => {
    const state = jobStateOf(resource);
    if (state !== 'suspended') {
      const shown = state === undefined ? 'unset, which means running' : state;
      return refuse(`${who(intent.target)} is already running (spec.job.state: ${shown}); nothing to do — to redeploy it, use restart`);
    }
    return patch([{ path: PATHS.jobState, after: 'running' }], [], effectiveMode(undefined, resource));
  },
  restart: ({ resource, nonce }: KindInput<'restart'>) => {
    const after = freshNonce(nonce, restartNonceOf(resource));
    return patch([{ path: PATHS.restartNonce, after }], [], effectiveMode(undefined, resource));
  },
  scale: ({ intent, resource }: KindInput<'scale'>) => {
    if (parallelismOf(resource) === intent.parallelism) {
      return refuse(`${who(intent.target)} already has parallelism ${intent.parallelism} (spec.job.parallelism); nothing to do`);
    }
    return patch([{ path: PATHS.parallelism, after: intent.parallelism }], [], effectiveMode(undefined, resource));
  },
  upgrade: ({ intent, resource, sessionCluster }: KindInput<'upgrade'>) => {
    if (imageOf(resource) === intent.image) {
      return refuse(`${who(intent.target)} already runs image ${intent.image} (spec.image); nothing to do`);
    }
    if (sessionCluster) {
      if (intent.mode !== undefined) {
        return refuse(`--mode does not apply to ${who(intent.target)}: a session cluster has no job and so no upgrade mode; drop --mode`);
      }
      return patch([{ path: PATHS.image, after: intent.image }], [], DEFAULT_UPGRADE_MODE);
    }
    const mode = modeEdit(intent.mode, resource);
    return patch([{ path: PATHS.image, after: intent.image }, ...mode.edits], mode.notes, effectiveMode(intent.mode, resource));
  },
  savepoint: () => ({ ok: true, type: 'create-snapshot' }) as const,
  restore: ({ intent, resource, nonce }: KindInput<'restore'>) => {
    const edits: FieldEdit[] = [
      { path: PATHS.initialSavepointPath, after: intent.from },
      { path: PATHS.savepointRedeployNonce, after: freshNonce(nonce, savepointRedeployNonceOf(resource)) },
    ];
    const notes: string[] = [];
    if (intent.allowNonRestoredState) {
      if (getPath(resource, PATHS.allowNonRestoredState) !== true) edits.push({ path: PATHS.allowNonRestoredState, after: true });
      notes.push('spec.job.allowNonRestoredState: true stays set after the restore: later redeploys also skip state that no operator claims');
    }
    if (jobStateOf(resource) === 'suspended') notes.push(suspendedRestoreNote(intent.target, resource));
    return patch(edits, notes, effectiveMode(undefined, resource));
  },
} as const satisfies { [K in PlannableKind]: (input: KindInput<K>) => KindOutcome };

function suspendedRestoreNote(target: Target, resource: unknown): string {
  const base = `${who(target)} is suspended: the operator only records the savepoint path; the job stays suspended until resume`;
  if (effectiveMode(undefined, resource) !== 'stateless') return `${base}, which restores from it`;
  return `${base}, but its upgradeMode is stateless, so a resume would start from empty state — resume with a stateful mode`;
}

/** Verbs a session cluster (a FlinkDeployment without spec.job) accepts: it has no job to act on. */
export const SESSION_CLUSTER_KINDS: readonly PlannableKind[] = ['restart', 'upgrade'];

/** Why `kind` does not apply to this target, or undefined when it does (SPEC §5). */
export function notApplicable(kind: PlannableKind, target: Target, resource: unknown, sessionCluster: boolean): string | undefined {
  if (target.kind === 'FlinkSessionJob' && kind === 'upgrade') {
    const deployment = deploymentNameOf(resource);
    const cluster = deployment === undefined ? '' : ` (${target.namespace}/${deployment})`;
    return `session jobs have no image; upgrade the session cluster${cluster}`;
  }
  if (sessionCluster && !SESSION_CLUSTER_KINDS.includes(kind)) {
    return (
      `${who(target)} is a session cluster (a FlinkDeployment without spec.job): only restart and upgrade apply to it; ` +
      `to ${kind} one of its jobs, target the job as sessionjob:${target.namespace}/<name>`
    );
  }
  return undefined;
}
