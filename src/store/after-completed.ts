// After-COMPLETED watches on Redis (docs/lifecycle.md#after-completed): one hash per cluster, target key → watch JSON,
// so every worker replica of the cluster watches the same targets and a restarted one picks them up again.
import type { AfterCompletedWatch, AfterCompletedWatches as Port } from '../app/ports/after-completed.js';
import { targetKey, type Target } from '../domain/model/target.js';
import type { RedisConnection } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { defineScripts, runScript } from './scripts.js';

export class AfterCompletedWatches implements Port {
  private readonly keys: StoreKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
    defineScripts(redis);
  }

  async start(watch: AfterCompletedWatch): Promise<void> {
    checkWatch(watch);
    await this.redis.hset(this.keys.afterCompleted(watch.cluster), targetKey(watch.target), JSON.stringify(watch));
  }

  endOthers(cluster: string, target: Target, opId: string): Promise<AfterCompletedWatch | undefined> {
    return this.endIf(cluster, target, opId, 'others');
  }

  async end(cluster: string, target: Target, opId: string): Promise<boolean> {
    return (await this.endIf(cluster, target, opId, 'own')) !== undefined;
  }

  async list(cluster: string): Promise<AfterCompletedWatch[]> {
    const all = await this.redis.hvals(this.keys.afterCompleted(cluster));
    return all.map((json) => JSON.parse(json) as AfterCompletedWatch).sort((a, b) => a.startedAt - b.startedAt);
  }

  private async endIf(
    cluster: string,
    target: Target,
    opId: string,
    mode: 'own' | 'others',
  ): Promise<AfterCompletedWatch | undefined> {
    const key = this.keys.afterCompleted(cluster);
    const ended = (await runScript(this.redis, 'endAfterCompleted', [key], [targetKey(target), opId, mode])) as
      string | null;
    return typeof ended === 'string' ? (JSON.parse(ended) as AfterCompletedWatch) : undefined;
  }
}

/**
 * A watch both stores accept: an operation, and a revert part (fields, over a period that ends after it starts, or
 * a pause), a health part (ending after it starts, with the job it judges), or both.
 */
export function checkWatch(watch: AfterCompletedWatch): void {
  if (watch.opId.trim() === '') throw new Error('an after-COMPLETED watch needs its operation id');
  const { health } = watch;
  if (health !== undefined) {
    if (!(health.until > watch.startedAt)) throw new Error(`the health watch of ${watch.opId} ends before it starts`);
    if (health.baseline.jobId.trim() === '') throw new Error(`the health watch of ${watch.opId} names no job`);
    if (watch.fields.length === 0) return;
  }
  if (!(watch.until > watch.startedAt) && watch.pauses !== true)
    throw new Error(`the watch of ${watch.opId} ends before it starts`);
  if (watch.fields.length === 0) throw new Error(`the watch of ${watch.opId} has no field to watch`);
}
