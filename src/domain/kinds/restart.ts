// restart: redeploy the job with the same spec (a new spec.restartNonce); not undoable (nonce-driven).
import { z } from 'zod';
import { redeployRule } from '../kit/evidence/redeploy.js';
import { OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { restartNonceOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { freshNonce, patchOutcome, type FieldPath } from '../kit/planning/edits.js';
import { lostSessionJob } from '../kit/planning/target-refusals.js';
import type { KindModule } from './kind.js';

export const RestartIntent = z.object({ kind: z.literal('restart'), target: TargetSchema, ...COMMON_INTENT_FIELDS });
type Intent = z.infer<typeof RestartIntent>;

/** The field restart edits: a new nonce makes the operator redeploy the same spec. */
const OWN_PATHS = { restartNonce: ['spec', 'restartNonce'] } as const satisfies Record<string, FieldPath>;

export const restart = {
  intent: RestartIntent,
  verb: {
    group: 'operation',
    summary: 'restart the job with the same spec (a new spec.restartNonce)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: [
      'restart analytics/clickstream --incident <#C0123ABCD|inc-4711>',
      'restart clickstream --reason "stuck checkpoints"',
      'restart clickstream --at 02:00 Europe/Berlin',
      'restart clickstream --window nightly',
    ],
    synonyms: ['bounce', 'reboot', 'redeploy', 'reload'],
    build: (b) => ({ target: b.target }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: true,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: true,
  },
  refuseBefore: lostSessionJob,
  plan: ({ resource, nonce }) => {
    const after = freshNonce(nonce, restartNonceOf(resource));
    return patchOutcome([{ path: OWN_PATHS.restartNonce, after }], [], effectiveUpgradeMode(undefined, resource));
  },
  writes: { paths: [OWN_PATHS.restartNonce] },
  evidence: (ctx) => redeployRule(ctx, { restoresInSavepointMode: true }),
  describe: () => '',
} as const satisfies KindModule<Intent>;
