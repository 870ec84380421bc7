// Handing a QUEUED operation to its cluster's queue (docs/lifecycle.md#queue-order-and-leases), the one way every use
// case does it: a failed enqueue is left to the sweep, and an operation whose cluster has no worker running says so in
// its thread.
import type { OperationRecord } from '../domain/engines/operation.js';
import { clusterOf } from '../domain/model/target.js';
import type { Logger } from '../log.js';
import type { BotDeps } from './context.js';

/** The history note an operation gets when no worker of its cluster is running at enqueue time. */
export const NO_WORKER_NOTE = 'no-worker';

export async function enqueueQueued(
  deps: Pick<BotDeps, 'enqueuer' | 'workers' | 'store' | 'clusters'>,
  record: OperationRecord,
  revision: number,
  log: Logger,
): Promise<void> {
  try {
    await deps.enqueuer.enqueue(record.id, revision, record.target);
  } catch (error) {
    // QUEUED is recorded: the sweep enqueues it again, so this is logged, not undone.
    log.error({ err: error, revision }, 'enqueue failed; the sweep will enqueue it again');
    return;
  }
  if (deps.workers === undefined || deps.clusters.names.length < 2) return;
  const cluster = clusterOf(record.target, deps.clusters.names);
  try {
    if (await deps.workers.present(cluster)) return;
    const message = `no worker for cluster ${cluster} is running: the operation waits in its queue and runs when one starts`;
    await deps.store.apply(record.id, (current) =>
      current.state === 'QUEUED'
        ? { entries: [{ type: 'note', name: NO_WORKER_NOTE, actor: 'bot', detail: { cluster, message } }] }
        : { refuse: current.state },
    );
  } catch (error) {
    log.warn({ err: error }, 'could not check for a worker of the cluster');
  }
}
