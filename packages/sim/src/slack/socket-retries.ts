// What Slack does with a Socket Mode envelope nobody acknowledged in time. Events API deliveries are retried (at
// once, after a minute, after five: three retries at most), each retry carrying `retry_attempt`/`retry_reason`.
// Slash commands and interactive payloads are never sent again: the person who typed or clicked sees an error after
// three seconds (`operation_timeout`, or `dispatch_failed` when no link was open to carry it).
import type { SimSocketEnvelopeType, SimSocketFailure } from './types.js';

export interface SocketTiming {
  /** How long Slack waits for an ack (3 s). */
  ackDeadlineMs: number;
  /** Waits before the Events API's retries 1, 2 and 3 (0, 1 min, 5 min). */
  eventRetryDelaysMs: readonly number[];
}

export const SLACK_SOCKET_TIMING: SocketTiming = { ackDeadlineMs: 3_000, eventRetryDelaysMs: [0, 60_000, 300_000] };

/** The wait before the next attempt after attempt `attempt` (0 = the first send) failed; undefined: no more. */
export function retryDelayMs(type: SimSocketEnvelopeType, attempt: number, timing: SocketTiming): number | undefined {
  return type === 'events_api' ? timing.eventRetryDelaysMs[attempt] : undefined;
}

/** What the person sees when an envelope is given up: the command's or click's error, or an event dropped. */
export function failureOf(type: SimSocketEnvelopeType, sent: boolean): SimSocketFailure {
  if (type === 'events_api') return 'retries_exhausted';
  return sent ? 'operation_timeout' : 'dispatch_failed';
}
