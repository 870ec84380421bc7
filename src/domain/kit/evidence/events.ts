// Kubernetes Events as evidence: which ones happened after the submission, and what each Warning reason means.
import { isRecord } from '../../model/merge-patch.js';
import { errorText } from '../../model/resource.js';
import type { EventBaseline } from './types.js';

/** Autoscaler activity: reported with the outcome, never blocking it (docs/lifecycle.md#evidence). */
export const NON_BLOCKING_REASONS = [
  'ScalingReport',
  'IneffectiveScaling',
  'MemoryPressure',
  'ResourceQuotaReached',
  'AutoscalerError',
  // Operator 1.16: a scaling-executor plugin refused the autoscaler's decision; nothing of ours was touched.
  'ScalingVetoed',
] as const;

/** Pod/Deployment reasons the operator surfaces as the JobManager failing (DeploymentFailedException). */
export const CONTAINER_REASONS = [
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'OOMKilled',
  'FailedCreate',
  'FailedMount',
] as const;

/** A core/v1 Event read defensively: absent or mistyped fields read as absent. */
export interface EventView {
  name: string | undefined;
  type: string;
  reason: string;
  message: string;
  /** `count`, 1 when absent (series-less events). */
  count: number;
  /** ms of `lastTimestamp`, else `eventTime`, else `firstTimestamp`. */
  lastSeen: number | undefined;
  firstSeen: number | undefined;
  involved: { kind?: string; name?: string; uid?: string };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function time(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The event as a view, or undefined when it is not an object with a reason. */
export function readEvent(raw: unknown): EventView | undefined {
  if (!isRecord(raw)) return undefined;
  const reason = str(raw.reason);
  if (reason === undefined) return undefined;
  const meta = isRecord(raw.metadata) ? raw.metadata : {};
  const involved = isRecord(raw.involvedObject) ? raw.involvedObject : {};
  const count = typeof raw.count === 'number' && Number.isSafeInteger(raw.count) && raw.count > 0 ? raw.count : 1;
  const firstSeen = time(raw.firstTimestamp);
  return {
    name: str(meta.name),
    type: str(raw.type) ?? 'Normal',
    reason,
    message: typeof raw.message === 'string' ? raw.message : '',
    count,
    lastSeen: time(raw.lastTimestamp) ?? time(raw.eventTime) ?? firstSeen,
    firstSeen,
    involved: { kind: str(involved.kind), name: str(involved.name), uid: str(involved.uid) },
  };
}

function checkBaseline(baseline: EventBaseline): void {
  if (!Number.isFinite(baseline.takenAt))
    throw new TypeError(`event baseline: takenAt ${String(baseline.takenAt)} is not a time in ms`);
  if (!isRecord(baseline.counts)) throw new TypeError('event baseline: counts is not an object of event name → count');
}

/**
 * The baseline to take right before submitting: every listed event's count, by name, and the latest time the
 * cluster wrote on any of them (cluster clock: only ever compared with other cluster-written times).
 */
export function takeEventBaseline(events: readonly unknown[], takenAt: number): EventBaseline {
  const counts: Record<string, number> = {};
  let clusterLatest: number | undefined;
  for (const raw of events) {
    const event = readEvent(raw);
    if (event?.name === undefined) continue;
    counts[event.name] = Math.max(counts[event.name] ?? 0, event.count);
    for (const at of [event.lastSeen, event.firstSeen])
      if (at !== undefined) clusterLatest = Math.max(clusterLatest ?? at, at);
  }
  const baseline: EventBaseline = { takenAt, counts, ...(clusterLatest === undefined ? {} : { clusterLatest }) };
  checkBaseline(baseline);
  return baseline;
}

/**
 * Whether the event happened after the submission: not listed then, or its count grew since
 * (docs/lifecycle.md#evidence). Event times are written by the cluster's clock, which may be minutes away from the
 * worker's, so they are never compared with the baseline's own time; only a legacy baseline without counts
 * (`wallClock`) falls back to it.
 */
export function isAfterSubmission(baseline: EventBaseline, event: EventView): boolean {
  if (baseline.wallClock === true) {
    const second = Math.floor(baseline.takenAt / 1000) * 1000;
    if (event.lastSeen !== undefined && event.lastSeen < second) return false;
  }
  if (event.name === undefined || !Object.hasOwn(baseline.counts, event.name)) return true;
  const before = baseline.counts[event.name] ?? 0;
  if (event.count > before) return true;
  // Expired (an hour after its last update) and recorded again since the listing: a count no higher, first seen
  // after the latest time the cluster had written on any listed event (in that very second only with a lower count:
  // cluster times have whole seconds, and the listed event itself may have been first seen then).
  const latest = baseline.clusterLatest;
  if (event.firstSeen === undefined || latest === undefined) return false;
  return event.count < before ? event.firstSeen >= latest : event.firstSeen > latest;
}

/** The events that happened after the submission (docs/lifecycle.md#evidence), as given. */
export function eventsAfter(baseline: EventBaseline, events: unknown[]): unknown[] {
  checkBaseline(baseline);
  return events.filter((raw) => {
    const event = readEvent(raw);
    return event !== undefined && isAfterSubmission(baseline, event);
  });
}

/** Whether the event is about the object `kind`/`name` (and `uid`, when both sides know it). */
export function involves(event: EventView, kind: string, name: string, uid?: string): boolean {
  if (event.involved.kind !== undefined && event.involved.kind !== kind) return false;
  if (event.involved.name !== name) return false;
  return uid === undefined || event.involved.uid === undefined || event.involved.uid === uid;
}

/** `10:42:05 UTC`. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** `Warning ValidationError at 10:42:05 UTC (×3): message`, as the thread shows it. */
export function describeEvent(event: EventView): string {
  const when = event.lastSeen === undefined ? '' : ` at ${clockTime(event.lastSeen)}`;
  const times = event.count > 1 ? ` (×${event.count})` : '';
  const message = event.message === '' ? '' : `: ${errorText(event.message)}`;
  return `${event.type} ${event.reason}${when}${times}${message}`;
}

export function isNonBlocking(reason: string): boolean {
  return (NON_BLOCKING_REASONS as readonly string[]).includes(reason);
}

export function isContainerReason(reason: string): boolean {
  return (CONTAINER_REASONS as readonly string[]).includes(reason);
}
