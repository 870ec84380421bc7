// Builders of realistic operation records in every state (plan, decision, approvals, history, evidence), made
// through the domain's own applyChange so every history is one the store would accept.
import { timedOutReport, summarize } from '../../src/domain/kit/evidence/report.js';
import type { EvidenceVerdict } from '../../src/domain/kit/evidence/types.js';
import type { Approval, PolicyDecision } from '../../src/domain/model/decision.js';
import {
  applyChange,
  initialRecord,
  type EntryInput,
  type MutableFields,
  type OperationRecord,
} from '../../src/domain/engines/operation.js';
import type { ActorRole, OperationState } from '../../src/domain/model/lifecycle.js';
import { OperationIntentSchema, type OperationIntent } from '../../src/domain/kinds/index.js';
import { runChecks } from '../../src/domain/engines/policy/checks.js';
import type { RenderContext } from '../../src/slack/blocks/message.js';
import { DEP, judge, kubeEvent, settled, specPatchOf, warning } from './evidence-fixtures.js';
import { FIXTURE_EPOCH_MS, flinkDeployment, planFor } from './fixtures.js';

export const OP_ID = 'op-abc123';
export const REQUESTER = 'U0ALICE';
export const LEAD = 'U0LEAD1';
export const CHANNEL = 'C0DATAPLATFORM';
export const INCIDENTS = 'C0INCIDENTS';
/** When the request was made: an hour after the fixture epoch. */
export const T0 = FIXTURE_EPOCH_MS + 3_600_000;
export const CTX: RenderContext = { now: T0 + 120_000, command: '/flink' };
export const APPROVAL_TTL_MS = 30 * 60_000;
export const RULE = { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] };
export const FREEZE_RULE_REASON = 'No production changes on Friday afternoons (rule friday-freeze)';

export interface RecordOptions {
  id?: string;
  /** Raw intent fields (target defaults to streaming-prod/orders-enricher). Default: scale to 8. */
  intent?: Record<string, unknown>;
  /** Default: a RUNNING, STABLE FlinkDeployment at generation 3 with parallelism 4. */
  resource?: ReturnType<typeof flinkDeployment>;
  reason?: string;
  incidentChannels?: string[];
}

const before = flinkDeployment();

/** Appends entries (and sets fields) one second after the record's last change, as the store would. */
export function step(
  record: OperationRecord,
  entries: EntryInput[],
  set?: MutableFields,
  afterMs = 1000,
): OperationRecord {
  const outcome = applyChange(record, { entries, ...(set ? { set } : {}) }, record.updatedAt + afterMs);
  if (!outcome.ok) throw new Error(`records: ${outcome.reason}`);
  return outcome.record;
}

export function toState(
  record: OperationRecord,
  name: OperationState,
  actor: string,
  role: ActorRole,
  detail?: Record<string, unknown>,
  set?: MutableFields,
): OperationRecord {
  return step(record, [{ type: 'state', name, actor, role, ...(detail ? { detail } : {}) }], set);
}

function intentFrom(opts: RecordOptions): OperationIntent {
  const raw = {
    kind: 'scale',
    parallelism: 8,
    target: DEP,
    ...opts.intent,
    ...(opts.reason ? { reason: opts.reason } : {}),
  };
  return OperationIntentSchema.parse({ ...raw, incidentChannels: opts.incidentChannels ?? [] });
}

function decisionFor(intent: OperationIntent, resource: unknown, deny: boolean): PolicyDecision {
  const freeze = deny ? { by: 'U0BOB', reason: 'black friday <!channel>', at: T0 - 7_200_000 } : undefined;
  const checks = runChecks({ intent, resource, now: new Date(T0), ...(freeze ? { freeze } : {}) });
  const env = { environment: 'production' };
  if (!deny) return { outcome: 'needs-approval', checks, requirements: [{ ...RULE, from: [...RULE.from] }], ...env };
  const reasons = [FREEZE_RULE_REASON, ...checks.filter((c) => c.outcome === 'fail').map((c) => c.message)];
  return { outcome: 'deny', reasons, checks, requirements: [{ ...RULE, from: [...RULE.from] }], ...env };
}

/** ACCEPTED, planned against the live resource, policy decided, card posted. */
export function acceptedRecord(opts: RecordOptions = {}, deny = false): OperationRecord {
  const intent = intentFrom(opts);
  const resource = opts.resource ?? before;
  const plan = planFor(intent, resource, { opId: opts.id ?? OP_ID, requester: REQUESTER, nonce: T0 + 123 });
  return initialRecord(
    {
      id: opts.id ?? OP_ID,
      kind: intent.kind,
      intent,
      target: plan.target,
      requester: REQUESTER,
      channel: CHANNEL,
      card: { channel: CHANNEL, ts: '1767229200.000100' },
      responseUrl: 'https://hooks.slack.com/commands/T0/1/abc',
      incidentChannels: intent.incidentChannels,
      plan,
      decision: decisionFor(intent, resource, deny),
      approvals: [],
      reenqueues: 0,
    },
    REQUESTER,
    T0,
  );
}

export function awaitingRecord(opts: RecordOptions = {}): OperationRecord {
  const r = acceptedRecord(opts);
  return toState(r, 'AWAITING_APPROVAL', 'system', 'bot', undefined, { expiresAt: T0 + 1000 + APPROVAL_TTL_MS });
}

export function approvalOf(record: OperationRecord, user = LEAD): Approval {
  return { user, at: record.updatedAt + 1000, planDigest: record.plan?.digest ?? '', countsFor: [RULE.rule] };
}

export function queuedRecord(opts: RecordOptions = {}): OperationRecord {
  const r = awaitingRecord(opts);
  const vote = approvalOf(r);
  return step(
    r,
    [
      {
        type: 'approval',
        name: 'approved',
        actor: LEAD,
        detail: { countsFor: vote.countsFor, planDigest: vote.planDigest },
      },
      { type: 'state', name: 'QUEUED', actor: LEAD, role: 'bot' },
    ],
    { approvals: [vote] },
  );
}

/** Approved now, to run in an hour in the `nightly` window (docs/policy.md#scheduled-operations). */
export function scheduledRecord(opts: RecordOptions = {}): OperationRecord {
  const r = awaitingRecord(opts);
  const vote = approvalOf(r);
  const schedule = {
    runAt: T0 + 3_600_000,
    zone: 'Europe/Berlin',
    window: 'nightly',
    closesAt: T0 + 3 * 3_600_000,
    firstRunAt: T0 + 3_600_000,
  };
  return step(
    r,
    [
      {
        type: 'approval',
        name: 'approved',
        actor: LEAD,
        detail: { countsFor: vote.countsFor, planDigest: vote.planDigest },
      },
      {
        type: 'state',
        name: 'SCHEDULED',
        actor: LEAD,
        role: 'bot',
        detail: { runAt: schedule.runAt, zone: schedule.zone, window: 'nightly', closesAt: schedule.closesAt },
      },
    ],
    { approvals: [vote], schedule },
  );
}

export function submittingRecord(opts: RecordOptions = {}): OperationRecord {
  const waited = step(queuedRecord(opts), [
    { type: 'waiting', name: 'op-first1', actor: 'worker', detail: { behind: 'op-first1' } },
  ]);
  const baseline = { takenAt: waited.updatedAt + 1000, counts: {} };
  return toState(waited, 'SUBMITTING', 'worker', 'worker', undefined, { evidence: { baseline } });
}

export function submittedRecord(opts: RecordOptions = {}): OperationRecord {
  return toState(
    submittingRecord(opts),
    'SUBMITTED',
    'worker',
    'worker',
    { generation: 4 },
    { submittedGeneration: 4 },
  );
}

/** A real verdict from the evidence judge for the record's plan: completed, rolled back, or stuck pending. */
export function verdictFor(record: OperationRecord, outcome: EvidenceVerdict['outcome']): EvidenceVerdict {
  const plan = record.plan;
  if (!plan) throw new Error('records: no plan');
  const kind = record.kind === 'undo' ? 'scale' : record.kind;
  const patch = specPatchOf(plan);
  if (outcome === 'completed') return judge({ kind, plan, before, resource: settled(flinkDeployment, patch) });
  if (outcome === 'failed') {
    const rolledBack = settled(flinkDeployment, patch, {
      reconciled: { image: 'flink:1.20.1-scala_2.12-java17' },
      status: {
        reconciliationStatus: { state: 'ROLLED_BACK' },
        lifecycleState: 'ROLLED_BACK',
        jobStatus: { state: 'FAILED' },
      },
    });
    return judge({
      kind,
      plan,
      before,
      resource: rolledBack,
      events: [kubeEvent({ reason: 'Rollback', message: 'Rolling back failed deployment.' })],
    });
  }
  const stuck = settled(flinkDeployment, patch, {
    status: { jobManagerDeploymentStatus: 'DEPLOYING', jobStatus: { state: 'RECONCILING' } },
  });
  return judge({
    kind,
    plan,
    before,
    resource: stuck,
    events: [warning('ImagePullBackOff', { message: 'Back-off pulling image' })],
  });
}

function withEvidenceEntry(record: OperationRecord, verdict: EvidenceVerdict): OperationRecord {
  const met = verdict.criteria.filter((c) => c.met);
  return step(record, [
    { type: 'evidence', name: met[0]?.name ?? 'observation', actor: 'worker', detail: { criteria: met } },
  ]);
}

const UPGRADE = { kind: 'upgrade', image: 'flink:1.20.2-scala_2.12-java17' };

/** A record in `state`, reached the way bot, worker and sweep reach it. */
export function recordIn(state: OperationState, opts: RecordOptions = {}): OperationRecord {
  switch (state) {
    case 'ACCEPTED':
      return acceptedRecord(opts);
    case 'DENIED':
      return toState(acceptedRecord(opts, true), 'DENIED', 'system', 'bot');
    case 'AWAITING_APPROVAL':
      return awaitingRecord(opts);
    case 'REJECTED':
      return toState(awaitingRecord(opts), 'REJECTED', LEAD, 'bot', { reason: 'not during the sale' });
    case 'EXPIRED':
      return toState(awaitingRecord(opts), 'EXPIRED', 'sweep', 'sweep');
    case 'CANCELLED':
      return toState(awaitingRecord(opts), 'CANCELLED', REQUESTER, 'bot', { reason: 'requested by mistake' });
    case 'SCHEDULED':
      return scheduledRecord(opts);
    case 'QUEUED':
      return queuedRecord(opts);
    case 'SUBMITTING':
      return submittingRecord(opts);
    case 'UNCERTAIN':
      return toState(submittingRecord(opts), 'UNCERTAIN', 'worker', 'worker', { reason: 'PATCH timed out after 10s' });
    case 'SUBMITTED':
      return submittedRecord(opts);
    case 'COMPLETED': {
      const r = submittedRecord(opts);
      const verdict = verdictFor(r, 'completed');
      const seen = withEvidenceEntry(r, verdict);
      return toState(seen, 'COMPLETED', 'worker', 'worker', undefined, {
        evidence: { ...(r.evidence as object), verdict, summary: summarize(verdict) },
      });
    }
    case 'FAILED': {
      const r = submittedRecord({ ...opts, intent: { ...UPGRADE, ...opts.intent } });
      const verdict = verdictFor(r, 'failed');
      return toState(r, 'FAILED', 'worker', 'worker', undefined, {
        evidence: { ...(r.evidence as object), verdict, summary: summarize(verdict) },
      });
    }
    case 'TIMED_OUT': {
      const r = submittedRecord({ ...opts, intent: { ...UPGRADE, ...opts.intent } });
      const verdict = verdictFor(r, 'pending');
      const seen = withEvidenceEntry(r, verdict);
      return toState(seen, 'TIMED_OUT', 'worker', 'worker', undefined, {
        evidence: { ...(r.evidence as object), verdict, ...timedOutReport(verdict) },
      });
    }
    case 'ABORTED':
      return toState(queuedRecord(opts), 'ABORTED', 'worker', 'worker', {
        reason: 'target changed since the plan; request again',
      });
  }
}

/** Far beyond every Slack limit: 200 diff lines, 100 checks, a 10 kB reason, 500 history entries. */
export function oversizedRecord(state: OperationState = 'AWAITING_APPROVAL'): OperationRecord {
  let r = recordIn(state, { reason: `${'rollback <script> & "quotes" '.repeat(350)}`.slice(0, 10_240) });
  while (r.history.length < 500) {
    const n = r.history.length + 1;
    r = step(
      r,
      [{ type: 'note', name: `note-${n}`, actor: 'worker', detail: { message: `observation ${n} of a long run` } }],
      undefined,
      10,
    );
  }
  const plan = r.plan
    ? {
        ...r.plan,
        diff: Array.from({ length: 200 }, (_, i) => ({
          path: `spec.flinkConfiguration.key-${i}`,
          before: `value-${i}`,
          after: `value-${i + 1}`,
        })),
      }
    : undefined;
  const decision = r.decision
    ? {
        ...r.decision,
        checks: Array.from({ length: 100 }, (_, i) => ({
          name: `check-${i}`,
          outcome: (['pass', 'warn', 'fail'] as const)[i % 3] ?? 'pass',
          message: `check number ${i} says something long enough to matter`,
        })),
      }
    : undefined;
  return { ...r, ...(plan ? { plan } : {}), ...(decision ? { decision } : {}) };
}
