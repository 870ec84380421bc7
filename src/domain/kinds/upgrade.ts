// upgrade: deploy a new image (spec.image) with the job's or the given upgrade mode; FlinkDeployments only.
import { z } from 'zod';
import { redeployRule } from '../kit/evidence/redeploy.js';
import { checkedBy, describeChar, show, type ValueSpec } from '../kit/language/values.js';
import { MODE_FLAG, OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import { imageOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { DEFAULT_UPGRADE_MODE, UPGRADE_MODES, effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { PATHS, modeEdit, patchOutcome, refusal, who, type FieldPath } from '../kit/planning/edits.js';
import type { KindModule } from './kind.js';

export const UpgradeIntent = z.object({
  kind: z.literal('upgrade'),
  target: TargetSchema,
  image: z.string().min(1),
  mode: z.enum(UPGRADE_MODES).optional(),
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof UpgradeIntent>;

/** The field upgrade edits besides the shared `spec.job.upgradeMode`. */
const OWN_PATHS = { image: ['spec', 'image'] } as const satisfies Record<string, FieldPath>;

const MAX_IMAGE = 512;
// Docker's reference grammar (distribution/reference): [domain[:port]/]path[:tag][@digest].
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_PART}(?:\\.${DOMAIN_PART})*(?::[0-9]+)?`;
const PATH_PART = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const IMAGE_REF = new RegExp(`^(?:${DOMAIN}/)?${PATH_PART}(?:/${PATH_PART})*(?::${TAG})?(?:@${DIGEST})?$`);
const IMAGE_SHAPE = 'registry/repository[:tag][@sha256:<64 hex digits>], e.g. registry.example.com/team/app:1.4.2';
/** Shell metacharacters and quotes: no image reference has them, and they suggest a pasted command line. */
const SHELL_META = /[;|&$`<>(){}[\]\\!*?"'~]/;

function imageProblem(ref: string): string | undefined {
  if (ref.length === 0) return `--image needs an image reference: ${IMAGE_SHAPE}`;
  if (ref.length > MAX_IMAGE) return `the image reference is ${ref.length} characters long; at most ${MAX_IMAGE}`;
  const bad = /[\s\p{Cc}\p{Cf}]/u.exec(ref) ?? SHELL_META.exec(ref);
  if (bad)
    return `image ${show(ref)} contains ${describeChar(bad[0])}, which no image reference has; expected ${IMAGE_SHAPE}`;
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(ref);
  if (scheme) return `image references have no scheme: drop "${scheme[0]}" from ${show(ref)}`;
  if (!IMAGE_REF.test(ref)) {
    const lower = /[A-Z]/.test(ref.split('/').slice(1).join('/').split(/[:@]/)[0] ?? '')
      ? ' (repository names are lowercase)'
      : '';
    return `${show(ref)} is not an image reference${lower}; expected ${IMAGE_SHAPE}`;
  }
  const digest = /@sha256:([0-9a-fA-F]*)$/.exec(ref);
  if (digest && digest[1]?.length !== 64)
    return `a sha256 digest has 64 hex digits; ${show(ref)} has ${digest[1]?.length ?? 0}`;
  return undefined;
}

const IMAGE: ValueSpec = {
  placeholder: '<image>',
  description: 'a container image reference: `registry/repository[:tag][@sha256:<digest>]`',
  example: 'ghcr.io/acme/app:1.2',
  check: checkedBy(imageProblem),
};

export const upgrade = {
  intent: UpgradeIntent,
  verb: {
    group: 'operation',
    summary: 'deploy a new image (spec.image)',
    args: [TARGET],
    flags: [
      { name: 'image', key: 'image', kind: IMAGE, required: true, description: 'the image to run' },
      MODE_FLAG,
      ...OPERATION_FLAGS,
    ],
    examples: [
      'upgrade analytics/clickstream --image registry.example.com/analytics/clickstream:2.4.1 --mode savepoint',
    ],
    synonyms: ['deploy', 'update', 'rollout', 'image'],
    build: (b) => ({ target: b.target, image: b.image, mode: b.mode }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: true,
    usesUpgradeMode: true,
    onSessionCluster: true,
    onSessionJob: false,
    readsLastSavepoint: false,
    refusedWhileSuspended: true,
  },
  plan: ({ intent, resource, sessionCluster }) => {
    if (imageOf(resource) === intent.image) {
      return refusal(`${who(intent.target)} already runs image ${intent.image} (spec.image); nothing to do`);
    }
    if (sessionCluster) {
      if (intent.mode !== undefined) {
        return refusal(
          `--mode does not apply to ${who(intent.target)}: a session cluster has no job and so no upgrade mode; drop --mode`,
        );
      }
      return patchOutcome([{ path: OWN_PATHS.image, after: intent.image }], [], DEFAULT_UPGRADE_MODE);
    }
    const mode = modeEdit(intent.mode, resource);
    return patchOutcome(
      [{ path: OWN_PATHS.image, after: intent.image }, ...mode.edits],
      mode.notes,
      effectiveUpgradeMode(intent.mode, resource),
    );
  },
  evidence: (ctx) =>
    redeployRule(ctx, {
      notVerified: ['the image the pods actually run (pod containerStatuses) not checked'],
      restoresInSavepointMode: true,
    }),
  undo: { inverse: 'upgrade', paths: [OWN_PATHS.image, PATHS.upgradeMode] },
  asInverse: (target, patch) => ({
    kind: 'upgrade',
    target,
    image: String(getPath(patch, OWN_PATHS.image) ?? ''),
    incidentChannels: [],
  }),
  sessionJobRefusal: 'session jobs have no image',
  describe: (intent) => ` to image ${intent.image}${intent.mode ? ` (mode ${intent.mode})` : ''}`,
} as const satisfies KindModule<Intent>;
