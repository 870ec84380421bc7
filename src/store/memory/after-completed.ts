// The in-memory twin of the after-COMPLETED watches (store/after-completed.ts, lua/endAfterCompleted.lua).
import type { AfterCompletedWatch, AfterCompletedWatches } from '../../app/ports/after-completed.js';
import { targetKey, type Target } from '../../domain/model/target.js';
import { checkWatch } from '../after-completed.js';
import { viaJson } from './sorted.js';

export class MemoryAfterCompletedWatches implements AfterCompletedWatches {
  /** cluster → target key → watch. */
  private readonly watches = new Map<string, Map<string, AfterCompletedWatch>>();

  async start(watch: AfterCompletedWatch): Promise<void> {
    checkWatch(watch);
    this.of(watch.cluster).set(targetKey(watch.target), viaJson(watch));
  }

  async endOthers(cluster: string, target: Target, opId: string): Promise<AfterCompletedWatch | undefined> {
    return this.endIf(cluster, target, (watch) => watch.opId !== opId);
  }

  async end(cluster: string, target: Target, opId: string): Promise<boolean> {
    return (await this.endIf(cluster, target, (watch) => watch.opId === opId)) !== undefined;
  }

  async list(cluster: string): Promise<AfterCompletedWatch[]> {
    return [...this.of(cluster).values()].map((w) => viaJson(w)).sort((a, b) => a.startedAt - b.startedAt);
  }

  private of(cluster: string): Map<string, AfterCompletedWatch> {
    let map = this.watches.get(cluster);
    if (!map) this.watches.set(cluster, (map = new Map()));
    return map;
  }

  private endIf(
    cluster: string,
    target: Target,
    ends: (watch: AfterCompletedWatch) => boolean,
  ): AfterCompletedWatch | undefined {
    const map = this.of(cluster);
    const current = map.get(targetKey(target));
    if (current === undefined || !ends(current)) return undefined;
    map.delete(targetKey(target));
    return viaJson(current);
  }
}
