// upgrade: deploy a new image (spec.image) with the job's or the given upgrade mode; FlinkDeployments only.
import { z } from 'zod';
import { redeployRule } from '../evidence/redeploy.js';
import { MODE_FLAG, OPERATION_FLAGS, TARGET } from '../language/verb-kit.js';
import { COMMON_INTENT_FIELDS } from '../model/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import { imageOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { DEFAULT_UPGRADE_MODE, UPGRADE_MODES, effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { PATHS, modeEdit, patchOutcome, refusal, who } from '../planning/edits.js';
import type { KindModule } from './kind.js';

export const UpgradeIntent = z.object({
  kind: z.literal('upgrade'),
  target: TargetSchema,
  image: z.string().min(1),
  mode: z.enum(UPGRADE_MODES).optional(),
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof UpgradeIntent>;

export const upgrade = {
  intent: UpgradeIntent,
  verb: {
    group: 'operation',
    summary: 'deploy a new image (spec.image)',
    args: [TARGET],
    flags: [{ name: 'image', key: 'image', kind: 'image', required: true, description: 'the image to run' }, MODE_FLAG, ...OPERATION_FLAGS],
    examples: ['upgrade analytics/clickstream --image registry.example.com/analytics/clickstream:2.4.1 --mode savepoint'],
    synonyms: ['deploy', 'update', 'rollout', 'image'],
    build: (b) => ({ target: b.target, image: b.image, mode: b.mode }),
  },
  traits: { change: 'patch', stopsJob: true, redeploys: true, hasMode: true, usesUpgradeMode: true, onSessionCluster: true, onSessionJob: false, readsLastSavepoint: false, refusedWhileSuspended: true },
  plan: ({ intent, resource, sessionCluster }) => {
    if (imageOf(resource) === intent.image) {
      return refusal(`${who(intent.target)} already runs image ${intent.image} (spec.image); nothing to do`);
    }
    if (sessionCluster) {
      if (intent.mode !== undefined) {
        return refusal(`--mode does not apply to ${who(intent.target)}: a session cluster has no job and so no upgrade mode; drop --mode`);
      }
      return patchOutcome([{ path: PATHS.image, after: intent.image }], [], DEFAULT_UPGRADE_MODE);
    }
    const mode = modeEdit(intent.mode, resource);
    return patchOutcome([{ path: PATHS.image, after: intent.image }, ...mode.edits], mode.notes, effectiveUpgradeMode(intent.mode, resource));
  },
  evidence: (ctx) => redeployRule(ctx, { notVerified: ['the image the pods actually run (pod containerStatuses) not checked'], restoresInSavepointMode: true }),
  undo: { inverse: 'upgrade', paths: [PATHS.image, PATHS.upgradeMode] },
  asInverse: (target, patch) => ({ kind: 'upgrade', target, image: String(getPath(patch, PATHS.image) ?? ''), incidentChannels: [] }),
  sessionJobRefusal: 'session jobs have no image',
  describe: (intent) => ` to image ${intent.image}${intent.mode ? ` (mode ${intent.mode})` : ''}`,
} as const satisfies KindModule<Intent>;
