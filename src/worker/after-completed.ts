// The after-COMPLETED watch of one cluster's worker (docs/lifecycle.md#after-completed): for each target whose last
// operation completed recently, every change seen through the shared watches is compared with what the operation set
// (a change back by another field manager becomes a REVERTED note), and the job's health with its state at COMPLETED
// (post-change.ts: a REGRESSED or HEALTHY note). The operation's state stays COMPLETED.
import type { AfterCompletedWatch, AfterCompletedWatches } from '../app/ports/index.js';
import {
  findReverts,
  isRevert,
  plannedFields,
  REVERTED_NOTE,
  revertEffect,
  sameValue,
  type Revert,
} from '../domain/kit/evidence/reverts.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { canonicalJson } from '../domain/model/canonical.js';
import { ANNOTATION_OPERATION_ID } from '../domain/model/plan.js';
import type { Target } from '../domain/model/target.js';
import { FIELD_MANAGER, type KubeEvent, type KubeObject } from '../kube/flink-client.js';
import type { WatchHub, WatchedKind } from '../kube/watch-hub.js';
import { pausedBy, remindOfPause } from './pause-reminder.js';
import { healthOf, PostChangeHealth, type JobChange, type PostChangeDeps } from './post-change.js';

export interface AfterCompletedDeps extends PostChangeDeps {
  watches: AfterCompletedWatches;
  hub: Pick<WatchHub, 'subscribe'>;
  /** How often the cluster's watch list is read again: other replicas' watches, expiry (default 5 s). */
  refreshMs?: number;
  /** Each revert recorded by this process (metrics). */
  onRevert?: (revert: { cluster: string; manager: string; kind: string }) => void;
}

/** What COMPLETED hands the watcher (watchOf): the revert part, and for a change to the job what health needs. */
export type WatchStart = AfterCompletedWatch & { jobChange?: JobChange };

/** ms: when a watch ends on its own (a pause may keep it longer). */
export function watchEnd(watch: Pick<AfterCompletedWatch, 'until' | 'health'>): number {
  return Math.max(watch.until, watch.health?.until ?? -Infinity);
}

export class AfterCompletedWatcher {
  /** By localKey: kind, namespace and name. */
  private readonly active = new Map<string, AfterCompletedWatch>();
  private readonly subscriptions = new Map<string, Promise<() => void>>();
  /** `<op>|<path>|<value now>` already recorded (here or by another replica): not tried again. */
  private readonly reported = new Set<string>();
  /** The last copy seen of each target with a pause watch (whether its pause is still on). */
  private readonly latest = new Map<string, KubeObject>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly health: PostChangeHealth;

  constructor(private readonly deps: AfterCompletedDeps) {
    this.health = new PostChangeHealth(deps);
  }

  /** Reads the cluster's watches and keeps reading them every `refreshMs`. */
  async start(): Promise<void> {
    await this.refresh();
    const every = this.deps.refreshMs ?? 5_000;
    const tick = (): void => {
      this.timer = setTimeout(() => void this.refresh().finally(() => this.closed || tick()), every);
      this.timer.unref();
    };
    tick();
  }

  /**
   * Starts watching what a just-completed operation set and, for a change to the job, how the job does (stored
   * first, so every replica watches it too); nothing when neither part applies.
   */
  async begin(start: WatchStart): Promise<void> {
    const { jobChange, ...revert } = start;
    const health = jobChange === undefined ? undefined : await healthOf(this.deps, revert, jobChange);
    const watch: AfterCompletedWatch = health === undefined ? revert : { ...revert, health };
    if (watch.fields.length === 0 && health === undefined) return;
    await this.deps.watches.start(watch);
    await this.track(watch);
  }

  /** A later operation on the target starts: its earlier watch ends (docs/lifecycle.md#after-completed). */
  async endOthers(target: Target, opId: string): Promise<void> {
    await this.deps.watches.endOthers(this.deps.cluster, target, opId);
    const local = this.active.get(localKey(target));
    if (local && local.opId !== opId) this.active.delete(localKey(target));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const unsubscribe of this.subscriptions.values()) void unsubscribe.then((off) => off());
    this.subscriptions.clear();
    this.active.clear();
  }

  /** The shared list, now: new watches tracked, ended ones dropped, expired ones ended. */
  private async refresh(): Promise<void> {
    try {
      const listed = await this.deps.watches.list(this.deps.cluster);
      const now = this.deps.now();
      const keep = new Set<string>();
      for (const watch of listed) {
        const seen = this.latest.get(localKey(watch.target));
        const stillPaused = watch.pauses === true && (seen === undefined || pausedBy(seen) === watch.opId);
        if (watch.health && watch.health.until <= now) await this.health.conclude(watch);
        if (watchEnd(watch) <= now && !stillPaused) {
          await this.deps.watches.end(this.deps.cluster, watch.target, watch.opId);
          continue;
        }
        keep.add(localKey(watch.target));
        await this.track(watch);
        if (watch.health) this.health.poll(watch);
        if (stillPaused && seen) await remindOfPause(this.deps, watch, now);
      }
      for (const key of this.active.keys()) if (!keep.has(key)) this.active.delete(key);
      for (const key of this.latest.keys()) if (!keep.has(key)) this.latest.delete(key);
      this.health.keepOnly(new Set([...this.active.values()].map((w) => w.opId)));
    } catch (error) {
      this.deps.logger.warn({ err: error, cluster: this.deps.cluster }, 'could not read the after-COMPLETED watches');
    }
  }

  private async track(watch: AfterCompletedWatch): Promise<void> {
    if (this.closed) return;
    this.active.set(localKey(watch.target), watch);
    const { kind, namespace } = watch.target;
    await this.subscribe(kind as WatchedKind, namespace, (type, object) => this.onObject(kind, type, object));
    // The health part counts the job's failovers from the operator's JobException events.
    if (watch.health) await this.subscribe('Event', namespace, (_type, event) => this.onEvent(event as KubeEvent));
  }

  private async subscribe(
    kind: WatchedKind,
    namespace: string,
    listener: (type: string, object: KubeObject) => void,
  ): Promise<void> {
    const key = `${kind}/${namespace}`;
    if (!this.subscriptions.has(key)) this.subscriptions.set(key, this.deps.hub.subscribe(kind, namespace, listener));
    await this.subscriptions.get(key);
  }

  private onEvent(event: KubeEvent): void {
    const { kind, name, namespace } = event.involvedObject ?? {};
    if (kind === undefined || name === undefined || namespace === undefined) return;
    const watch = this.active.get(localKey({ kind, namespace, name }));
    if (watch?.health && watchEnd(watch) > this.deps.now()) this.health.observeEvent(watch, event);
  }

  private onObject(kind: string, type: string, object: KubeObject): void {
    const { namespace, name } = object.metadata ?? {};
    const watch = namespace === undefined ? undefined : this.active.get(localKey({ kind, namespace, name }));
    if (!watch) return;
    if (type === 'DELETED') {
      // Nothing left to revert or to remind of.
      this.active.delete(localKey(watch.target));
      this.latest.delete(localKey(watch.target));
      void this.deps.watches.end(this.deps.cluster, watch.target, watch.opId).catch(() => undefined);
      return;
    }
    this.checkQuietly(watch, object);
  }

  private checkQuietly(watch: AfterCompletedWatch, object: KubeObject): void {
    void this.check(watch, object).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, opId: watch.opId }, 'could not record a revert'),
    );
  }

  private async check(watch: AfterCompletedWatch, object: KubeObject): Promise<void> {
    if (watch.pauses) this.latest.set(localKey(watch.target), object);
    const now = this.deps.now();
    if (watchEnd(watch) <= now) return;
    const lastOp = object.metadata.annotations?.[ANNOTATION_OPERATION_ID];
    if (lastOp !== undefined && lastOp !== watch.opId) {
      // Another operation of the bot changed the target: this watch is over.
      await this.deps.watches.end(this.deps.cluster, watch.target, watch.opId);
      this.active.delete(localKey(watch.target));
      return;
    }
    if (watch.health) this.health.observe(watch, object);
    if (watch.until <= now) return;
    for (const revert of findReverts(watch.fields, object, FIELD_MANAGER)) {
      const key = `${watch.opId}|${revert.path.join('\u0000')}|${canonicalJson(revert.to)}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      await this.record(watch, revert, object);
    }
  }

  private async record(watch: AfterCompletedWatch, revert: Revert, object: KubeObject): Promise<void> {
    const { deps } = this;
    const effect = revertEffect(revert.path, revert.to);
    const detail = {
      path: revert.path,
      from: revert.from,
      to: revert.to,
      manager: revert.manager,
      ...(watch.gitopsOwner === undefined ? {} : { gitopsOwner: watch.gitopsOwner }),
      at: deps.now(),
      ...(effect === undefined ? {} : { effect }),
      ...(object.metadata.generation === undefined ? {} : { generation: object.metadata.generation }),
    };
    const result = await deps.store.apply(watch.opId, (current) => {
      if (current.state !== 'COMPLETED') return { refuse: `${current.state}` };
      const same = current.history.findLast((e) => isRevert(e) && sameValue(e.detail.path, revert.path));
      if (same && sameValue(same.detail.to, revert.to)) return { refuse: 'already recorded' };
      return { entries: [{ type: 'note', name: REVERTED_NOTE, actor: deps.actor, detail }] };
    });
    if (!result.ok) return;
    deps.logger.info(
      { opId: watch.opId, path: revert.path.join('.'), manager: revert.manager },
      'a completed change was reverted',
    );
    deps.onRevert?.({ cluster: deps.cluster, manager: revert.manager, kind: watch.kind });
  }
}

/**
 * What a just-completed operation hands the watcher: the revert part — every field its patch set under `spec`, for
 * `gitops.revertWatch` (none for an exempt kind, a zero period, a target Git does not manage) — and, since the patch
 * changed the job, what the health part needs (the watcher asks the policy for `verify.watchAfter`). Undefined for a
 * snapshot and a metadata-only change (`gitops resume`): they change nothing the job runs.
 */
export function watchOf(record: OperationRecord, cluster: string, now: number): WatchStart | undefined {
  const plan = record.plan;
  if (plan?.change.type !== 'patch') return undefined;
  const fields = plannedFields(plan);
  if (fields.length === 0) return undefined;
  const gitops = plan.gitops;
  const pauses = gitops?.pauses === true;
  const reverts = gitops !== undefined && (gitops.revertWatchMs > 0 || pauses);
  return {
    opId: record.id,
    kind: record.kind,
    cluster,
    target: plan.target,
    startedAt: now,
    until: now + (reverts ? Math.max(0, gitops.revertWatchMs) : 0),
    fields: reverts ? fields : [],
    ...(gitops?.owner === undefined || !reverts ? {} : { gitopsOwner: gitops.owner }),
    ...(pauses ? { pauses: true } : {}),
    jobChange: plan.effectiveUpgradeMode === undefined ? {} : { upgradeMode: plan.effectiveUpgradeMode },
  };
}

/** One worker watches one cluster, so kind, namespace and name tell its targets apart (a watch event names no cluster). */
function localKey(target: { kind: string; namespace: string; name: string }): string {
  return `${target.kind}/${target.namespace}/${target.name}`;
}
