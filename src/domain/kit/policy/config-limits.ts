// Policy `limits` for the memory keys of `config` (docs/policy.md#memory-keys): `taskmanager.memory.*` and
// `jobmanager.memory.*` sizes are held to the same ceilings as `resources`.
import type { CheckResult } from '../../model/decision.js';
import { parseMemorySize } from '../../model/memory-size.js';
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

function judged(key: string, value: string, limits: PolicyLimits): { over?: string; within?: string } {
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
 * The `limits` check of a `config set`: failed (DENIED) when a memory size it sets is above its role's ceiling or is no
 * size; none when the command sets no memory size the policy caps.
 */
export function configMemoryCheck(
  entries: readonly { key: string; value?: string }[],
  limits: PolicyLimits = {},
): CheckResult[] {
  const over: string[] = [];
  const within: string[] = [];
  for (const { key, value } of entries) {
    if (value === undefined) continue;
    const result = judged(key, value, limits);
    if (result.over !== undefined) over.push(result.over);
    if (result.within !== undefined) within.push(result.within);
  }
  if (over.length > 0) return [fail(CHECK.limits, over.join('; '))];
  return within.length > 0 ? [pass(CHECK.limits, within.join('; '))] : [];
}
