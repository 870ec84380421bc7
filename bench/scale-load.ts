// Load for bench/scale.ts: signed slash commands sent round-robin to several apps, their HTTP response times, the
// response_url answers the simulated Slack reports, and percentiles.
import { performance } from 'node:perf_hooks';
import { signSlackRequest, slashCommandBody } from '../test/support/slack.js';

export const SECRET = 'bench-signing-secret';
export const TOKEN = 'xoxb-bench';
/** One channel per cluster: Slack (and the notifier) pace posts at 1 per second per channel. */
export const CHANNELS = ['C0BENCH1', 'C0BENCH2', 'C0BENCH3'] as const;
export const USER = 'U0ONCALL';

/** A command body whose response_url is `<slackUrl>/response/<id>` (the simulator accepts an id at first use). */
export function commandBody(slackUrl: string, text: string, id: string, channel: string = CHANNELS[0]): string {
  return slashCommandBody({ text, user_id: USER, channel_id: channel, response_url: `${slackUrl}/response/${id}` });
}

/** POSTs a signed body; resolves with the time to the HTTP answer (the ack) in ms and when it was sent. */
export async function post(url: string, body: string): Promise<{ ms: number; sentAt: number }> {
  const sentAt = Date.now();
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', body, headers: signSlackRequest(SECRET, body) });
  await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return { ms: performance.now() - started, sentAt };
}

/** Sends every body at once, body i to urls[i % urls.length]; resolves with each ack time (ms). */
export async function burst(urls: readonly string[], bodies: readonly string[]): Promise<number[]> {
  return Promise.all(bodies.map(async (body, i) => (await post(urls[i % urls.length] as string, body)).ms));
}

export interface ResponseSummary {
  id: string;
  /** Date.now() in the simulator's process when the POST arrived. */
  at: number;
  status: number;
  error?: string;
  bytes: number;
  blocks: number;
  text: string;
}

/** The response_url POSTs the simulated Slack saw, by id; `wait` resolves once one arrived. */
export class Responses {
  private readonly arrived = new Map<string, ResponseSummary>();
  private readonly waiting = new Map<string, (r: ResponseSummary) => void>();

  onLine = (value: unknown): void => {
    const r = (value as { response?: ResponseSummary }).response;
    if (!r) return;
    this.arrived.set(r.id, r);
    this.waiting.get(r.id)?.(r);
  };

  wait(id: string, timeoutMs: number): Promise<ResponseSummary> {
    const known = this.arrived.get(id);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no response_url answer for ${id} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting.set(id, (r) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(r);
      });
    });
  }
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}
