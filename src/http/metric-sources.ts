// Scrape-time sources of the store-wide gauges: operations by state, stuck, queue depth — exported by one process
// at a time (a Redis lease renewed at each scrape), so `sum()` over every pod's series is the store's number.
import type { RedisConnection } from '../store/connection.js';
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import { isTerminal, type OperationState } from '../domain/model/lifecycle.js';
import type { AlertStore } from '../app/ports/alerts.js';
import type { AlertsOpenCount, Metrics, MetricsSources, OperationCount } from './metrics.js';

/** The store reads `collectOperations` / `collectStuck` need; OperationStore satisfies it. */
export interface ActiveOperationsReader {
  activeIds(): Promise<string[]>;
  getMany(ids: readonly string[]): Promise<readonly { kind: string; state: string; reenqueues: number }[]>;
}

/** The sweep reports an operation stuck after this many re-enqueues (docs/lifecycle.md#the-sweep). */
export const STUCK_AFTER_REENQUEUES = 5;

/** Scrape-time sources over the store's non-terminal operations (few: terminal ones leave the active index). */
export function storeSources(
  store: ActiveOperationsReader,
): Required<Pick<MetricsSources, 'collectOperations' | 'collectStuck'>> {
  const active = async () => store.getMany(await store.activeIds());
  return {
    async collectOperations() {
      const counts = new Map<string, OperationCount>();
      for (const { kind, state } of await active()) {
        const key = `${kind}\u0000${state}`;
        const entry = counts.get(key) ?? { kind, state, count: 0 };
        entry.count += 1;
        counts.set(key, entry);
      }
      return [...counts.values()];
    },
    async collectStuck() {
      return (await active()).filter((op) => op.reenqueues >= STUCK_AFTER_REENQUEUES).length;
    },
  };
}

/**
 * `collectQueue` over BullMQ's counts per cluster, e.g. `queueSource({ eu: () => queue.getJobCounts('waiting',
 * 'delayed', 'active', 'prioritized', 'failed') })`.
 */
export function queueSource(
  counts: Record<string, () => Promise<Record<string, number>>>,
): Required<Pick<MetricsSources, 'collectQueue'>> {
  return {
    async collectQueue() {
      const perCluster = await Promise.all(
        Object.entries(counts).map(async ([cluster, read]) =>
          Object.entries(await read()).map(([state, count]) => ({ cluster, state, count })),
        ),
      );
      return perCluster.flat();
    },
  };
}

/** `collectAlertsOpen` over the alert store's open incidents: one count per cluster, namespace and signal kind. */
export function alertsSource(
  alerts: Pick<AlertStore, 'listOpen'>,
): Required<Pick<MetricsSources, 'collectAlertsOpen'>> {
  return {
    async collectAlertsOpen() {
      const counts = new Map<string, AlertsOpenCount>();
      for (const incident of await alerts.listOpen()) {
        for (const { kind } of incident.signals) {
          const labels = { cluster: incident.cluster, namespace: incident.target.namespace, kind };
          const key = `${labels.cluster}\u0000${labels.namespace}\u0000${kind}`;
          const entry = counts.get(key) ?? { ...labels, count: 0 };
          entry.count += 1;
          counts.set(key, entry);
        }
      }
      return [...counts.values()];
    },
  };
}

/** Extends the lease when this process holds it, takes it when free: 1 = this process exports now. */
const EXPORTER_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

/** Deletes the lease only when this process holds it (KEYS[1] = key, ARGV[1] = token). */
const EXPORTER_RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface ExporterLease {
  /** Whether this process exports the store-wide gauges now (takes or extends the lease). */
  holds(): Promise<boolean>;
  /** On shutdown: hands the lease to the next process scraped. */
  release(): Promise<void>;
}

/**
 * The exporter lease (KEYS[1] = `key`, ARGV = token, ttl ms). A holder that stops scraping or dies loses it after
 * `ttlMs`, and the next scraped process takes over; one that shuts down releases it at once.
 */
export function exporterLease(redis: RedisConnection, key: string, token: string, ttlMs = 90_000): ExporterLease {
  return {
    holds: async () => Number(await redis.eval(EXPORTER_LEASE, 1, key, token, String(ttlMs))) === 1,
    release: async () => {
      await redis.eval(EXPORTER_RELEASE, 1, key, token);
    },
  };
}

/** Only while `holds()` says so: the sources read the store; otherwise they report nothing (the gauges stay absent). */
export function whileExporting(holds: () => Promise<boolean>, sources: MetricsSources): MetricsSources {
  let current: Promise<boolean> | undefined;
  // One lease check per scrape, shared by the gauges collected in it.
  const check = () => (current ??= holds().finally(() => setTimeout(() => (current = undefined), 1000).unref()));
  const gated: MetricsSources = { collectExporter: check };
  if (sources.collectOperations) {
    const read = sources.collectOperations;
    gated.collectOperations = async () => ((await check()) ? read() : []);
  }
  if (sources.collectStuck) {
    const read = sources.collectStuck;
    gated.collectStuck = async () => ((await check()) ? read() : undefined);
  }
  if (sources.collectQueue) {
    const read = sources.collectQueue;
    gated.collectQueue = async () => ((await check()) ? read() : []);
  }
  if (sources.collectAlertsOpen) {
    const read = sources.collectAlertsOpen;
    gated.collectAlertsOpen = async () => ((await check()) ? read() : []);
  }
  if (sources.collectBreakGlassUnreviewed) {
    const read = sources.collectBreakGlassUnreviewed;
    gated.collectBreakGlassUnreviewed = async () => ((await check()) ? read() : undefined);
  }
  return gated;
}

/** Counts each terminal state as its commit happens (pass as the store's `onCommitted`): once per operation. */
export function outcomeObserver(
  metrics: Pick<Metrics, 'observeOutcome' | 'countIntegrityFailure'>,
): (record: OperationRecord, entries: readonly HistoryEntry[]) => void {
  return (record, entries) => {
    for (const entry of entries) {
      if (entry.type === 'state' && isTerminal(entry.name as OperationState)) {
        metrics.observeOutcome(record.kind, entry.name, (entry.at - record.createdAt) / 1000);
        // The worker's ABORTED "record integrity" names its check (docs/lifecycle.md#record-integrity).
        const check = entry.detail.integrity;
        if (entry.name === 'ABORTED' && typeof check === 'string') metrics.countIntegrityFailure(check);
      }
    }
  };
}
