// Which clusters have a worker running (docs/deployment.md#several-clusters): each worker process renews a short-lived
// key per cluster it executes, so the bot can say in a thread that an operation waits for a worker that is not there.
import type { RedisConnection } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';

/** How often a worker renews its presence; the key lives three times as long. */
export const PRESENCE_INTERVAL_MS = 5_000;

export class WorkerPresence {
  private readonly keys: StoreKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
  }

  /** Says "a worker of these clusters is running" for the next three intervals. */
  async beat(clusters: readonly string[]): Promise<void> {
    const pipeline = this.redis.multi();
    for (const cluster of clusters)
      pipeline.set(this.keys.workers(cluster), String(Date.now()), 'PX', 3 * PRESENCE_INTERVAL_MS);
    await pipeline.exec();
  }

  /**
   * Renews the presence every interval until the returned function is called. Stopping does not withdraw it:
   * another worker of the cluster may be running, so the key simply expires when nobody renews it.
   */
  keep(clusters: readonly string[], onError: (error: unknown) => void): () => void {
    const beat = () => this.beat(clusters).catch(onError);
    void beat();
    const timer = setInterval(() => void beat(), PRESENCE_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async present(cluster: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.workers(cluster))) === 1;
  }
}
