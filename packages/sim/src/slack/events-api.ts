// Events API delivery from the simulated Slack to an app: signed JSON bodies, as Slack sends `app_home_opened`.
import { createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BotIdentity } from './state.js';
import type { SimEventTarget } from './types.js';

/** Slack waits 3 s for a 2xx before it counts the delivery as failed (docs/lifecycle.md#what-slack-allows). */
const DELIVERY_TIMEOUT_MS = 3_000;

/** The `event_callback` envelope of `app_home_opened` for `user` on the Home tab. */
export function appHomeOpenedBody(bot: BotIdentity, user: string, nowMs: number, viewId?: string): string {
  const ts = (nowMs / 1000).toFixed(6);
  return JSON.stringify({
    token: 'sandbox-verification-token',
    team_id: bot.teamId,
    api_app_id: bot.appId,
    event: {
      type: 'app_home_opened',
      user,
      channel: `D${user.slice(1)}`,
      tab: 'home',
      event_ts: ts,
      ...(viewId === undefined ? {} : { view: { id: viewId, type: 'home' } }),
    },
    type: 'event_callback',
    event_id: `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
    event_time: Math.floor(nowMs / 1000),
    authorizations: [{ team_id: bot.teamId, user_id: bot.botUserId, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  });
}

/** POSTs a signed Events API body (JSON, signed over the exact string) and reports the status and how long the app took. */
export async function deliverEvent(
  target: SimEventTarget,
  body: string,
  nowMs: number,
): Promise<{ status: number; ms: number }> {
  const ts = String(Math.floor(nowMs / 1000));
  const signature = `v0=${createHmac('sha256', target.signingSecret).update(`v0:${ts}:${body}`).digest('hex')}`;
  const started = performance.now();
  const headers = {
    'content-type': 'application/json',
    'x-slack-request-timestamp': ts,
    'x-slack-signature': signature,
  };
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.text();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}
