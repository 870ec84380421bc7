// The after-COMPLETED watch of one cluster's worker (docs/lifecycle.md#after-completed): for each target whose last
// operation completed recently, every change seen through the shared watches is compared with what the operation set;
// a change back by another field manager becomes a REVERTED note on the operation (its state stays COMPLETED).
import type { AfterCompletedWatch, AfterCompletedWatches, OperationStore } from '../app/ports/index.js';
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
import { FIELD_MANAGER, type KubeObject } from '../kube/flink-client.js';
import type { WatchHub, WatchedKind } from '../kube/watch-hub.js';
import { pausedBy, remindOfPause } from './pause-reminder.js';
import type { Logger } from '../log.js';

export interface AfterCompletedDeps {
  store: Pick<OperationStore, 'apply'>;
  watches: AfterCompletedWatches;
  hub: Pick<WatchHub, 'subscribe'>;
  /** The cluster this worker executes (its watches are this cluster's). */
  cluster: string;
  logger: Logger;
  now: () => number;
  /** The actor of the notes it writes. */
  actor: string;
  /** How often the cluster's watch list is read again: other replicas' watches, expiry (default 5 s). */
  refreshMs?: number;
  /** Each revert recorded by this process (metrics). */
  onRevert?: (revert: { cluster: string; manager: string; kind: string }) => void;
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

  constructor(private readonly deps: AfterCompletedDeps) {}

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

  /** Starts watching what a just-completed operation set (stored first, so every replica watches it too). */
  async begin(watch: AfterCompletedWatch): Promise<void> {
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
        if (watch.until <= now && !stillPaused) {
          await this.deps.watches.end(this.deps.cluster, watch.target, watch.opId);
          continue;
        }
        keep.add(localKey(watch.target));
        await this.track(watch);
        if (stillPaused && seen) await remindOfPause(this.deps, watch, now);
      }
      for (const key of this.active.keys()) if (!keep.has(key)) this.active.delete(key);
      for (const key of this.latest.keys()) if (!keep.has(key)) this.latest.delete(key);
    } catch (error) {
      this.deps.logger.warn({ err: error, cluster: this.deps.cluster }, 'could not read the after-COMPLETED watches');
    }
  }

  private async track(watch: AfterCompletedWatch): Promise<void> {
    if (this.closed) return;
    this.active.set(localKey(watch.target), watch);
    const { kind, namespace } = watch.target;
    const key = `${kind}/${namespace}`;
    if (!this.subscriptions.has(key)) {
      const listener = (type: string, object: KubeObject): void => this.onObject(kind, type, object);
      this.subscriptions.set(key, this.deps.hub.subscribe(kind as WatchedKind, namespace, listener));
    }
    await this.subscriptions.get(key);
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
    if (watch.until <= this.deps.now()) return;
    const lastOp = object.metadata.annotations?.[ANNOTATION_OPERATION_ID];
    if (lastOp !== undefined && lastOp !== watch.opId) {
      // Another operation of the bot changed the target: this watch is over.
      await this.deps.watches.end(this.deps.cluster, watch.target, watch.opId);
      this.active.delete(localKey(watch.target));
      return;
    }
    for (const revert of findReverts(watch.fields, object, FIELD_MANAGER)) {
      const key = `${watch.opId}|${revert.path.join('\u0000')}|${canonicalJson(revert.to)}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      await this.record(watch, revert, object);
    }
  }

  private async record(watch: AfterCompletedWatch, revert: Revert, object: KubeObject): Promise<void> {
    const { deps } = this;
    const effect = revertEffect(revert.path);
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
 * The watch a just-completed operation starts: every field its patch set under `spec`, for `gitops.revertWatch`;
 * undefined when there is nothing to watch (a snapshot, an exempt kind, a zero period, a metadata-only change).
 */
export function watchOf(record: OperationRecord, cluster: string, now: number): AfterCompletedWatch | undefined {
  const plan = record.plan;
  if (plan?.change.type !== 'patch' || plan.gitops === undefined) return undefined;
  const pauses = plan.gitops.pauses;
  if (plan.gitops.revertWatchMs <= 0 && !pauses) return undefined;
  const fields = plannedFields(plan);
  if (fields.length === 0) return undefined;
  return {
    opId: record.id,
    kind: record.kind,
    cluster,
    target: plan.target,
    startedAt: now,
    until: now + Math.max(0, plan.gitops.revertWatchMs),
    fields,
    ...(plan.gitops.owner === undefined ? {} : { gitopsOwner: plan.gitops.owner }),
    ...(pauses ? { pauses: true } : {}),
  };
}

/** One worker watches one cluster, so kind, namespace and name tell its targets apart (a watch event names no cluster). */
function localKey(target: { kind: string; namespace: string; name: string }): string {
  return `${target.kind}/${target.namespace}/${target.name}`;
}
