// The job-alert port (docs/alerts.md): incidents of jobs that fail without anyone asking, raised by the workers that
// watch them (worker/job-alerts.ts) and shown by the notifier (notifier/alert-delivery.ts), one message per job and
// incident. Kept in Redis (store/alerts.ts) so every replica of either role sees one incident per job; in memory for
// unit tests (store/memory/alerts.ts); one conformance suite runs against both.
import type { Target } from '../../domain/model/target.js';

/** What can be wrong with a watched job (docs/alerts.md). */
export const ALERT_KINDS = ['job-failed', 'restarting', 'checkpoints-failing', 'jobmanager-error'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** One thing wrong now, in words and numbers ("4 restarts in 6 min", {restarts: 4, windowMin: 6}). */
export interface AlertSignal {
  kind: AlertKind;
  /** ms: when it was first seen in this incident. */
  since: number;
  summary: string;
  /** Where it was read: `rest`, `status` or `events`. */
  source: string;
}

export interface Incident {
  /** `inc-<10 base-36 characters>`, stable for the incident. */
  id: string;
  /** The target's cluster as the installation names it ('' for a single-cluster installation). */
  cluster: string;
  target: Target;
  /** The name of the policy `alerts` entry that matched. */
  rule: string;
  channel: string;
  mention?: string;
  /** ms */
  openedAt: number;
  updatedAt: number;
  /** What is wrong now; empty once recovered. */
  signals: AlertSignal[];
  /** Every kind seen during the incident, in the order first seen. */
  seen: AlertKind[];
  /** ms: set when the last signal cleared; the incident is then over and a later failure opens a new one. */
  recoveredAt?: number;
  /** +1 at each change (signals, recovery): the notifier renders the newest. */
  version: number;
}

/** The message that shows an incident, as the notifier stored it once posted. */
export interface IncidentMessage {
  channel: string;
  ts: string;
}

export interface ObserveInput {
  cluster: string;
  target: Target;
  rule: string;
  channel: string;
  mention?: string;
  /** What is wrong now; empty means healthy (an open incident recovers). */
  signals: AlertSignal[];
  now: number;
}

export interface ObserveResult {
  /** The target's incident after the observation (open, or just recovered); undefined when healthy and none open. */
  incident?: Incident;
  /**
   * True when this call opened, changed or recovered the incident (and appended one entry to the alert stream for
   * the notifier); false when it was already so (another replica observed the same).
   */
  changed: boolean;
}

export interface AlertStore {
  /**
   * Atomically compares what is wrong now with the target's open incident: opens one (signals and none open),
   * updates it (kinds or summaries differ; `since` of a kind already open is kept), recovers it (no signals), or
   * leaves it (same). A changed incident gets version + 1 and one stream entry, in the same step.
   */
  observe(input: ObserveInput): Promise<ObserveResult>;
  /** The target's current incident: the open one, else the last recovered one (kept for the retention). */
  get(cluster: string, target: Target): Promise<Incident | undefined>;
  /** Every open incident (metrics `flink_chatops_alerts_open`), any cluster. */
  listOpen(): Promise<Incident[]>;
  /** The message of an incident, once posted. */
  message(incidentId: string): Promise<IncidentMessage | undefined>;
  /** Stores the posted message; false when another replica stored one first (its message wins, ours is deleted). */
  setMessage(incidentId: string, message: IncidentMessage): Promise<boolean>;
}
