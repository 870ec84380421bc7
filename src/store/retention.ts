// How long a store keeps what it holds (docs/lifecycle.md#records-and-the-event-stream): operation records, their
// indexes, the freezes' history and the audit chain share one retention, at least 30 days.
const DAY_MS = 24 * 60 * 60 * 1000;
/** Records and history are kept at least 30 days (docs/lifecycle.md#records-and-the-event-stream). */
export const MIN_RETENTION_MS = 30 * DAY_MS;
export const DEFAULT_RETENTION_MS = 35 * DAY_MS;

/**
 * The retention a store keeps records for: at least 30 days (docs/lifecycle.md#records-and-the-event-stream), 35 unless
 * told otherwise.
 */
export function checkedRetention(retentionMs: number = DEFAULT_RETENTION_MS): number {
  if (!(retentionMs >= MIN_RETENTION_MS)) {
    throw new Error(`retentionMs must be at least ${MIN_RETENTION_MS} (30 days), got ${retentionMs}`);
  }
  return retentionMs;
}
