// Policy `limits` for the memory keys of `config` (docs/policy.md#memory-keys): `taskmanager.memory.*` and
// `jobmanager.memory.*` sizes, and the memory limit factors, are held to the same ceilings as `resources`.
import type { CheckResult } from '../../model/decision.js';
import { formatBytes, parseMemorySize } from '../../model/memory-size.js';
import { effectiveAmount, roleSpecForOperator, type Role } from '../../model/resource-requirements.js';
import { CHECK, fail, pass, type PolicyLimits } from './check-kit.js';

const ROLES = [
  { prefix: 'taskmanager.memory.', limit: 'taskManagerMemory' },
  { prefix: 'jobmanager.memory.', limit: 'jobManagerMemory' },
] as const;

/** A memory key that holds a size (`process.size`, `network.max`, `segment-size`), not a fraction or a switch. */
function isSizeKey(key: string): boolean {
  const last = key.slice(key.lastIndexOf('.') + 1);
  return last === 'size' || last === 'min' || last === 'max' || last.endsWith('-size');
}

/** The factor of the container's memory limit over its request (Flink's `kubernetes.*.memory.limit-factor`). */
const FACTOR_KEYS: Readonly<Record<string, { role: Role; limit: 'taskManagerMemory' | 'jobManagerMemory' }>> = {
  'kubernetes.taskmanager.memory.limit-factor': { role: 'taskManager', limit: 'taskManagerMemory' },
  'kubernetes.jobmanager.memory.limit-factor': { role: 'jobManager', limit: 'jobManagerMemory' },
};

type Judged = { over?: string; within?: string };

/** A limit factor lets the container grow to the role's memory times the factor: that is what the ceiling holds. */
function judgedFactor(key: string, value: string, limits: PolicyLimits, resource: unknown): Judged {
  const spec = FACTOR_KEYS[key];
  const limit = spec === undefined ? undefined : limits[spec.limit];
  if (spec === undefined || limit === undefined) return {};
  const named = `limits.${spec.limit} = ${limit.text}`;
  const factor = /^[0-9]{1,6}(?:\.[0-9]{1,6})?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(factor >= 1))
    return { over: `${key} ${JSON.stringify(value)} is not a factor of at least 1, so it cannot be held to ${named}` };
  const memory = effectiveAmount(roleSpecForOperator(resource, spec.role).roleSpec, 'memory');
  if (memory === undefined) return {};
  const grows = `${key} ${value} lets the ${spec.role} container grow to ${formatBytes(Math.ceil(memory * factor))}`;
  return memory * factor > limit.bytes
    ? { over: `${grows}, above the policy limit ${named}` }
    : { within: `${grows}, within ${named}` };
}

function judged(key: string, value: string, limits: PolicyLimits, resource: unknown): Judged {
  if (Object.hasOwn(FACTOR_KEYS, key)) return judgedFactor(key, value, limits, resource);
  const role = ROLES.find((r) => key.startsWith(r.prefix));
  const limit = role === undefined ? undefined : limits[role.limit];
  if (role === undefined || limit === undefined || !isSizeKey(key)) return {};
  const parsed = parseMemorySize(value, key);
  const named = `limits.${role.limit} = ${limit.text}`;
  if (!parsed.ok) return { over: `${parsed.message}, so it cannot be held to ${named}` };
  // One part of the process above the ceiling puts the whole process above it.
  if (parsed.size.bytes > limit.bytes) return { over: `${key} ${value} is above the policy limit ${named}` };
  return { within: `${key} ${value} is within ${named}` };
}

/**
 * The `limits` check of a `config set`: failed (DENIED) when a memory size it sets, or the role's memory times a limit
 * factor it sets, is above the role's ceiling, or the value is no size (factor); none when it sets nothing the policy
 * caps.
 */
export function configMemoryCheck(
  entries: readonly { key: string; value?: string }[],
  limits: PolicyLimits = {},
  resource?: unknown,
): CheckResult[] {
  const over: string[] = [];
  const within: string[] = [];
  for (const { key, value } of entries) {
    if (value === undefined) continue;
    const result = judged(key, value, limits, resource);
    if (result.over !== undefined) over.push(result.over);
    if (result.within !== undefined) within.push(result.within);
  }
  if (over.length > 0) return [fail(CHECK.limits, over.join('; '))];
  return within.length > 0 ? [pass(CHECK.limits, within.join('; '))] : [];
}
