// What the bot's answers show, owned by the app: plain data its services gather and the Slack renderers turn into Block Kit.
import type { Criterion, EvidenceVerdict } from '../domain/kit/evidence/types.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import type { OperationIntent } from '../domain/kinds/index.js';
import type { JobExceptionEntry, RestartEntry } from '../domain/model/job-exceptions.js';
import type { SnapshotEntry } from '../domain/model/snapshot-history.js';
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import type { Target } from '../domain/model/target.js';
import type { OperationSchedule } from '../domain/kit/schedule/resolve.js';
import type { ListPageNumber } from '../domain/kit/language/list.js';

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
  freeze?: { by: string; reason: string; at: number; until?: number };
  lastOperation?: Pick<OperationRecord, 'id' | 'kind' | 'state' | 'requester' | 'updatedAt'>;
  /** status.error message, when set. */
  error?: string;
  /**
   * Who applies the target from Git, in words, whether Flux is paused for it, and the mark for which Flux does not
   * apply Git to it (docs/policy.md#gitops-managed-targets).
   */
  gitops?: { owner: string; paused: boolean; pausedBy?: string; skipped?: string };
  /** The last operation's most recent revert (a REVERTED note), as recorded (docs/lifecycle.md#after-completed). */
  lastRevert?: HistoryEntry;
  /** The cluster's installed Flink CRDs in words (docs/deployment.md#operator-versions). */
  crds?: string;
  /** What this target shows of the operator beside those CRDs; `mismatch`: a 1.16 operator on 1.15 CRDs. */
  operator?: { words: string; mismatch: boolean };
}

export interface ListView {
  /** `namespace`, or `cluster/namespace` with several clusters (grouped by cluster). */
  namespaces: string[];
  /** The clusters, when there are several. */
  clusters?: string[];
  items: { target: Target; lifecycleState?: string; jobState?: string; frozen?: boolean }[];
  /** Namespaces that could not be read, with why (e.g. "no access"). */
  problems: { namespace: string; message: string }[];
}

/** Where a list page starts: a cluster (undefined: the only one) and a page of it (docs/commands.md#paging-through-list). */
export interface ListPosition {
  cluster?: string;
  page: ListPageNumber;
}

/** One cluster's part of a list answer: its page `page` of `pages`, resources `first`–`last` of `total`. */
export interface ListSection {
  cluster?: string;
  page: number;
  pages: number;
  first: number;
  last: number;
  total: number;
  /** Its places (`namespace` or `cluster/namespace`) without any resource, read without a problem. */
  empty: string[];
}

/** A list answer in pages: the shown items only, with what each cluster shows and where the buttons lead. */
export type PagedListView = ListView & {
  paging: {
    /** The typed namespace, carried by the buttons. */
    namespace?: string;
    sections: ListSection[];
    previous?: ListPosition;
    next?: ListPosition;
  };
};

export interface ExplainView {
  intent: OperationIntent;
  target: Target;
  environment?: string;
  plan: Plan;
  decision: PolicyDecision;
  /** `--at`/`--window` resolved now: when it would run (docs/policy.md#scheduled-operations). */
  schedule?: OperationSchedule;
  /** What the command lacks that a request would be refused for, e.g. "a --reason is required" (plain text). */
  missing?: string[];
}

export interface LocksView {
  leases: { target: string; opId: string; since: number }[];
  /** `until`: when it ends by itself (`lock --for`). */
  freezes: { target: string; by: string; reason: string; at: number; until?: number }[];
  audit: { what: string; target: string; by: string; reason?: string; at: number }[];
}

/**
 * `savepoints <target>`: the operator's recorded path first, then the snapshots, newest first
 * (docs/commands.md#flink-savepoints).
 */
export interface SavepointsView {
  target: Target;
  /** `jobStatus.upgradeSavepointPath`, with the restore command (without the slash command) when it is a usable URI. */
  recorded?: { path: string; restore?: string };
  snapshots: (SnapshotEntry & { restore?: string })[];
  /** Snapshots of the target before the limit. */
  total: number;
  limit: number;
  /** Why the FlinkStateSnapshots could not be listed (the recorded path still shows). */
  problem?: string;
}

/** `exceptions <target>`: what went wrong recently (docs/commands.md#flink-exceptions). */
export interface ExceptionsView {
  target: Target;
  exceptions: JobExceptionEntry[];
  total: number;
  limit: number;
  failovers: number;
  restarts: RestartEntry[];
  /** status.error as text. */
  error?: string;
  jobState?: string;
  /** What could not be read, e.g. the events, or Flink's REST API (its exception history). */
  notes: string[];
  /** Flink's exception history was read (REST `/jobs/<id>/exceptions`), so the list holds its entries too. */
  flinkHistory: boolean;
}

/** One operation as App Home lists it. */
export type HomeOperation = Pick<
  OperationRecord,
  'id' | 'kind' | 'target' | 'state' | 'requester' | 'createdAt' | 'updatedAt' | 'expiresAt'
> & {
  /** The approval buttons' block binding: the plan digest (only on approvals waiting for the viewer). */
  planDigest?: string;
  /** Requested with --break-glass (docs/policy.md#break-glass). */
  breakGlass?: boolean;
  /** SCHEDULED: when it runs (docs/policy.md#scheduled-operations). */
  schedule?: { runAt: number; zone: string; window?: string; closesAt?: number };
  card?: { channel: string; ts: string };
};

/** App Home for one person (docs/lifecycle.md#app-home). */
export interface HomeView {
  user: string;
  /** AWAITING_APPROVAL operations this person may approve now. */
  approvals: HomeOperation[];
  /** Their own operations not yet finished, including SCHEDULED ones. */
  mine: HomeOperation[];
  /** Break-glass operations that ended and that this person may review (docs/policy.md#break-glass), oldest first. */
  reviews?: HomeOperation[];
  leases: LocksView['leases'];
  freezes: LocksView['freezes'];
  latest: HomeOperation[];
  /** Parts that could not be read (e.g. the policy), in words. */
  problems: string[];
}

/** `/flink logs` (docs/commands.md#flink-logs): the lines of one container, masked, always answered privately. */
export interface LogsView {
  target: Target;
  /** The FlinkDeployment whose pod was read: the target, or a session job's session cluster. */
  cluster: string;
  pod: string;
  container: string;
  /** Which process: the JobManager, or TaskManager n. */
  role: { kind: 'jobmanager' } | { kind: 'taskmanager'; n: number };
  /** The lines to show, oldest first, already masked. */
  lines: string[];
  /** `--lines` as asked (default 50). */
  requested: number;
  /** How many lines were read from the API server (`tailLines`). */
  read: number;
  grep?: string;
  /** How many lines were masked or redacted. */
  masked: number;
  notes: string[];
  /** Bytes the read stopped at (`limitBytes`) when the lines asked for held more: the newest of them are not shown. */
  cutAtBytes?: number;
}
