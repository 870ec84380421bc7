// What a target's GitOps owner means for one plan (docs/policy.md#gitops-managed-targets): which planned fields Git
// declares, the `gitops` check the card shows before anyone approves (warn, refuse, pause), the pause annotations in
// the same merge patch, and the restore rule.
import type { CheckResult } from '../../model/decision.js';
import {
  ANNOTATION_FLUX_RECONCILE,
  ANNOTATION_GITOPS_PAUSED_BY,
  declaredPaths,
  detectGitops,
  ownerWords,
  type GitopsOwner,
} from '../../model/gitops.js';
import { patchLeaves, type FieldPath } from '../../model/managed-fields.js';
import { getPath, setPath, type JsonRecord } from '../../model/merge-patch.js';
import { ANNOTATION_OPERATION_ID, type Plan, type PlanGitops } from '../../model/plan.js';
import { formatTarget } from '../../model/target.js';
import type { GitopsSettings } from '../policy/gitops.js';
import { planDigest } from './planner.js';

export const GITOPS_CHECK = 'gitops';

export interface GitopsInput {
  plan: Plan;
  /** The target as read for the plan. */
  resource: unknown;
  /** The kind as policy names it (`exempt` lists these), and the kind the plan is judged as (restore's rule). */
  intentKind: string;
  effectiveKind: string;
  settings: GitopsSettings;
}

export interface GitopsOutcome {
  plan: Plan;
  checks: CheckResult[];
}

/** The fields a redeploy from Git's savepoint path depends on (a restore must not be reverted). */
const SAVEPOINT_PATHS: FieldPath[] = [
  ['spec', 'job', 'initialSavepointPath'],
  ['spec', 'job', 'savepointRedeployNonce'],
];

const shown = (paths: readonly FieldPath[]): string => paths.map((p) => `\`${p.join('.')}\``).join(', ');
const are = (paths: readonly unknown[]): string => (paths.length === 1 ? 'is' : 'are');

/** The plan with its `gitops` part (and, for `pause` on a Flux target, the pause annotations), and the check. */
export function assessGitops(input: GitopsInput): GitopsOutcome {
  const { plan, resource, settings } = input;
  if ((settings.exempt as readonly string[]).includes(input.intentKind)) return { plan, checks: [] };
  const owner = detectGitops(resource);
  const paths = plan.change.type === 'patch' ? patchLeaves(plan.change.patch, ['spec']) : [];
  const declared = owner ? declaredPaths(resource, owner, paths) : undefined;
  const gitops: PlanGitops = {
    ...(owner ? { owner: ownerWords(owner), tool: owner.tool } : {}),
    declared: (declared?.owned ?? []).map((p) => p.join('.')),
    undeclared: (declared?.unowned ?? paths).map((p) => p.join('.')),
    ...(declared ? { source: declared.source } : {}),
    onManaged: settings.onManaged,
    pauses: false,
    paused: owner?.paused ?? false,
    ...(owner?.skipped ? { skipped: owner.skipped } : {}),
    revertWatchMs: settings.revertWatchMs,
  };
  if (!owner || !declared) return { plan: { ...plan, gitops }, checks: [] };
  const pauses =
    settings.onManaged === 'pause' && owner.tool === 'flux-kustomization' && !owner.paused && !owner.skipped;
  const checks = [ownedCheck(input, owner, declared.owned)];
  if (input.effectiveKind === 'restore') checks.push(restoreCheck(resource, owner, pauses));
  const planned = { ...plan, gitops: { ...gitops, pauses: pauses && declared.owned.length > 0 } };
  return { plan: planned.gitops.pauses ? withPause(planned) : planned, checks };
}

function ownedCheck(input: GitopsInput, owner: GitopsOwner, owned: readonly FieldPath[]): CheckResult {
  const who = `managed by ${ownerWords(owner)}`;
  const ok = (message: string): CheckResult => ({ name: GITOPS_CHECK, outcome: 'pass', message });
  if (owned.length === 0) return ok(`${who}: no field of this change is declared in Git`);
  const fields = `${shown(owned)} ${are(owned)} declared in Git`;
  if (owner.paused) return ok(`${who}: ${fields}, but Flux is paused for the target, so the change sticks`);
  if (owner.skipped)
    return ok(`${who}: ${fields}, but Flux does not apply Git to it (${owner.skipped}), so the change sticks`);
  const target = formatTarget(input.plan.target);
  switch (input.settings.onManaged) {
    case 'refuse':
      return {
        name: GITOPS_CHECK,
        outcome: 'fail',
        message: `${who}: ${fields}; change it in Git instead (policy gitops.onManaged: refuse)`,
      };
    case 'pause':
      if (owner.tool === 'flux-kustomization')
        return {
          name: GITOPS_CHECK,
          outcome: 'warn',
          message: `${who}: ${fields}; this change also pauses Flux for the target — commit it to Git, then resume it with \`gitops resume ${target}\``,
        };
      return { name: GITOPS_CHECK, outcome: 'fail', message: `${who}: ${fields}; ${pauseRefusal(owner)}` };
    case 'warn':
      return { name: GITOPS_CHECK, outcome: 'warn', message: `${who}: ${fields} and will be reverted` };
  }
}

/** Why `pause` cannot work for this owner, and what to do instead. */
function pauseRefusal(owner: GitopsOwner): string {
  const name = owner.name ?? '(its name is not on the object)';
  const instead =
    owner.tool === 'argocd'
      ? `disable self-heal on application ${name}`
      : owner.tool === 'flux-helmrelease'
        ? `suspend HelmRelease ${name}`
        : `upgrade Helm release ${name} with the new value`;
  return `pause is supported for Flux-managed targets; change Git, or ${instead}`;
}

/** A restore whose savepoint fields Git owns would be redeployed from Git's path by a revert: denied unless paused. */
function restoreCheck(resource: unknown, owner: GitopsOwner, pauses: boolean): CheckResult {
  const owned = declaredPaths(resource, owner, SAVEPOINT_PATHS).owned;
  const name = 'gitops-restore';
  if (owned.length === 0)
    return { name, outcome: 'pass', message: 'Git declares neither savepoint field: a revert cannot redeploy' };
  if (owner.paused || pauses)
    return { name, outcome: 'pass', message: `${shown(owned)} ${are(owned)} declared in Git, but Flux is paused` };
  if (owner.skipped)
    return {
      name,
      outcome: 'pass',
      message: `${shown(owned)} ${are(owned)} declared in Git, but Flux skips the target`,
    };
  return {
    name,
    outcome: 'fail',
    message: `restore is denied: ${shown(owned)} ${are(owned)} declared in Git by ${ownerWords(owner)}, so a revert would redeploy from Git's savepoint path; pause the target or restore through Git`,
  };
}

/** The same merge patch, also pausing Flux for the target and saying which operation did. */
function withPause(plan: Plan): Plan {
  if (plan.change.type !== 'patch') return plan;
  const patch = structuredClone(plan.change.patch) as JsonRecord;
  const opId = getPath(patch, ['metadata', 'annotations', ANNOTATION_OPERATION_ID]);
  const edits: [string, unknown][] = [
    [ANNOTATION_FLUX_RECONCILE, 'disabled'],
    [ANNOTATION_GITOPS_PAUSED_BY, opId],
  ];
  for (const [key, value] of edits) setPath(patch, ['metadata', 'annotations', key], value);
  const change = { type: 'patch' as const, patch };
  const digest = planDigest({ target: plan.target, uid: plan.uid, generation: plan.generation, change });
  return { ...plan, change, digest };
}
