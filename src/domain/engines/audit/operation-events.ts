// The audit events of one committed change of an operation (docs/audit.md#what-each-operation-writes): which history
// entries become which actions, attributed to whom, with the change, decision or evidence each carries.
import type { HistoryEntry, OperationRecord } from '../operation.js';
import type { OperationState } from '../../model/lifecycle.js';
import { REVIEWED_ENTRY } from '../policy/break-glass.js';
import { REVERTED_NOTE } from '../../kit/evidence/reverts.js';
import type { JsonObject } from '../../kit/audit/canonical.js';
import type { AuditAction, AuditActor, AuditDraft, AuditOp } from '../../kit/audit/event.js';
import type { Plan } from '../../model/plan.js';
import { auditedAt, withSecretsReplaced } from '../../model/secret-config.js';

/** The team of an operation recorded before audit events carried one (docs/audit.md#the-events). */
export const UNKNOWN_TEAM = 'unknown';
const DEFAULT_CLUSTER = 'default';

const STATE_ACTIONS: Record<OperationState, AuditAction> = {
  ACCEPTED: 'requested',
  DENIED: 'denied',
  AWAITING_APPROVAL: 'awaiting_approval',
  REJECTED: 'rejected',
  EXPIRED: 'expired',
  CANCELLED: 'cancelled',
  SCHEDULED: 'scheduled',
  QUEUED: 'queued',
  SUBMITTING: 'submitting',
  UNCERTAIN: 'uncertain',
  SUBMITTED: 'submitted',
  COMPLETED: 'completed',
  FAILED: 'failed',
  TIMED_OUT: 'timed_out',
  ABORTED: 'aborted',
};

const EVIDENCE_ACTIONS: ReadonlySet<AuditAction> = new Set([
  'uncertain',
  'completed',
  'failed',
  'timed_out',
  'aborted',
]);

/** Where ids come from (80 random bits each: `newAuditId`). */
export type AuditIds = () => string;

/** `value` as plain JSON: undefined members dropped, so the event validates and hashes as it will be read back. */
export function plainJson(value: unknown): JsonObject {
  const json = JSON.stringify(value ?? {});
  const parsed: unknown = JSON.parse(json);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {};
}

/**
 * The plan's change as the audit keeps it: a secret configuration value as its SHA-256
 * (docs/policy.md#secret-values); the record keeps the value itself, for the worker to apply.
 */
function auditedChange(plan: Plan | undefined): unknown {
  const change = plan?.change;
  if (change?.type !== 'patch') return change;
  return { ...change, patch: withSecretsReplaced(change.patch, auditedAt) };
}

function auditedDiff(plan: Plan | undefined): unknown {
  return plan?.diff.map((c) => ({ ...c, before: auditedAt(c.path, c.before), after: auditedAt(c.path, c.after) }));
}

function nonEmpty(value: JsonObject): JsonObject | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

export function auditOpOf(record: OperationRecord): AuditOp {
  const reason = (record.intent as { reason?: string }).reason;
  const incident = record.incidentChannels[0];
  return {
    id: record.id,
    kind: record.kind,
    cluster: record.target.cluster ?? DEFAULT_CLUSTER,
    namespace: record.target.namespace,
    name: record.target.name,
    ...(record.plan?.uid ? { uid: record.plan.uid } : {}),
    ...(reason ? { reason } : {}),
    ...(incident ? { incident } : {}),
  };
}

/** A Slack user of the operation's workspace, or the process that acted (`worker`, `sweep`, `system`, `bot`). */
export function auditActorOf(record: Pick<OperationRecord, 'team' | 'enterprise'>, actor: string): AuditActor {
  return {
    user: actor || 'system',
    team: record.team ?? UNKNOWN_TEAM,
    ...(record.enterprise ? { enterprise: record.enterprise } : {}),
  };
}

/** The target's uid, resourceVersion and generation before the call (from SUBMITTING) and after (from SUBMITTED). */
function submittedChange(record: OperationRecord, entry: HistoryEntry): JsonObject {
  const submitting = record.history.findLast((e) => e.type === 'state' && e.name === 'SUBMITTING' && e.seq < entry.seq);
  const plan = record.plan;
  return plainJson({
    patch: auditedChange(plan),
    before: {
      uid: plan?.uid,
      resourceVersion: submitting?.detail.resourceVersion,
      generation: plan?.generation,
    },
    after: {
      uid: entry.detail.uid ?? plan?.uid,
      resourceVersion: entry.detail.resourceVersion,
      generation: entry.detail.generation,
    },
  });
}

function stateDraft(record: OperationRecord, entry: HistoryEntry, action: AuditAction): Partial<AuditDraft> {
  const detail = plainJson(entry.detail);
  switch (action) {
    case 'requested':
      return { change: plainJson({ plan: auditedChange(record.plan), diff: auditedDiff(record.plan) }) };
    case 'denied':
    case 'awaiting_approval':
      return { decision: plainJson({ ...detail, decision: record.decision }) };
    case 'submitted':
      return { change: submittedChange(record, entry) };
    case 'submitting':
      return { change: detail };
    default:
      return EVIDENCE_ACTIONS.has(action) ? { evidence: detail } : { decision: detail };
  }
}

/** break_glass once, when an operation requested with `--break-glass` goes ahead (QUEUED or SCHEDULED). */
function breakGlassGoesAhead(record: OperationRecord, entry: HistoryEntry): boolean {
  if (!record.decision?.breakGlass || entry.type !== 'state') return false;
  if (entry.name !== 'QUEUED' && entry.name !== 'SCHEDULED') return false;
  return !record.history.some(
    (e) => e.seq < entry.seq && e.type === 'state' && (e.name === 'QUEUED' || e.name === 'SCHEDULED'),
  );
}

function actionsOf(record: OperationRecord, entry: HistoryEntry): AuditAction[] {
  if (entry.type === 'state') {
    const action = STATE_ACTIONS[entry.name as OperationState];
    if (!action) return [];
    const out: AuditAction[] = [action];
    if (breakGlassGoesAhead(record, entry)) out.unshift('break_glass');
    if (action === 'submitted' && record.plan?.gitops?.pauses) out.push('gitops_paused');
    if (action === 'submitted' && record.kind === 'gitops-resume') out.push('gitops_resumed');
    return out;
  }
  if (entry.type === 'approval' && entry.name === 'approved') return ['approved'];
  if (entry.type === REVIEWED_ENTRY.type && entry.name === REVIEWED_ENTRY.name) return ['reviewed'];
  if (entry.type === 'note' && entry.name === REVERTED_NOTE) return ['reverted'];
  return [];
}

function payloadOf(record: OperationRecord, entry: HistoryEntry, action: AuditAction): Partial<AuditDraft> {
  if (entry.type === 'state' && STATE_ACTIONS[entry.name as OperationState] === action)
    return stateDraft(record, entry, action);
  if (action === 'break_glass') return { decision: plainJson({ ...record.decision?.breakGlass }) };
  if (action === 'gitops_paused' || action === 'gitops_resumed')
    return { change: plainJson(auditedChange(record.plan)) };
  if (action === 'approved') return { decision: plainJson(entry.detail) };
  return { evidence: plainJson(entry.detail) };
}

/**
 * The audit drafts of the entries one commit appended to `record` (the record as committed), in entry order; an
 * entry that is not an audited action (a reminder, a waiting note) writes none.
 */
export function operationAuditDrafts(
  record: OperationRecord,
  entries: readonly HistoryEntry[],
  ids: AuditIds,
): AuditDraft[] {
  const op = auditOpOf(record);
  return entries.flatMap((entry) =>
    actionsOf(record, entry).map((action): AuditDraft => {
      const payload = payloadOf(record, entry, action);
      return {
        id: ids(),
        at: new Date(entry.at).toISOString(),
        actor: auditActorOf(record, entry.actor),
        action,
        op,
        ...(payload.change && nonEmpty(payload.change) ? { change: payload.change } : {}),
        ...(payload.decision && nonEmpty(payload.decision) ? { decision: payload.decision } : {}),
        ...(payload.evidence && nonEmpty(payload.evidence) ? { evidence: payload.evidence } : {}),
      };
    }),
  );
}
