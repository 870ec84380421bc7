// The opt-in `nonMarketplaceReads` knob: Slack's changelog "2025-05 terms rate-limit update" limits apps not approved
// for the Marketplace to one conversations.history / conversations.replies request a minute and 15 messages a page.
// Off by default: 50 a minute and pages up to 1000.
import { describe, expect, it } from 'vitest';
import { client, OPS, setClock, sim, start, times, useSlackWeb } from '../support/slack-web.js';

useSlackWeb();
const T0 = Date.parse('2026-03-04T10:00:00Z');

async function seed(count: number): Promise<string> {
  const web = client();
  const parent = await web.chat.postMessage({ channel: OPS, text: 'card' });
  for (const i of times(count, (n) => n)) await web.chat.postMessage({ channel: OPS, text: `m${i}` });
  for (const i of times(count, (n) => n))
    await web.chat.postMessage({ channel: OPS, text: `r${i}`, thread_ts: parent.ts! });
  return parent.ts!;
}

describe('Slack 2025 rule for non-Marketplace apps (changelog 2025-05-terms-rate-limit-update)', () => {
  it('answers history and replies once a minute each, 429 with Retry-After between', async () => {
    await sim.close();
    setClock(T0);
    await start({ nonMarketplaceReads: true });
    const parent = await seed(3);
    const web = client({ rejectRateLimitedCalls: true });
    await web.conversations.history({ channel: OPS });
    await web.conversations.replies({ channel: OPS, ts: parent });
    setClock(T0 + 45_000);
    await expect(web.conversations.history({ channel: OPS })).rejects.toMatchObject({ retryAfter: 15 });
    await expect(web.conversations.replies({ channel: OPS, ts: parent })).rejects.toMatchObject({ retryAfter: 15 });
    setClock(T0 + 60_001);
    await expect(web.conversations.history({ channel: OPS })).resolves.toMatchObject({ ok: true });
  });

  it('returns at most 15 messages a page whatever `limit` asks, with a cursor to the rest', async () => {
    await sim.close();
    setClock(T0);
    await start({ nonMarketplaceReads: true });
    const parent = await seed(20);
    const web = client();
    const page = await web.conversations.history({ channel: OPS, limit: 200 });
    expect(page.messages?.map((m) => m.text)).toEqual(times(15, (i) => `m${19 - i}`));
    expect(page).toMatchObject({ has_more: true, response_metadata: { next_cursor: expect.any(String) } });
    setClock(T0 + 60_001);
    const thread = await web.conversations.replies({ channel: OPS, ts: parent, limit: 1000 });
    expect(thread.messages).toHaveLength(15);
    expect(thread.has_more).toBe(true);
  });

  it('is off by default: 200 messages a page, and another request within the minute answered', async () => {
    await seed(30);
    const web = client({ rejectRateLimitedCalls: true });
    for (let i = 0; i < 5; i++) {
      const page = await web.conversations.history({ channel: OPS, limit: 200 });
      expect(page.messages).toHaveLength(31);
    }
  });
});
