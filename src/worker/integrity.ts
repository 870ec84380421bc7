// Record integrity under the lease (docs/lifecycle.md#record-integrity): the record's MAC and digest, the plan rebuilt
// from the intent against the live resource, and the last guard on the fields a write may touch.
import { assess } from '../app/assess.js';
import { processRecordKey } from '../config/record-key.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { undeclaredWrites } from '../domain/engines/planning/declared-fields.js';
import { integrityProblem, type Sealer } from '../domain/engines/record-seal.js';
import type { OperationState } from '../domain/model/lifecycle.js';
import { isRecord } from '../domain/model/merge-patch.js';
import type { Plan } from '../domain/model/plan.js';
import type { KubeObject } from '../kube/flink-client.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { commit, type Run } from './context.js';

export const RECORD_INTEGRITY = 'record integrity';

/** Which check failed: the metric's `check` label (docs/operating.md#health-metrics-and-logs). */
export type IntegrityCheck = 'mac' | 'rebuild' | 'fields';

export function sealerOf(run: Run): Sealer {
  return run.deps.recordKey ?? processRecordKey();
}

/** The record's MAC and its plan's digest, in words when they do not hold. */
export function recordProblem(run: Run, record: OperationRecord): string | undefined {
  return integrityProblem(record, sealerOf(run));
}

/** → ABORTED "record integrity: …" (nothing written to the target); audited by the commit, counted by the metric. */
export async function abortForIntegrity(
  run: Run,
  from: readonly OperationState[],
  check: IntegrityCheck,
  words: string,
): Promise<{ type: 'ended' }> {
  const reason = `${RECORD_INTEGRITY}: ${words}`;
  run.log.warn({ check, reason }, 'record integrity failed; nothing was written');
  await commit(run, { from, to: 'ABORTED', detail: { reason, integrity: check } });
  return { type: 'ended' };
}

/** The nonce the recorded plan used (restartNonce, savepointRedeployNonce, …), so a rebuild writes the same value. */
function recordedNonce(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key.endsWith('Nonce') && typeof child === 'number' && Number.isSafeInteger(child) && child >= 0) return child;
    const inner = recordedNonce(child);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

export type Rebuilt =
  { ok: true; plan: Plan; decision: PolicyDecision } | { ok: false; check?: IntegrityCheck; reason: string };

/**
 * The plan rebuilt from the record's intent against `current` with the policy in force: it must have the approved
 * plan's digest, and it is what is submitted (the recorded change itself never is).
 */
export async function rebuildPlan(
  run: Run,
  record: OperationRecord,
  plan: Plan,
  current: KubeObject,
  policy: Policy,
): Promise<Rebuilt> {
  const { deps } = run;
  const nonce = plan.change.type === 'patch' ? recordedNonce(plan.change.patch) : undefined;
  const assessment = await assess(
    policy,
    {
      intent: record.intent,
      opId: record.id,
      requester: record.requester,
      revision: plan.revision,
      signal: run.signal,
      current,
    },
    {
      // The installed CRDs are checked by the submission itself, in its own words (docs/deployment.md#operator-versions).
      clients: () => ({ kube: deps.kube }),
      getFreeze: (target) => deps.freezes.get(target),
      getOperation: (id) => deps.store.get(id),
      now: () => new Date(deps.now()),
      nonce: () => nonce ?? deps.nonce(),
    },
  );
  if (!assessment.ok) return { ok: false, reason: `the plan no longer holds: ${assessment.refusal}` };
  if (assessment.plan.digest !== plan.digest)
    return {
      ok: false,
      check: 'rebuild',
      reason: 'the plan rebuilt from the intent against the live resource does not match the approved plan',
    };
  return { ok: true, plan: assessment.plan, decision: assessment.decision };
}

/** Right before the call: the change writes nothing outside its kind's declared fields and the bot's annotations. */
export function fieldsProblem(record: OperationRecord, plan: Plan): string | undefined {
  const outside = undeclaredWrites(record.kind, plan.judgedAs, plan.change, plan.target);
  if (outside.length === 0) return undefined;
  return `the change would write outside the fields of ${record.kind}: ${outside.slice(0, 5).join(', ')}`;
}
