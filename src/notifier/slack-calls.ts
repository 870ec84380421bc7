// The notifier's Slack calls: the WebClient it needs (no retries of its own), call outcomes as values, Retry-After
// gates, and the reads that resolve a post whose outcome is unknown (thread or channel history, by metadata).
import { webApi } from '@slack/bolt';
import { createSlackClient, METADATA_EVENT_TYPE, type WebClient } from '../slack-client/client.js';
import type { SlackCallObserver } from '../slack-client/instrument.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { RetryAfterGates, sleep } from './pacer.js';

/** Slack's own timeout for one call: long enough for a slow Slack, short enough to resolve and move on. */
export const DEFAULT_SLACK_TIMEOUT_MS = 10_000;

export type CallResult =
  | { ok: true; data: Record<string, unknown> }
  /** HTTP 429: nothing was applied; try again after `retryAfterSec`. */
  | { ok: false; kind: 'ratelimited'; retryAfterSec: number }
  /** Timeout, reset, 5xx or a transient Slack error: the call may or may not have been applied. */
  | { ok: false; kind: 'unknown'; error: string }
  /** `{ok: false, error}`: Slack refused it and applied nothing. */
  | { ok: false; kind: 'refused'; error: string };

/** What an idempotent call ends with once 429s and transient failures were waited out. */
export type SettledCall = Extract<CallResult, { ok: true }> | Extract<CallResult, { kind: 'refused' }>;

/** Platform errors after which Slack may have applied part of the call (its docs say so for these). */
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * The WebClient the notifier needs: it must never retry on its own (a retried timed-out chat.postMessage posts
 * twice), must hand 429s back instead of pausing (we honour Retry-After per method), and must time out.
 */
export function createNotifierClient(
  config: Pick<Config, 'slack'> & Partial<Pick<Config, 'proxy'>>,
  opts: { timeoutMs?: number; logger?: Logger; onCall?: SlackCallObserver } = {},
): WebClient {
  return createSlackClient(config, { timeoutMs: opts.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS, ...opts });
}

/** Turns whatever the WebClient threw into an outcome. */
export function classifyError(error: unknown): Exclude<CallResult, { ok: true }> {
  const e = error as {
    code?: string;
    retryAfter?: number;
    data?: { error?: string };
    statusCode?: number;
    message?: string;
  };
  if (e.code === webApi.ErrorCode.RateLimitedError)
    return { ok: false, kind: 'ratelimited', retryAfterSec: e.retryAfter ?? 1 };
  if (e.code === webApi.ErrorCode.PlatformError) {
    const code = e.data?.error ?? 'unknown_error';
    if (code === 'ratelimited') return { ok: false, kind: 'ratelimited', retryAfterSec: 1 };
    return TRANSIENT_ERRORS.has(code)
      ? { ok: false, kind: 'unknown', error: code }
      : { ok: false, kind: 'refused', error: code };
  }
  if (e.code === webApi.ErrorCode.HTTPError)
    return { ok: false, kind: 'unknown', error: `http_${e.statusCode ?? 'error'}` };
  return { ok: false, kind: 'unknown', error: e.message ?? String(error) };
}

/** Thrown when an idempotent read keeps failing; the caller defers the operation and tries later. */
export class SlackUnavailable extends Error {
  constructor(method: string, detail: string) {
    super(`Slack ${method} kept failing (${detail})`);
    this.name = 'SlackUnavailable';
  }
}

/** Where a lost post would be: a thread (its parent's ts) or a channel's top level since `oldest` (ms). */
export type PostPlace = { thread: { channel: string; ts: string } } | { channel: string; oldestMs: number };

/** chat.postMessage is limited per channel, so its Retry-After gate is too. */
export const postScope = (channel: string): string => `chat.postMessage:${channel}`;

export class SlackCalls {
  readonly gates: RetryAfterGates;

  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    now: () => number = Date.now,
    private readonly readAttempts = 5,
  ) {
    this.gates = new RetryAfterGates(now);
  }

  /**
   * One call after the gate of `scope` (default: the method) opens; a 429 closes that gate for Retry-After.
   * chat.postMessage is gated per channel, as Slack limits it per channel.
   */
  async once(method: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallResult> {
    const scope = method === 'chat.postMessage' ? postScope(String(args.channel)) : method;
    await this.gates.wait(scope, signal);
    try {
      const data = (await this.client.apiCall(method, args)) as unknown as Record<string, unknown>;
      return { ok: true, data };
    } catch (error) {
      const result = classifyError(error);
      if (result.kind === 'ratelimited') {
        this.gates.close(scope, result.retryAfterSec);
        this.logger.warn(
          { method, retryAfterSec: result.retryAfterSec },
          'Slack rate-limited the call; waiting Retry-After',
        );
      }
      return result;
    }
  }

  /** An idempotent call (a read, an edit): retried after 429s and transient failures; a refusal comes back as is. */
  async idempotent(method: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<SettledCall> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.once(method, args, signal);
      if (result.ok || result.kind === 'refused') return result;
      if (result.kind === 'unknown') {
        if (attempt >= this.readAttempts) throw new SlackUnavailable(method, result.error);
        await sleep(Math.min(250 * 2 ** attempt, 5000), signal);
      }
    }
  }

  /** The ts of the message in `place` whose metadata is ours with this payload, or undefined; pages through all. */
  async findPosted(
    place: PostPlace,
    payload: { op: string; seq: number | string },
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const [method, base] =
      'thread' in place
        ? (['conversations.replies', { channel: place.thread.channel, ts: place.thread.ts }] as const)
        : ([
            'conversations.history',
            { channel: place.channel, oldest: (Math.max(0, place.oldestMs) / 1000).toFixed(6) },
          ] as const);
    let cursor: string | undefined;
    do {
      const result = await this.idempotent(
        method,
        { ...base, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) },
        signal,
      );
      if (!result.ok) throw new SlackUnavailable(method, result.error);
      const messages = (result.data.messages ?? []) as {
        ts?: string;
        metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
      }[];
      const found = messages.find((m) => isOurs(m.metadata, payload));
      if (found?.ts !== undefined) return found.ts;
      cursor = (result.data.response_metadata as { next_cursor?: string } | undefined)?.next_cursor || undefined;
    } while (cursor !== undefined);
    return undefined;
  }
}

function isOurs(
  metadata: { event_type?: string; event_payload?: Record<string, unknown> } | undefined,
  payload: { op: string; seq: number | string },
): boolean {
  if (metadata?.event_type !== METADATA_EVENT_TYPE) return false;
  const got = metadata.event_payload ?? {};
  return got.op === payload.op && String(got.seq) === String(payload.seq);
}
