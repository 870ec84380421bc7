// Whether the Flink autoscaler holds a target's parallelism: its overrides in the reconciled spec, or its switch on.
import { configValue, readFlinkConfig } from './flink-config.js';
import { getPath } from './merge-patch.js';
import { lastReconciledSpecOf } from './resource.js';

export const PARALLELISM_OVERRIDES_KEY = 'pipeline.jobvertex-parallelism-overrides';
export const AUTOSCALER_SWITCH = ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'] as const;

/** `<vertex id>:<parallelism>,…` as a map (entries that do not parse are skipped). */
export function parseOverrides(text: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of (text ?? '').split(/[,;]/)) {
    const [id, value] = entry.split(':').map((s) => s.trim());
    if (id && value && /^\d+$/.test(value) && Number(value) >= 1) out[id] = Number(value);
  }
  return out;
}

/**
 * The vertex → parallelism overrides the reconciled spec holds and the target's own spec does not: what the
 * autoscaler wrote (it applies them at every reconcile). Empty when there are none.
 */
export function autoscalerOverrides(resource: unknown): Record<string, number> {
  const reconciled = configValue(
    getPath(lastReconciledSpecOf(resource), ['flinkConfiguration']),
    PARALLELISM_OVERRIDES_KEY,
  );
  if (reconciled === undefined) return {};
  const own = configValue(getPath(resource, ['spec', 'flinkConfiguration']), PARALLELISM_OVERRIDES_KEY);
  if (own !== undefined && own.trim() === reconciled.trim()) return {};
  return parseOverrides(reconciled);
}

/** The autoscaler's switch is on in the target's configuration (a session job's layered over its cluster's). */
export function autoscalerEnabled(resource: unknown, sessionCluster?: unknown): boolean {
  return readFlinkConfig(resource, AUTOSCALER_SWITCH, sessionCluster)?.value.trim().toLowerCase() === 'true';
}

/** A target is autoscaled when the reconciled spec holds overrides its spec does not, or the autoscaler is on. */
export function isAutoscaled(resource: unknown, sessionCluster?: unknown): boolean {
  return Object.keys(autoscalerOverrides(resource)).length > 0 || autoscalerEnabled(resource, sessionCluster);
}

/** `Source: 2, Sink: 1` — vertex names where known (`names`: id → name), else ids. */
export function describeOverrides(overrides: Record<string, number>, names: Record<string, string> = {}): string {
  return Object.entries(overrides)
    .map(([id, p]) => `${names[id] ?? id}: ${p}`)
    .join(', ');
}

/** A configuration write that turns the autoscaler off: its switch set to false, or unset (null or no value). */
export function switchesAutoscalerOff(key: string, value: unknown): boolean {
  if (!(AUTOSCALER_SWITCH as readonly string[]).includes(key)) return false;
  return value === null || value === undefined || String(value).trim().toLowerCase() === 'false';
}
