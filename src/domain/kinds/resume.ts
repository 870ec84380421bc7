// resume: start a suspended job again (spec.job.state: running); judged by the base predicate.
import { z } from 'zod';
import { redeployRule } from '../kit/evidence/redeploy.js';
import { OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { jobStateOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { PATHS, patchOutcome, refusal, who } from '../kit/planning/edits.js';
import type { KindModule } from './kind.js';

export const ResumeIntent = z.object({ kind: z.literal('resume'), target: TargetSchema, ...COMMON_INTENT_FIELDS });
type Intent = z.infer<typeof ResumeIntent>;

export const resume = {
  intent: ResumeIntent,
  verb: {
    group: 'operation',
    summary: 'start a suspended job again (spec.job.state: running)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: ['resume analytics/clickstream'],
    synonyms: ['start', 'unpause', 'run', 'unsuspend'],
    build: (b) => ({ target: b.target }),
  },
  traits: {
    change: 'patch',
    stopsJob: false,
    redeploys: true,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: false,
  },
  plan: ({ intent, resource }) => {
    const state = jobStateOf(resource);
    if (state !== 'suspended') {
      const shown = state === undefined ? 'unset, which means running' : state;
      return refusal(
        `${who(intent.target)} is already running (spec.job.state: ${shown}); nothing to do — to redeploy it, use restart`,
      );
    }
    return patchOutcome([{ path: PATHS.jobState, after: 'running' }], [], effectiveUpgradeMode(undefined, resource));
  },
  evidence: (ctx) => redeployRule(ctx, { restoresInSavepointMode: true }),
  undo: { inverse: 'suspend', paths: [PATHS.jobState] },
  asInverse: (target) => ({ kind: 'resume', target, incidentChannels: [] }),
  describe: () => '',
} as const satisfies KindModule<Intent>;
