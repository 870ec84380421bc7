// The memory and CPU a JobManager or TaskManager gets from its spec (docs/sandbox.md#operator-releases): the
// deprecated `resource`, or on operator 1.16 `resources` (requests/limits) whenever it holds an entry, in which case
// `resource` is ignored entirely. Memory is parsed Flink-first ("2g" is 2 GiB, "2048m" 2048 MiB), then as a
// Kubernetes quantity ("1.5Gi"); a request and a limit together make the limit factor.
import type { FlinkConf, Spec } from './spec-json.js';

export type Role = 'jobManager' | 'taskManager';

export interface EffectiveResources {
  /** Flink's process memory, bytes. */
  memoryBytes: number;
  cpu: number;
  memoryLimitFactor: number;
  cpuLimitFactor: number;
}

type Quantities = Record<string, unknown>;
interface Requirements {
  requests?: Quantities | null;
  limits?: Quantities | null;
}

const GIB = 1024 ** 3;
const KIB = 1024;
const MIB = 1024 ** 2;
const TIB = 1024 ** 4;
/** Flink MemorySize.MemoryUnit names (binary units). */
const FLINK_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  bytes: 1,
  k: KIB,
  kb: KIB,
  kibibytes: KIB,
  m: MIB,
  mb: MIB,
  mebibytes: MIB,
  g: GIB,
  gb: GIB,
  gibibytes: GIB,
  t: TIB,
  tb: TIB,
  tebibytes: TIB,
};
const QUANTITY_SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
};

/** Flink's MemorySize syntax: whole number, optional unit (any case); undefined when it does not parse. */
function flinkMemory(text: string): number | undefined {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? FLINK_UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  return match && unit !== undefined ? Number(match[1]) * unit : undefined;
}

/** A Kubernetes quantity ("1.5Gi", "500m", "2", "1e9") as a number; undefined when it does not parse. */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/.exec(value.trim());
  if (!match) return undefined;
  if (match[2]) return Number(`${match[1]}${match[2]}`);
  const factor = QUANTITY_SUFFIXES[match[3] ?? ''];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}

/**
 * ResourceConfigUtils.parseResourceMemoryString: Flink's MemorySize first, else a Kubernetes quantity (upper-cased,
 * a trailing B dropped, "GI" read as "Gi"), in bytes.
 */
export function resourceMemoryBytes(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const flink = flinkMemory(value);
  if (flink !== undefined) return flink;
  let quantity = value.trim().replace(/\s/g, '').toUpperCase();
  if (quantity.endsWith('B')) quantity = quantity.slice(0, -1);
  if (quantity.endsWith('I')) quantity = `${quantity.slice(0, -1)}i`;
  const bytes = quantityValue(quantity);
  return bytes === undefined ? undefined : Math.floor(bytes);
}

/** ResourceConfigUtils.hasResourceRequirements: `resources` is in effect iff requests or limits has an entry. */
export function hasResourceRequirements(resources: unknown): resources is Requirements {
  if (!resources || typeof resources !== 'object') return false;
  const { requests, limits } = resources as Requirements;
  return Object.keys(requests ?? {}).length > 0 || Object.keys(limits ?? {}).length > 0;
}

/** The request, else the limit (ResourceConfigUtils.getRequestOrLimit). */
function requestOrLimit(resources: Requirements, key: string): unknown {
  return resources.requests?.[key] ?? resources.limits?.[key] ?? undefined;
}

/** limit / request when both are set and the request is positive (ResourceConfigUtils.computeLimitFactor). */
function limitFactor(resources: Requirements, key: string, parse: (value: unknown) => number | undefined) {
  const request = parse(resources.requests?.[key]);
  const limit = parse(resources.limits?.[key]);
  return request !== undefined && limit !== undefined && request > 0 ? limit / request : undefined;
}

const CONF_PREFIX: Record<Role, string> = { jobManager: 'jobmanager', taskManager: 'taskmanager' };

/**
 * FlinkConfigBuilder.applyResourceConfig/setResourceRequirements: the values the operator sets for one role, over
 * `flinkConfiguration` (the spec wins). The spec is the operator's model of it (operator-model.ts): on 1.15 it has
 * no `resources`.
 */
export function effectiveResources(spec: Spec, role: Role, conf: FlinkConf): EffectiveResources {
  const roleSpec = (spec[role] ?? {}) as { resource?: { cpu?: unknown; memory?: unknown }; resources?: unknown };
  const prefix = CONF_PREFIX[role];
  const confFactor = (key: string) => Number(conf[`kubernetes.${prefix}.${key}.limit-factor`] ?? 1) || 1;
  const fromConf = {
    memoryBytes: resourceMemoryBytes(conf[`${prefix}.memory.process.size`]) ?? GIB,
    cpu: Number(conf[`kubernetes.${prefix}.cpu`] ?? 1) || 1,
    memoryLimitFactor: confFactor('memory'),
    cpuLimitFactor: confFactor('cpu'),
  };
  if (hasResourceRequirements(roleSpec.resources)) {
    const resources = roleSpec.resources;
    return {
      memoryBytes: resourceMemoryBytes(requestOrLimit(resources, 'memory')) ?? fromConf.memoryBytes,
      cpu: quantityValue(requestOrLimit(resources, 'cpu')) ?? fromConf.cpu,
      memoryLimitFactor: limitFactor(resources, 'memory', resourceMemoryBytes) ?? fromConf.memoryLimitFactor,
      cpuLimitFactor: limitFactor(resources, 'cpu', quantityValue) ?? fromConf.cpuLimitFactor,
    };
  }
  const resource = roleSpec.resource ?? {};
  return {
    ...fromConf,
    memoryBytes: resourceMemoryBytes(resource.memory) ?? fromConf.memoryBytes,
    cpu: typeof resource.cpu === 'number' ? resource.cpu : fromConf.cpu,
  };
}
