// Evidence for a change the operator classifies as IGNORE (e.g. kubernetes.operator.* keys): no redeploy happens.
import {
  criterion,
  desiredFields,
  generationObserved,
  noBlockingWarnings,
  reconciledDeployed,
  type Ctx,
} from './criteria.js';
import { describeEvent } from './events.js';
import { statusNotes } from './failures.js';
import { getPath } from '../../model/merge-patch.js';
import { shownAt } from '../../model/secret-config.js';
import { observedGenerationOf } from '../../model/resource.js';
import type { Criterion, Failure, Judgement } from './types.js';
import { classifyWarnings } from './warnings.js';

/** The spec (what the operator reads IGNORE-class values from) holds every field the patch set; null = absent. */
function specHolds(ctx: Ctx): Criterion[] {
  return desiredFields(ctx.plan).map((field) => {
    const actual = getPath(ctx.resource, ['spec', ...field.specPath]);
    const met =
      field.value === null
        ? actual === undefined || actual === null
        : JSON.stringify(actual) === JSON.stringify(field.value);
    return criterion(ctx, `spec-holds:${field.path}`, met, shownAt(field.path, actual), `${field.path} (current spec)`);
  });
}

/** A ValidationError or UpgradeFailed after the submission: the operator refused the new spec. */
function terminal(events: string[]): Failure | undefined {
  if (events.length === 0) return undefined;
  return { reason: `the operator rejected the change: ${events[0] ?? ''}`, rollback: false, evidence: events };
}

/**
 * Complete (docs/lifecycle.md#per-kind) once the operator observed our generation (it advances observedGeneration for
 * IGNORE-only diffs, 1.11+) with reconciliation DEPLOYED and the spec carrying the values; no job or JobManager
 * criteria. The operator reads these keys from the current spec; lastReconciledSpec keeps the old values until the next
 * upgrade (docs/lifecycle.md#operator-traps), so it is reported, not required.
 */
export function ignoreClassRule(ctx: Ctx, what: string): Judgement {
  const warnings = classifyWarnings(ctx, false);
  const criteria = [
    generationObserved(ctx),
    reconciledDeployed(ctx),
    ...specHolds(ctx),
    noBlockingWarnings(ctx, warnings.blocking),
  ];
  const notes = [
    `${what}: the operator classifies this change as IGNORE, so no redeploy happened; the job kept running`,
    ...warnings.notes,
    ...statusNotes(ctx),
  ];
  return {
    criteria,
    failure: terminal(warnings.terminal.map(describeEvent)),
    notes,
    blocking: warnings.blocking,
    proof: {
      verified: [
        `operator observed generation ${observedGenerationOf(ctx.resource) ?? '?'} (IGNORE-class change: no redeploy, no SpecChanged event)`,
        'the spec holds the new values, which the operator reads from the current spec',
      ],
      notVerified: [
        'that the operator or autoscaler already acted on the new values (it reads them at its next reconcile)',
      ],
    },
  };
}
