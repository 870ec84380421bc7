// The spec as each operator release's Java model reads it: what the CR holds is not what the operator works with.
// 1.15 has no `jobManager/taskManager.resources` (an unknown field it never sees, so a change to it is no change);
// 1.16 has it and serialises it, `null` when unset, into lastReconciledSpec (docs/sandbox.md#operator-releases).
import type { Spec } from './spec-json.js';
import type { OperatorVersion } from './versions.js';

const ROLES = ['jobManager', 'taskManager'] as const;

/** The spec the operator of `version` deserialises from the CR (FlinkDeployment specs; others pass through). */
export function operatorSpec(spec: Spec, version: OperatorVersion): Spec {
  let out = spec;
  for (const role of ROLES) {
    const current = spec[role];
    if (!current || typeof current !== 'object' || Array.isArray(current)) continue;
    const roleSpec = { ...(current as Spec) };
    if (version === '1.15') delete roleSpec.resources;
    else roleSpec.resources ??= null;
    out = { ...out, [role]: roleSpec };
  }
  return out;
}
