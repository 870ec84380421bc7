// restore: redeploy the job from a savepoint (initialSavepointPath + savepointRedeployNonce), with its own evidence.
import { z } from 'zod';
import {
  PATH,
  criterion,
  desiredFields,
  generationObserved,
  jobManagerReady,
  jobTimes,
  noBlockingWarnings,
  reconciledDeployed,
  reconciledRunning,
  specReconciled,
  type Ctx,
} from '../kit/evidence/criteria.js';
import type { EventView } from '../kit/evidence/events.js';
import { jobFailedTransient, jobManagerTransient, redeployFailure, statusNotes } from '../kit/evidence/failures.js';
import { classifyWarnings } from '../kit/evidence/warnings.js';
import { restEvidence } from '../kit/evidence/rest.js';
import { readFlinkConfig } from '../model/flink-config.js';
import { pointersMatch } from '../model/checkpoint-pointer.js';
import { restoreProof } from '../kit/evidence/proof.js';
import type { Criterion, Judgement } from '../kit/evidence/types.js';
import { VALUE_KINDS, checkedBy, uriProblem, type ValueSpec } from '../kit/language/values.js';
import { OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import {
  jobIdOf,
  jobStateOf,
  jobStatusStateOf,
  lifecycleStateOf,
  savepointRedeployNonceOf,
  upgradeSavepointPathOf,
} from '../model/resource.js';
import { TargetSchema, type Target } from '../model/target.js';
import { MODE, effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { freshNonce, patchOutcome, refusal, who, type FieldEdit, type FieldPath } from '../kit/planning/edits.js';
import {
  CHECK,
  CHECKPOINT_DIR_KEYS,
  SAVEPOINT_DIR_KEYS,
  fail,
  formatAge,
  pass,
  warn,
  type CheckCtx,
} from '../kit/policy/check-kit.js';
import { restoreSourceProblem } from '../kit/policy/restore-source.js';
import type { KindModule } from './kind.js';

export const RestoreIntent = z.object({
  kind: z.literal('restore'),
  target: TargetSchema,
  from: z.string().min(1),
  allowNonRestoredState: z.boolean().default(false),
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof RestoreIntent>;

/** The fields restore edits (our nonce makes the operator redeploy from the path). */
const OWN_PATHS = {
  initialSavepointPath: ['spec', 'job', 'initialSavepointPath'],
  savepointRedeployNonce: ['spec', 'job', 'savepointRedeployNonce'],
  allowNonRestoredState: ['spec', 'job', 'allowNonRestoredState'],
} as const satisfies Record<string, FieldPath>;
export const RESTORE_CHECK = { restoreDiscardsState: 'restore-discards-state' } as const;

const URI: ValueSpec = {
  placeholder: '<uri>',
  description:
    'the savepoint or checkpoint directory as a URI with a scheme, e.g. `s3://bucket/savepoints/savepoint-1a2b3c`',
  example: 's3://bucket/savepoints/sp-1',
  check: checkedBy(uriProblem),
};

const PINNED_JOB_ID = ['$internal.pipeline.job-id'];

/** The newest `Submit` event after the submission. */
function latestSubmit(events: readonly EventView[]): EventView | undefined {
  let best: EventView | undefined;
  for (const event of events) {
    if (event.reason !== 'Submit') continue;
    if (best === undefined || (event.lastSeen ?? 0) > (best.lastSeen ?? 0)) best = event;
  }
  return best;
}

/** RUNNING, and (when both times are known) observed no earlier than the Submit event's second. */
function runningAfterSubmit(ctx: Ctx, submit: EventView | undefined): Criterion {
  const state = jobStatusStateOf(ctx.resource);
  const { update } = jobTimes(ctx.resource);
  const second = submit?.lastSeen === undefined ? undefined : Math.floor(submit.lastSeen / 1000) * 1000;
  const ordered = update === undefined || second === undefined || update >= second;
  return criterion(ctx, 'job-running', state === 'RUNNING' && ordered, state, `${PATH.job} (after the Submit event)`);
}

/** Restore: our savepointRedeployNonce reconciled and the job running again from the given path. */
function restoreRule(ctx: Ctx): Judgement {
  const uri = desiredFields(ctx.plan).find((f) => f.path === 'spec.job.initialSavepointPath')?.value;
  if (typeof uri !== 'string') throw new TypeError('evidence: a restore plan must set spec.job.initialSavepointPath');
  const suspended = jobStateOf(ctx.resource) === 'suspended';
  const warnings = classifyWarnings(ctx, false);
  const jm = jobManagerTransient(ctx, warnings);
  const transient = [...jm.transient, ...jobFailedTransient(ctx)];
  const blocking = [...warnings.blocking, ...jm.blocking];
  const current = upgradeSavepointPathOf(ctx.resource);
  const applied = criterion(
    ctx,
    'savepoint-path-applied',
    current !== undefined && pointersMatch(uri, current).match,
    current,
    PATH.upgradeSavepointPath,
  );
  const blocked = noBlockingWarnings(ctx, blocking);
  const notes = [...warnings.notes, ...statusNotes(ctx)];
  let criteria: Criterion[];
  if (suspended) {
    criteria = [...specReconciled(ctx), applied, blocked];
    notes.push(`the target is suspended: the job stays suspended until \`resume\`, which restores from ${uri}`);
  } else {
    const submit = latestSubmit(ctx.events);
    const jobId = jobIdOf(ctx.resource);
    const newJob = jobId !== undefined && (ctx.previousJobId === undefined || jobId !== ctx.previousJobId);
    const jobIdCriterion = criterion(ctx, 'job-id-new', newJob, { jobId, previous: ctx.previousJobId }, PATH.jobId);
    const pinned = readFlinkConfig(ctx.resource, PINNED_JOB_ID, ctx.observation.sessionCluster) !== undefined;
    // A pinned $internal.pipeline.job-id keeps the id across redeploys: then it proves nothing. Session jobs always
    // run under the id the operator generates or reuses, so the note would be wrong for them.
    if (pinned && !ctx.sessionJob)
      notes.push(
        `jobId ${jobId ?? 'unknown'}: ${PINNED_JOB_ID[0]} pins it, so a new jobId is not expected (not evidence)`,
      );
    criteria = [
      generationObserved(ctx),
      reconciledDeployed(ctx),
      ...specReconciled(ctx),
      ...reconciledRunning(ctx),
      applied,
      ...(ctx.sessionJob ? [] : [jobManagerReady(ctx)]),
      criterion(
        ctx,
        'submit-event',
        submit !== undefined,
        submit?.lastSeen === undefined ? null : new Date(submit.lastSeen).toISOString(),
        'event Submit',
      ),
      runningAfterSubmit(ctx, submit),
      ...(pinned ? [] : [jobIdCriterion]),
      blocked,
    ];
    // The operator marks a savepoint redeploy stable before the job runs: lifecycleState proves nothing here.
    notes.push(`lifecycleState: ${lifecycleStateOf(ctx.resource) ?? 'unset'} (not evidence for a restore)`);
  }
  const proof = restoreProof(ctx, uri, suspended);
  // Flink REST, once operator status is settled: every vertex RUNNING and latest.restored the path asked for.
  const rest =
    !suspended && criteria.every((c) => c.met) && transient.length === 0
      ? restEvidence(ctx, { tasksRunning: true, restoredFrom: uri, checkpointAfterChange: ctx.checkpointAfterChange })
      : undefined;
  if (rest) {
    proof.verified.push(...rest.verified);
    proof.notVerified = [
      ...proof.notVerified.filter((line) => !rest.covers.some((words) => line.includes(words))),
      ...rest.unverified,
    ];
    notes.push(...rest.notes);
  }
  return {
    criteria: [...criteria, ...(rest?.criteria ?? [])],
    failure: redeployFailure(ctx, warnings) ?? rest?.failure,
    notes,
    blocking,
    proof,
    transient,
    ...(rest?.need ? { rest: rest.need } : {}),
    ...(rest && rest.caveats.length > 0 ? { caveats: rest.caveats } : {}),
  };
}

function restoreDiscardsState({ input }: CheckCtx): CheckResult {
  const last = input.lastSavepoint;
  const lastWords = !last
    ? 'no savepoint of this job is on record'
    : `the last savepoint is ${last.location}${last.at === undefined ? ' (age unknown)' : `, taken ${formatAge(input.now.getTime() - last.at)} ago`}`;
  return warn(
    RESTORE_CHECK.restoreDiscardsState,
    `restore cancels the job without a savepoint and discards its current state; ${lastWords}`,
  );
}

/**
 * `--from` is the target's own state, or under a prefix the policy names (docs/policy.md#restore-sources); the app
 * refuses the command when this fails, so nothing is recorded.
 */
function restoreSource(ctx: CheckCtx, from: string): CheckResult {
  const directories = [SAVEPOINT_DIR_KEYS, CHECKPOINT_DIR_KEYS].flatMap((keys) => {
    const dir = ctx.config(keys)?.value.trim();
    return dir === undefined || dir === '' ? [] : [dir];
  });
  const { input } = ctx;
  const savepoints = [...(input.ownSavepoints ?? []), ...(input.lastSavepoint ? [input.lastSavepoint.location] : [])];
  const allowedFrom = input.policy?.restore?.allowedFrom ?? [];
  const problem = restoreSourceProblem(from, { directories, savepoints, allowedFrom });
  return problem === undefined
    ? pass(CHECK.restoreSource, `${from} is the target's own state or a source the policy allows`)
    : fail(CHECK.restoreSource, problem);
}

function suspendedRestoreNote(target: Target, resource: unknown): string {
  const base = `${who(target)} is suspended: the operator only records the savepoint path; the job stays suspended until resume`;
  if (effectiveUpgradeMode(undefined, resource) !== MODE.stateless) return `${base}, which restores from it`;
  return `${base}, but its upgradeMode is stateless, so a resume would start from empty state — resume with a stateful mode`;
}

export const restore = {
  intent: RestoreIntent,
  verb: {
    group: 'operation',
    summary: 'redeploy the job from a savepoint (spec.job.initialSavepointPath + savepointRedeployNonce)',
    args: [TARGET],
    flags: [
      { name: 'from', key: 'from', kind: URI, required: true, description: 'where to start from' },
      {
        name: 'allow-non-restored-state',
        key: 'allowNonRestoredState',
        kind: VALUE_KINDS.switch,
        description: 'start even if some state in the savepoint maps to no operator (it stays set after the restore)',
      },
      ...OPERATION_FLAGS,
    ],
    examples: [
      'restore analytics/clickstream --from s3://flink-state/savepoints/savepoint-4c1d2e-8f0a1b2c3d4e',
      'restore clickstream --from=gs://state/sp-1 --allow-non-restored-state',
    ],
    synonyms: ['recover', 'reset'],
    build: (b) => ({ target: b.target, from: b.from, allowNonRestoredState: b.allowNonRestoredState === true }),
  },
  traits: {
    change: 'patch',
    stopsJob: false,
    redeploys: false,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: true,
    refusedWhileSuspended: false,
  },
  plan: ({ intent, resource, nonce }) => {
    if (
      intent.target.kind === 'FlinkSessionJob' &&
      jobStateOf(resource) === 'suspended' &&
      jobIdOf(resource) === undefined
    ) {
      return refusal(
        `${who(intent.target)} is a suspended session job without a jobId (status.jobStatus.jobId): the operator fails such a restore ` +
          'on every reconcile; resume it first, or recreate the session job with spec.job.initialSavepointPath',
      );
    }
    const edits: FieldEdit[] = [
      { path: OWN_PATHS.initialSavepointPath, after: intent.from },
      { path: OWN_PATHS.savepointRedeployNonce, after: freshNonce(nonce, savepointRedeployNonceOf(resource)) },
    ];
    const notes: string[] = [];
    if (intent.allowNonRestoredState) {
      if (getPath(resource, OWN_PATHS.allowNonRestoredState) !== true)
        edits.push({ path: OWN_PATHS.allowNonRestoredState, after: true });
      notes.push(
        'spec.job.allowNonRestoredState: true stays set after the restore: later redeploys also skip state that no operator claims',
      );
    }
    if (jobStateOf(resource) === 'suspended') notes.push(suspendedRestoreNote(intent.target, resource));
    return patchOutcome(edits, notes, effectiveUpgradeMode(undefined, resource));
  },
  writes: { paths: Object.values(OWN_PATHS) },
  checks: (ctx, intent) => [restoreSource(ctx, intent.from), restoreDiscardsState(ctx)],
  evidence: restoreRule,
  describe: (intent) => ` from ${intent.from}${intent.allowNonRestoredState ? ' (allowing non-restored state)' : ''}`,
} as const satisfies KindModule<Intent>;
