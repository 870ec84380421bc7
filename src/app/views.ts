// What the bot's answers show, owned by the app: plain data its services gather and the Slack renderers turn into Block Kit.
import type { Criterion, EvidenceVerdict } from '../domain/evidence/types.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import type { OperationIntent } from '../domain/kinds/index.js';
import type { OperationRecord } from '../domain/model/operation.js';
import type { Plan } from '../domain/model/plan.js';
import type { Target } from '../domain/model/target.js';

/** What the worker stores in `record.evidence` (see src/worker); renderers read it defensively. */
export interface StoredEvidence {
  verdict?: EvidenceVerdict;
  /** One line: "7 of 7 criteria met; proof depth: …". */
  summary?: string;
  criteria?: Criterion[];
  [key: string]: unknown;
}

export interface StatusView {
  target: Target;
  environment?: string;
  lifecycleState?: string;
  jobState?: string;
  image?: string;
  parallelism?: number;
  upgradeMode?: string;
  lastSavepoint?: { location: string; at?: number };
  lease?: { opId: string; since: number };
  freeze?: { by: string; reason: string; at: number };
  lastOperation?: Pick<OperationRecord, 'id' | 'kind' | 'state' | 'requester' | 'updatedAt'>;
  /** status.error message, when set. */
  error?: string;
}

export interface ListView {
  namespaces: string[];
  items: { target: Target; lifecycleState?: string; jobState?: string; frozen?: boolean }[];
  /** Namespaces that could not be read, with why (e.g. "no access"). */
  problems: { namespace: string; message: string }[];
}

export interface ExplainView {
  intent: OperationIntent;
  target: Target;
  environment?: string;
  plan: Plan;
  decision: PolicyDecision;
}

export interface LocksView {
  leases: { target: string; opId: string; since: number }[];
  freezes: { target: string; by: string; reason: string; at: number }[];
  audit: { what: string; target: string; by: string; reason?: string; at: number }[];
}
