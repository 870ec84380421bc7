// Which of a JobManager's or TaskManager's two resource fields the operator uses, and the memory and CPU it reads
// from it (docs/lifecycle.md#resources-on-operator-116): `resources` (Kubernetes requests and limits, operator 1.16)
// whenever it holds a request or a limit, the deprecated `resource` otherwise. Memory is read as Flink reads it
// first (`2g`, `2048m`), then as a Kubernetes quantity (`2Gi`); amounts are compared as numbers, never as text.
import { getPath, isRecord } from './merge-patch.js';
import { specMemoryBytes } from './memory-size.js';
import { lastReconciledSpecOf } from './resource.js';

export const ROLES = ['taskManager', 'jobManager'] as const;
export type Role = (typeof ROLES)[number];
/** The 1.16 field (Kubernetes requests and limits), and the deprecated one. */
export const REQUIREMENTS = 'resources';
export type ResourceField = typeof REQUIREMENTS | 'resource';
export type Amount = 'memory' | 'cpu';

const KI = 1024;
const BINARY: readonly (readonly [string, number])[] = [
  ['Ti', KI ** 4],
  ['Gi', KI ** 3],
  ['Mi', KI ** 2],
  ['Ki', KI],
];
const DECIMAL: Readonly<Record<string, number>> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

function entries(value: unknown): number {
  return value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
}

/** `resources` is in effect iff its requests or limits hold an entry (an empty block leaves `resource` in effect). */
export function fieldInEffect(roleSpec: unknown): ResourceField {
  const resources = getPath(roleSpec, ['resources']);
  return entries(getPath(resources, ['requests'])) + entries(getPath(resources, ['limits'])) > 0
    ? 'resources'
    : 'resource';
}

/** A CPU amount: a number of cores, or a Kubernetes quantity (`500m` is 0.5). */
export function cpuAmount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)([a-zA-Z]?)$/.exec(value.trim());
  const factor = match ? DECIMAL[match[2] ?? ''] : undefined;
  return match && factor !== undefined ? Number(match[1]) * factor : undefined;
}

/** Bytes of a memory amount in either field (Flink syntax first, then a Kubernetes quantity). */
export function memoryAmount(value: unknown): number | undefined {
  return specMemoryBytes(value);
}

export function amountOf(kind: Amount, value: unknown): number | undefined {
  return kind === 'memory' ? memoryAmount(value) : cpuAmount(value);
}

/** `4Gi` for 4 GiB: a Kubernetes quantity in the largest binary unit that divides the bytes exactly. */
export function memoryQuantity(bytes: number): string {
  for (const [unit, factor] of BINARY) if (bytes % factor === 0) return `${bytes / factor}${unit}`;
  return String(bytes);
}

/** Where the amount lives in a role spec: the request, else the limit (`resources`), or `resource.<kind>`. */
export function effectivePath(roleSpec: unknown, kind: Amount): string[] {
  if (fieldInEffect(roleSpec) === 'resource') return ['resource', kind];
  const request = getPath(roleSpec, ['resources', 'requests', kind]);
  const limit = getPath(roleSpec, ['resources', 'limits', kind]);
  return request === undefined && limit !== undefined ? ['resources', 'limits', kind] : ['resources', 'requests', kind];
}

/** The amount the operator uses for a role (undefined when the field in effect does not set it). */
export function effectiveAmount(roleSpec: unknown, kind: Amount): number | undefined {
  return amountOf(kind, getPath(roleSpec, effectivePath(roleSpec, kind)));
}

/**
 * The role's spec as the operator running the target reads it. Operator 1.16 writes `resources` (null when unset) into
 * every `lastReconciledSpec`; one that reconciled the target without it is older and does not know the field, so a
 * `resources` on the live object does nothing there (undefined `ignored` otherwise).
 */
export function roleSpecForOperator(resource: unknown, role: Role): { roleSpec: unknown; ignored?: true } {
  const live = getPath(resource, ['spec', role]);
  const reconciled = getPath(lastReconciledSpecOf(resource), [role]);
  if (!isRecord(live) || !isRecord(reconciled) || Object.hasOwn(reconciled, REQUIREMENTS)) return { roleSpec: live };
  if (fieldInEffect(live) === 'resource') return { roleSpec: live };
  const known = { ...live };
  delete known[REQUIREMENTS];
  return { roleSpec: known, ignored: true };
}

/** Configuration keys the operator writes from a role's spec over `flinkConfiguration`, and what sets each. */
const SPEC_SET_KEYS: Readonly<Record<string, { role: Role; kind: Amount; factor: boolean }>> = {
  'taskmanager.memory.process.size': { role: 'taskManager', kind: 'memory', factor: false },
  'jobmanager.memory.process.size': { role: 'jobManager', kind: 'memory', factor: false },
  'kubernetes.taskmanager.cpu': { role: 'taskManager', kind: 'cpu', factor: false },
  'kubernetes.jobmanager.cpu': { role: 'jobManager', kind: 'cpu', factor: false },
  'kubernetes.taskmanager.memory.limit-factor': { role: 'taskManager', kind: 'memory', factor: true },
  'kubernetes.taskmanager.cpu.limit-factor': { role: 'taskManager', kind: 'cpu', factor: true },
  'kubernetes.jobmanager.memory.limit-factor': { role: 'jobManager', kind: 'memory', factor: true },
  'kubernetes.jobmanager.cpu.limit-factor': { role: 'jobManager', kind: 'cpu', factor: true },
};

/**
 * The spec field that sets a configuration key over `flinkConfiguration`, so a change of the key there has no effect
 * (docs/lifecycle.md#resources-on-operator-116): memory and cpu from the field in effect, the limit factors from a
 * `resources` request and limit of the same amount. Undefined when the key is the configuration's to set.
 */
export function specFieldSetting(resource: unknown, key: string): string | undefined {
  const setBy = SPEC_SET_KEYS[key];
  if (setBy === undefined) return undefined;
  const { roleSpec } = roleSpecForOperator(resource, setBy.role);
  if (!setBy.factor) {
    if (effectiveAmount(roleSpec, setBy.kind) === undefined) return undefined;
    return `spec.${setBy.role}.${effectivePath(roleSpec, setBy.kind).join('.')}`;
  }
  if (fieldInEffect(roleSpec) === 'resource') return undefined;
  const both = ['requests', 'limits'].every(
    (side) => getPath(roleSpec, [REQUIREMENTS, side, setBy.kind]) !== undefined,
  );
  return both ? `spec.${setBy.role}.${REQUIREMENTS}.requests/limits.${setBy.kind}` : undefined;
}
