// GitOps on the card and in the thread (docs/policy.md#gitops-managed-targets): who manages the target in Git, which
// planned fields Git will put back, a pause and how to end it, and each revert seen after COMPLETED.
import { isRevert } from '../../domain/kit/evidence/reverts.js';
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import type { PlanGitops } from '../../domain/model/plan.js';
import { formatTarget } from '../../domain/model/target.js';
import { GITOPS_CHECK } from '../../domain/engines/planning/gitops.js';
import { escapeText, formatValue, section, slackDate, type Block } from './text.js';

/** Reverts shown on the card; the rest are in the thread. */
const MAX_REVERTS = 3;

const fieldList = (paths: readonly string[]): string => paths.map((p) => `\`${escapeText(p)}\``).join(', ');

/** What the plan says about Git, in lines; none when nobody manages the target. */
export function gitopsLines(gitops: PlanGitops | undefined, target: string, command: string): string[] {
  if (!gitops?.owner) return [];
  const owner = escapeText(gitops.owner);
  const lines: string[] = [];
  if (gitops.declared.length === 0) {
    lines.push(`Managed by ${owner}: no field of this change is declared in Git.`);
  } else {
    const verb = gitops.declared.length === 1 ? 'is' : 'are';
    const paused = gitops.paused || gitops.pauses;
    const fate = gitops.skipped
      ? `, but Flux does not apply Git to the target (\`${escapeText(gitops.skipped)}\`), so the change sticks`
      : paused
        ? ' and would be reverted without the pause'
        : ' and will be reverted';
    lines.push(`Managed by ${owner}: ${fieldList(gitops.declared)} ${verb} declared in Git${fate}.`);
  }
  if (gitops.source === 'unknown')
    lines.push('The object does not say which fields Git declares: every field of the change counts as declared.');
  if (gitops.undeclared.length > 0 && gitops.declared.length > 0)
    lines.push(`Not declared in Git (they stick): ${fieldList(gitops.undeclared)}.`);
  const resume = `\`${command} gitops resume ${escapeText(target)}\``;
  if (gitops.pauses)
    lines.push(
      `This change also pauses Flux for the target (\`kustomize.toolkit.fluxcd.io/reconcile: disabled\`): commit the change to Git, then run ${resume}.`,
    );
  else if (gitops.paused) lines.push(`Flux is paused for the target: Git is not applied until ${resume}.`);
  return lines;
}

const detailString = (entry: HistoryEntry, key: string): string | undefined =>
  typeof entry.detail[key] === 'string' ? entry.detail[key] : undefined;

/** "reverted by argocd-controller (Argo CD application team-a_orders) at <time>: spec.job.parallelism 8 → 4". */
export function revertText(entry: HistoryEntry): string {
  const path = Array.isArray(entry.detail.path) ? entry.detail.path.map(String).join('.') : '?';
  const manager = detailString(entry, 'manager') ?? 'unknown';
  const owner = detailString(entry, 'gitopsOwner');
  const at = typeof entry.detail.at === 'number' ? entry.detail.at : entry.at;
  const by = `${escapeText(manager)}${owner ? ` (${escapeText(owner)})` : ''}`;
  const change = `${escapeText(path)} ${escapeText(formatValue(entry.detail.from))} → ${escapeText(formatValue(entry.detail.to))}`;
  const effect = detailString(entry, 'effect');
  return `Reverted by ${by} at ${slackDate(at)}: ${change}${effect ? `. ${escapeText(effect)}.` : ''}`;
}

export { isRevert };

/** The card's GitOps section: the plan's words, then the latest reverts; undefined when there is nothing to say. */
export function gitopsSection(record: OperationRecord, command: string): Block | undefined {
  // The `gitops` check already names the owner and the declared fields under Checks: not twice on one card.
  const checked = record.decision?.checks.some((c) => c.name === GITOPS_CHECK) === true;
  const lines = gitopsLines(record.plan?.gitops, formatTarget(record.target), command).filter(
    (line) => !(checked && line.startsWith('Managed by ')),
  );
  const reverts = record.history.filter(isRevert);
  for (const entry of reverts.slice(-MAX_REVERTS)) lines.push(`:rewind: ${revertText(entry)}`);
  if (reverts.length > MAX_REVERTS) lines.push(`_${reverts.length - MAX_REVERTS} earlier reverts are in the thread_`);
  if (lines.length === 0) return undefined;
  return section(`*GitOps*\n${lines.join('\n')}`);
}
