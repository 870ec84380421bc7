// The policy in force: read from POLICY_FILE at start and again whenever the file changes (ConfigMap updates).
import { stat } from 'node:fs/promises';
import type { Policy } from '../domain/policy/schema.js';
import { loadPolicyFile } from './policy-load.js';

export type PolicyState = { ok: true; policy: Policy; hash: string } | { ok: false; message: string };

export interface PolicyProvider {
  current(): Promise<PolicyState>;
}

/** A fixed policy (tests, sandbox). */
export function staticPolicy(policy: Policy, hash = 'static'): PolicyProvider {
  return { current: async () => ({ ok: true, policy, hash }) };
}

export class PolicyFileSource implements PolicyProvider {
  private cached: { mtimeMs: number; size: number; state: PolicyState } | undefined;

  constructor(private readonly path: string) {}

  async current(): Promise<PolicyState> {
    let info: { mtimeMs: number; size: number };
    try {
      info = await stat(this.path);
    } catch {
      this.cached = undefined;
      return { ok: false, message: `there is no policy file (${this.path}), so every operation is refused; ask an admin to set POLICY_FILE` };
    }
    if (this.cached && this.cached.mtimeMs === info.mtimeMs && this.cached.size === info.size) return this.cached.state;
    const loaded = await loadPolicyFile(this.path);
    const state: PolicyState = loaded.ok
      ? { ok: true, policy: loaded.policy, hash: loaded.hash }
      : { ok: false, message: `the policy file ${this.path} is not valid, so every operation is refused: ${loaded.errors.slice(0, 3).join('; ')}` };
    this.cached = { mtimeMs: info.mtimeMs, size: info.size, state };
    return state;
  }
}
