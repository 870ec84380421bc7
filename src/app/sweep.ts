// The sweep (docs/lifecycle.md#the-sweep), a use case every process runs (bot and worker roles): expires approvals past
// their time, re-enqueues operations that lost their job and (bot role) finishes records left ACCEPTED; idempotent
// across replicas.
import type { OperationRecord } from '../domain/engines/operation.js';
import { isOrdered } from '../domain/model/lifecycle.js';
import type { Logger } from '../log.js';
import { clusterOf, type Target } from '../domain/model/target.js';
import { jobIdOf, type OperationQueue } from '../queue/queue.js';
import type { LockStore, OperationStore } from './ports/index.js';
import { remindDueReviews, type BreakGlassDueDeps } from './break-glass-due.js';
import { Periodic } from './periodic.js';
import { sweepScheduled } from './scheduling.js';

/** After this many re-enqueues an operation is reported `stuck` (once); it keeps its state. */
export const STUCK_AFTER = 5;
export const SWEEP_INTERVAL_MS = 30_000;
/**
 * An ACCEPTED record untouched this long, whose card claim nobody holds, lost its bot: the request path posts the card
 * and records the decision in one Slack call (10 s timeout) and two Redis writes, holding the claim for as long as it
 * waits (docs/lifecycle.md#the-sweep). With the 30 s interval it is finished within a minute of the claim's lapse.
 */
export const ACCEPTED_STALE_MS = 20_000;

/**
 * Finishes a stale ACCEPTED record: card (one its bot posted, found in the channel, or a new one) and decision, or
 * CANCELLED with the requester told; leaves it ACCEPTED while another poster holds its card claim (bot role only).
 */
export interface AcceptedFinisher {
  finish(record: OperationRecord): Promise<unknown>;
  /**
   * Whether a poster holds the record's card claim right now (a bot waiting for the channel's turn or a Retry-After):
   * then it is not stale. Only a shortcut: the claim itself, taken again by `finish`, is what stops a second card.
   */
  cardInFlight?(record: OperationRecord): Promise<boolean>;
}

export interface SweepDeps {
  store: OperationStore;
  /** Each target's cluster queue (`flink-ops.<cluster>`). */
  queues: {
    /** The clusters whose queues this process may use; operations of other clusters are left to their processes. */
    readonly clusters: readonly string[];
    of(target: Pick<Target, 'cluster'>): Pick<OperationQueue, 'enqueue' | 'enqueueAt' | 'jobState' | 'removeFinished'>;
  };
  leases: Pick<LockStore, 'holder'>;
  logger: Logger;
  now?: () => number;
  /** An operation changed more recently than this is left alone (its writer may be about to enqueue it). */
  graceMs?: number;
  /** Delay of the n-th re-enqueue: base × 2^(n-1), capped. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Only processes that can post to Slack (the bot role) finish stale ACCEPTED records. */
  accepted?: AcceptedFinisher;
  acceptedStaleMs?: number;
  /** Unreviewed break-glass operations past `reviewWithin` get their daily reminder (docs/policy.md#break-glass). */
  breakGlass?: BreakGlassDueDeps;
}

export interface SweepReport {
  expired: string[];
  reenqueued: string[];
  stuck: string[];
  /** Stale ACCEPTED records this sweep claimed and finished. */
  resumed: string[];
}

export class Sweep {
  private readonly now: () => number;
  private readonly periodic: Periodic<SweepReport>;

  constructor(private readonly deps: SweepDeps) {
    this.now = deps.now ?? Date.now;
    this.periodic = new Periodic(() => this.sweep(), {
      done: (report) => {
        if (report.expired.length + report.reenqueued.length + report.resumed.length > 0)
          deps.logger.info(report, 'sweep');
      },
      failed: (error) => deps.logger.warn({ err: error }, 'sweep failed; the next one tries again'),
    });
  }

  /** Runs once now and then every `intervalMs`; a sweep still running is not started twice. */
  start(intervalMs = SWEEP_INTERVAL_MS): void {
    this.periodic.start(intervalMs, { immediately: true });
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One sweep; concurrent calls share the one in progress. */
  run(): Promise<SweepReport> {
    return this.periodic.run();
  }

  private async sweep(): Promise<SweepReport> {
    const report: SweepReport = { expired: [], reenqueued: [], stuck: [], resumed: [] };
    const now = this.now();
    for (const id of await this.deps.store.expiredAwaitingApproval(now)) {
      if (await this.expire(id, now)) report.expired.push(id);
    }
    const ids = await this.deps.store.activeIds();
    for (const record of await this.deps.store.getMany(ids)) {
      if (record.state === 'ACCEPTED' && (await this.resumeIfStale(record, now))) report.resumed.push(record.id);
      if (record.state === 'SCHEDULED') report.reenqueued.push(...(await sweepScheduled(this.deps, [record], now)));
      if (!isOrdered(record.state) || !record.plan) continue;
      if (!this.deps.queues.clusters.includes(clusterOf(record.target, this.deps.queues.clusters))) continue;
      if (now - record.updatedAt < (this.deps.graceMs ?? 5000)) continue;
      const outcome = await this.reenqueueIfLost(record);
      if (outcome === 'reenqueued' || outcome === 'stuck') report.reenqueued.push(record.id);
      if (outcome === 'stuck') report.stuck.push(record.id);
    }
    if (this.deps.breakGlass) await remindDueReviews(this.deps.breakGlass, now);
    return report;
  }

  private async expire(id: string, now: number): Promise<boolean> {
    const result = await this.deps.store.apply(id, (current) => {
      if (current.state !== 'AWAITING_APPROVAL' || current.expiresAt === undefined || current.expiresAt > now)
        return { refuse: 'not expired' };
      return {
        entries: [
          { type: 'state', name: 'EXPIRED', actor: 'sweep', role: 'sweep', detail: { expiresAt: current.expiresAt } },
        ],
      };
    });
    return result.ok;
  }

  /**
   * Claims a stale ACCEPTED record (a compare-and-set that also bumps its update time, so no other sweep takes it
   * for another ACCEPTED_STALE_MS), then finishes it. `reenqueues` counts the claims: a record whose bots keep
   * dying is reported stuck like any other.
   */
  private async resumeIfStale(record: OperationRecord, now: number): Promise<boolean> {
    const finisher = this.deps.accepted;
    if (!finisher || now - record.updatedAt < (this.deps.acceptedStaleMs ?? ACCEPTED_STALE_MS)) return false;
    if (await finisher.cardInFlight?.(record)) return false;
    const claimed = await this.deps.store.apply(record.id, (current) =>
      current.state !== 'ACCEPTED' || current.version !== record.version
        ? { refuse: 'raced' }
        : { set: { reenqueues: current.reenqueues + 1 }, entries: [] },
    );
    if (!claimed.ok) return false;
    this.deps.logger.warn(
      { opId: record.id, acceptedAt: record.createdAt },
      'operation left ACCEPTED by a stopped bot; finishing it',
    );
    await finisher.finish(claimed.record);
    return true;
  }

  /** An operation in the order with no job that will run it (and no live lease of its own) gets a new job. */
  private async reenqueueIfLost(record: OperationRecord): Promise<'alive' | 'reenqueued' | 'stuck' | 'raced'> {
    const queue = this.deps.queues.of(record.target);
    const revision = record.plan?.revision ?? 1;
    if ((await this.deps.leases.holder(record.target))?.opId === record.id) return 'alive';
    // A run that re-planned keeps its job of the earlier revision: any live job of this operation counts.
    const states = await Promise.all(
      Array.from({ length: revision }, (_, i) => queue.jobState(jobIdOf(record.id, i + 1))),
    );
    if (
      states.some(
        (s) => s === 'waiting' || s === 'delayed' || s === 'active' || s === 'prioritized' || s === 'waiting-children',
      )
    )
      return 'alive';
    const seen = record.reenqueues;
    const count = seen + 1;
    const result = await this.deps.store.apply(record.id, (current) => {
      // Another sweep (another process) re-enqueued it since we looked: that one counts, this one does not.
      if (current.reenqueues !== seen || !isOrdered(current.state)) return { refuse: 'raced' };
      const stuck = count === STUCK_AFTER && !current.history.some((e) => e.type === 'note' && e.name === 'stuck');
      const note = {
        type: 'note',
        name: 'stuck',
        actor: 'sweep',
        detail: { reenqueues: count, state: current.state },
      } as const;
      return { set: { reenqueues: count }, entries: stuck ? [note] : [] };
    });
    if (!result.ok) return 'raced';
    const jobId = jobIdOf(record.id, revision);
    await queue.removeFinished(jobId);
    const base = this.deps.backoffBaseMs ?? 1000;
    const delayMs = Math.min(this.deps.backoffMaxMs ?? 5 * 60_000, base * 2 ** (count - 1));
    await queue.enqueue(record.id, revision, { delayMs });
    this.deps.logger.warn(
      { opId: record.id, state: record.state, reenqueues: count, delayMs },
      'operation had no job; enqueued again',
    );
    return count === STUCK_AFTER ? 'stuck' : 'reenqueued';
  }
}
