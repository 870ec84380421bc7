// The policy in force: read from POLICY_FILE at start and again whenever the file changes (ConfigMap updates);
// an invalid edit is logged with every problem and the last valid policy stays in force
// (docs/policy.md#changing-the-policy).
import { SingleFlight } from '../concurrency/single-flight.js';
import { stat } from 'node:fs/promises';
import type { Policy } from '../domain/engines/policy/schema.js';
import type { Logger } from '../log.js';
import { loadPolicyFile } from './policy-load.js';

export type PolicyState = { ok: true; policy: Policy; hash: string } | { ok: false; message: string };

export interface PolicyProvider {
  current(): Promise<PolicyState>;
}

/** A fixed policy (tests, sandbox). */
export function staticPolicy(policy: Policy, hash = 'static'): PolicyProvider {
  return { current: async () => ({ ok: true, policy, hash }) };
}

export interface PolicyFileSourceOptions {
  /** Where an invalid file's problems (each named by its path) and a recovery are logged. */
  logger?: Pick<Logger, 'error' | 'info'>;
  /**
   * The installation's cluster names (docs/policy.md#several-clusters). When given, a policy naming a cluster not among
   * them (or a cluster glob matching none) is invalid like a schema error: logged, and the last valid policy stays.
   */
  clusters?: readonly string[];
  /**
   * Each read of a changed file, valid or not, with the file's SHA-256 (the audit's `policy_loaded` and
   * `policy_rejected`: docs/audit.md#the-events); absent: not told.
   */
  onLoad?: (load: PolicyLoad) => void;
}

/** One read of a changed policy file. */
export interface PolicyLoad {
  path: string;
  accepted: boolean;
  /** SHA-256 of the file's bytes; absent when it could not be read. */
  sha256?: string;
  problems: string[];
}

interface Read {
  mtimeMs: number;
  size: number;
  /** The file's own state: what it says now, valid or not. */
  file: PolicyState;
  problems: string[];
}

export class PolicyFileSource implements PolicyProvider {
  private read: Read | undefined;
  private lastValid: Extract<PolicyState, { ok: true }> | undefined;
  private readonly reads = new SingleFlight<'file', PolicyState>();

  constructor(
    private readonly path: string,
    private readonly options: PolicyFileSourceOptions = {},
  ) {}

  /** Whether the file as last read is a valid policy (`flink_chatops_policy_valid`); undefined before the first read. */
  get valid(): boolean | undefined {
    return this.read?.file.ok;
  }

  /** The policy in force: the file's when valid, else the last valid one, else a refusal naming the problem. */
  async current(): Promise<PolicyState> {
    // One stat (and read) in flight for every caller of a burst (docs/operating.md#under-a-burst).
    const file = await this.reads.run('file', () => this.refresh());
    if (file.ok) return file;
    return this.lastValid ?? file;
  }

  private async refresh(): Promise<PolicyState> {
    let info: { mtimeMs: number; size: number };
    try {
      info = await stat(this.path);
    } catch {
      const message = `there is no policy file (${this.path}), so every operation is refused; ask an admin to set POLICY_FILE`;
      return this.record({
        mtimeMs: -1,
        size: -1,
        file: { ok: false, message },
        problems: [`${this.path}: no such file`],
      });
    }
    if (this.read && this.read.mtimeMs === info.mtimeMs && this.read.size === info.size) return this.read.file;
    const loaded = await loadPolicyFile(this.path, this.options.clusters ? { clusters: this.options.clusters } : {});
    const file: PolicyState = loaded.ok
      ? { ok: true, policy: loaded.policy, hash: loaded.hash }
      : {
          ok: false,
          message: `the policy file ${this.path} is not valid, so every operation is refused: ${loaded.errors.slice(0, 3).join('; ')}`,
        };
    const problems = loaded.ok ? [] : loaded.errors;
    const sha256 = 'hash' in loaded ? loaded.hash : undefined;
    this.options.onLoad?.({ path: this.path, accepted: loaded.ok, ...(sha256 ? { sha256 } : {}), problems });
    return this.record({ mtimeMs: info.mtimeMs, size: info.size, file, problems });
  }

  /** Keeps what was read; logs each change of validity (every problem when invalid) once. */
  private record(next: Read): PolicyState {
    const before = this.read;
    this.read = next;
    if (next.file.ok) {
      if (before && !before.file.ok)
        this.options.logger?.info(
          { policyFile: this.path, hash: next.file.hash },
          'policy file is valid again; it is now in force',
        );
      this.lastValid = next.file;
    } else if (!before || before.file.ok || before.problems.join('\n') !== next.problems.join('\n')) {
      const kept = this.lastValid
        ? `the last valid policy (${this.lastValid.hash.slice(0, 12)}) stays in force`
        : 'every operation is refused';
      this.options.logger?.error(
        { policyFile: this.path, problems: next.problems },
        `policy file is invalid; ${kept}: ${next.problems.join('; ')}`,
      );
    }
    return next.file;
  }
}
