// Slack's rate limits as the simulator applies them: per-method tiers per minute, chat.postMessage per channel.

/** Calls per minute (Slack tiers: 1 = 1+, 2 = 20+, 3 = 50+, 4 = 100+; "special" methods get a generous value). */
export const DEFAULT_RATE_LIMITS: Readonly<Record<string, number>> = {
  'auth.test': 600,
  'chat.update': 50,
  'chat.delete': 50,
  'chat.postEphemeral': 100,
  'chat.getPermalink': 600,
  'conversations.replies': 50,
  'conversations.history': 50,
  'conversations.info': 50,
  'conversations.members': 100,
  'conversations.open': 50,
  'users.info': 100,
  'usergroups.users.list': 20,
  'reactions.add': 50,
  'views.publish': 100,
};

/**
 * Slack's rule of 2025-05 for apps not approved for the Marketplace (its changelog "terms rate-limit update"):
 * conversations.history and conversations.replies answer one request a minute, and at most 15 messages a page.
 */
export const NON_MARKETPLACE_READS = {
  perMinute: { 'conversations.history': 1, 'conversations.replies': 1 },
  pageMax: 15,
} as const;
/** The most messages a history or replies page holds otherwise. */
export const READ_PAGE_MAX = 1000;

export type RateVerdict = { limited: false } | { limited: true; retryAfterSec: number };

export interface RateLimiterOptions {
  perMinute: Readonly<Record<string, number>>;
  postPerChannelPerSecond: number;
  postBurst: number;
  now: () => number;
}

const WINDOW_MS = 60_000;

function checkRate(name: string, value: number): void {
  if (Number.isNaN(value) || value <= 0) {
    throw new Error(`rate limit ${name} must be a positive number or Infinity (got ${value})`);
  }
}

export class RateLimiter {
  /** Accepted call times per method within the last minute (a sliding window, as Slack's is). */
  private readonly windows = new Map<string, number[]>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly opts: RateLimiterOptions) {
    for (const [method, perMinute] of Object.entries(opts.perMinute)) checkRate(method, perMinute);
    checkRate('chatPostMessagePerChannelPerSecond', opts.postPerChannelPerSecond);
    checkRate('chatPostMessageBurst', opts.postBurst);
  }

  check(method: string, channel?: string): RateVerdict {
    const now = this.opts.now();
    const perMinute = this.opts.perMinute[method];
    if (perMinute !== undefined && Number.isFinite(perMinute)) {
      const window = (this.windows.get(method) ?? []).filter((t) => t > now - WINDOW_MS);
      this.windows.set(method, window);
      const oldest = window[0];
      if (window.length >= perMinute && oldest !== undefined) {
        return { limited: true, retryAfterSec: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
      }
    }
    if (method === 'chat.postMessage' && channel !== undefined) {
      const verdict = this.takePostToken(channel, now);
      if (verdict.limited) return verdict;
    }
    if (perMinute !== undefined && Number.isFinite(perMinute)) this.windows.get(method)?.push(now);
    return { limited: false };
  }

  /** A token bucket: `postBurst` posts at once, then `postPerChannelPerSecond`. */
  private takePostToken(channel: string, now: number): RateVerdict {
    const rate = this.opts.postPerChannelPerSecond;
    if (!Number.isFinite(rate)) return { limited: false };
    const burst = this.opts.postBurst;
    const bucket = this.buckets.get(channel) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(channel, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { limited: false };
    }
    return { limited: true, retryAfterSec: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) };
  }
}
