// gitops-resume: end a GitOps pause by removing the Flux reconcile-disabled annotation and the bot's pause marker
// (docs/commands.md#flink-gitops-resume). A metadata-only change: the generation does not move and the operator
// writes nothing for it, so its evidence is the annotations gone from the object our write produced.
import { z } from 'zod';
import { criterion, submissionObserved, type Ctx } from '../kit/evidence/criteria.js';
import type { Judgement } from '../kit/evidence/types.js';
import { OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { patchOutcome, refusal, who, type FieldEdit } from '../kit/planning/edits.js';
import { ANNOTATION_FLUX_RECONCILE, ANNOTATION_GITOPS_PAUSED_BY } from '../model/gitops.js';
import { annotationsOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import type { KindModule } from './kind.js';

const PAUSE_ANNOTATIONS = [ANNOTATION_FLUX_RECONCILE, ANNOTATION_GITOPS_PAUSED_BY] as const;

export const GitopsResumeIntent = z.object({
  kind: z.literal('gitops-resume'),
  target: TargetSchema,
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof GitopsResumeIntent>;

const annotationPath = (key: string): readonly string[] => ['metadata', 'annotations', key];

/** Flux skips the object only while the annotation reads `disabled` (in any case); another value lets it apply Git. */
function fluxPaused(annotations: Record<string, string>): boolean {
  return annotations[ANNOTATION_FLUX_RECONCILE]?.toLowerCase() === 'disabled';
}

const REAPPLY_NOTE =
  'Flux applies Git to this object again at its next reconcile: a change made while it was paused that is not in Git will be reverted';

function plan(intent: Intent, resource: unknown) {
  const annotations = annotationsOf(resource);
  const present = PAUSE_ANNOTATIONS.filter((key) =>
    key === ANNOTATION_FLUX_RECONCILE ? fluxPaused(annotations) : Object.hasOwn(annotations, key),
  );
  if (present.length === 0) {
    return refusal(
      `${who(intent.target)} is not paused for GitOps (no ${ANNOTATION_FLUX_RECONCILE}: disabled annotation); nothing to resume`,
    );
  }
  const edits: FieldEdit[] = present.map((key) => ({ path: annotationPath(key), after: null }));
  const notes: string[] = [];
  if (!present.includes(ANNOTATION_GITOPS_PAUSED_BY)) {
    const value = annotations[ANNOTATION_FLUX_RECONCILE] ?? '';
    notes.push(
      `the GitOps pause (${ANNOTATION_FLUX_RECONCILE}: ${value}) was not made by this bot (no ${ANNOTATION_GITOPS_PAUSED_BY}); check with whoever paused it`,
    );
  } else if (!present.includes(ANNOTATION_FLUX_RECONCILE)) {
    notes.push(
      `${ANNOTATION_FLUX_RECONCILE}: disabled is already gone, so Flux already applies Git; this removes the leftover ${ANNOTATION_GITOPS_PAUSED_BY} (${annotations[ANNOTATION_GITOPS_PAUSED_BY] ?? ''})`,
    );
  }
  notes.push(REAPPLY_NOTE);
  return patchOutcome(edits, notes, undefined);
}

/**
 * COMPLETED once the object as our write left it (or later) is paused by neither annotation; no status criteria, since
 * the operator neither observes a new generation nor writes anything for a metadata change.
 */
function evidence(ctx: Ctx): Judgement {
  const annotations = annotationsOf(ctx.resource);
  const gone = PAUSE_ANNOTATIONS.map((key) =>
    criterion(
      ctx,
      `annotation-removed:${key}`,
      key === ANNOTATION_FLUX_RECONCILE ? !fluxPaused(annotations) : !Object.hasOwn(annotations, key),
      annotations[key],
      `metadata.annotations[${key}]`,
    ),
  );
  return {
    criteria: [submissionObserved(ctx), ...gone],
    failure: undefined,
    notes: [],
    blocking: [],
    proof: {
      verified: [`the object as written by this operation no longer carries ${PAUSE_ANNOTATIONS.join(' or ')}`],
      notVerified: [
        'that Flux applied Git again (its next reconcile of the Kustomization was not watched)',
        'which fields Git will change back',
      ],
    },
  };
}

export const gitopsResume = {
  intent: GitopsResumeIntent,
  verb: {
    group: 'operation',
    summary: `end a GitOps pause: remove ${ANNOTATION_FLUX_RECONCILE}: disabled so Flux applies Git again`,
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: [
      'gitops resume analytics/clickstream --reason "the hotfix is committed to Git"',
      'gitops resume sessionjob:analytics/sessionizer',
    ],
    build: (b) => ({ target: b.target }),
  },
  traits: {
    change: 'patch',
    stopsJob: false,
    redeploys: false,
    hasMode: false,
    usesUpgradeMode: false,
    onSessionCluster: true,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: false,
  },
  plan: ({ intent, resource }) => plan(intent, resource),
  // Only the pause annotations, which are the bot's own (docs/lifecycle.md#record-integrity).
  writes: { paths: [] },
  evidence,
  describe: () => '',
} as const satisfies KindModule<Intent>;
