// What the bot's services share: their dependencies, ids and nonces, cached group membership, faults in plain words.
import type { Logger } from '../log.js';
import type { AuditRecorder } from './ports/audit-log.js';
import { newOperationId } from '../domain/engines/operation.js';
import { GroupMembership, UsergroupResolutionError } from './groups.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { isKubeError, isUnreachable } from '../kube/errors.js';
import type { Target } from '../domain/model/target.js';
import type { CrdSource } from '../kube/crds.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import type { FlinkClient } from '../kube/flink-client.js';
import type { PodLogs } from '../kube/pod-logs.js';
import type { AssessDeps } from './assess.js';
import type { PolicyProvider } from './policy-source.js';
import type {
  BreakGlassIndex,
  CardPoster,
  ChannelMembership,
  Enqueuer,
  FreezeStore,
  LockStore,
  OperationStore,
  UsergroupMembers,
} from './ports/index.js';

export interface BotDeps {
  store: OperationStore;
  freezes: FreezeStore;
  leases: Pick<LockStore, 'holder' | 'listLeases'>;
  /** Every cluster the bot reads (docs/deployment.md#several-clusters). */
  clusters: ClusterAccess;
  /** Whether a worker of a cluster is running (a thread says so when none is); absent: not checked. */
  workers?: { present(cluster: string): Promise<boolean> };
  policy: PolicyProvider;
  membership: MembershipSource;
  /** Who is in a channel, for `--incident` (docs/policy.md#incident-channels); absent: only channels the policy names. */
  channelMembers?: ChannelMembership;
  enqueuer: Enqueuer;
  cards: CardPoster;
  logger: Logger;
  /** ms; policy schedules, expiry and history times all read this clock. */
  now: () => number;
  /** `crypto.randomBytes` in production. */
  random: (size: number) => Uint8Array;
  /**
   * Break-glass operations not yet reviewed (docs/policy.md#break-glass); absent: not indexed (reviews still work from
   * the card).
   */
  breakGlass?: BreakGlassIndex;
  /** Audit events that belong to no operation change (docs/audit.md); absent: none written (unit tests). */
  audit?: AuditRecorder;
}

/** `op-` + 10 base36 characters. */
export function newOpId(random: (size: number) => Uint8Array): string {
  return newOperationId(() => random(16));
}

/** A positive 48-bit integer: exact in JSON and JavaScript, and as an int64 in Kubernetes. */
export function newNonce(random: (size: number) => Uint8Array): number {
  return Buffer.from(random(6)).readUIntBE(0, 6) + 1;
}

/**
 * The clusters the bot reads: their names (several: targets carry a cluster, docs/deployment.md#several-clusters) and
 * each target's clients. Flink REST absent: no health gate.
 */
export interface ClusterAccess {
  readonly names: readonly string[];
  kube(target: Pick<Target, 'cluster'>): FlinkClient;
  rest(target: Pick<Target, 'cluster'>): FlinkRest | undefined;
  /** Pods and their logs (docs/commands.md#flink-logs); absent: `/flink logs` says it cannot read them. */
  pods?(target: Pick<Target, 'cluster'>): PodLogs;
  /** The installed Flink CRDs (docs/deployment.md#operator-versions); absent: plans are not checked against them. */
  crds?(target: Pick<Target, 'cluster'>): CrdSource;
}

export function assessDeps(deps: BotDeps): AssessDeps {
  return {
    clients: (target) => ({
      kube: deps.clusters.kube(target),
      rest: deps.clusters.rest(target),
      crds: deps.clusters.crds?.(target),
    }),
    getFreeze: (target) => deps.freezes.get(target),
    getOperation: (id) => deps.store.get(id),
    now: () => new Date(deps.now()),
    nonce: () => newNonce(deps.random),
  };
}

/**
 * One GroupMembership per policy version, so user groups are resolved once per TTL across requests; a new
 * policy (other groups) starts a fresh cache.
 */
export class MembershipSource {
  private cached: { hash: string; membership: GroupMembership } | undefined;

  constructor(
    private readonly members: UsergroupMembers,
    private readonly now: () => number = Date.now,
  ) {}

  for(policy: Policy, hash: string): GroupMembership {
    if (this.cached?.hash !== hash) {
      this.cached = { hash, membership: new GroupMembership(policy, this.members, { now: this.now }) };
    }
    return this.cached.membership;
  }
}

/** A fault (not a denial) in words the person in Slack can act on. */
export function describeFault(error: unknown): string {
  if (isUnreachable(error) && error.cluster !== undefined)
    return `cannot reach cluster ${error.cluster}: ${error.message}`;
  if (isKubeError(error)) return `the Kubernetes API call failed (${error.code}): ${error.message}`;
  if (error instanceof UsergroupResolutionError) return `${error.message}; group membership could not be checked`;
  const message = error instanceof Error ? error.message : String(error);
  return `an internal error happened: ${message}`;
}
