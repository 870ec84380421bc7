// App Home publishes coalesced per person (docs/lifecycle.md#app-home): requests while one runs or within the window
// of its start become one later publish; other people are not held up; every request resolves once a publish that
// started after it has ended.
import type { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { HomePublisher } from '../../../src/slack/home-publisher.js';

const client = {} as webApi.WebClient;

/** A publish that ends when the test says so, recording who and at what (virtual) time it started. */
function gatedPublisher(clock: { now: number }) {
  const started: { user: string; at: number; end: () => void }[] = [];
  const publish = (_client: webApi.WebClient, user: string) =>
    new Promise<void>((resolve) => started.push({ user, at: clock.now, end: resolve }));
  return { started, publish };
}

describe('HomePublisher', () => {
  it('a burst while one publish runs becomes one more publish, after the window; another person is not held up', async () => {
    const clock = { now: 0 };
    const { started, publish } = gatedPublisher(clock);
    const homes = new HomePublisher(publish, 0, () => clock.now);
    const first = homes.request(client, 'U1');
    const burst = Array.from({ length: 10 }, () => homes.request(client, 'U1'));
    const other = homes.request(client, 'U2');
    expect(started.map((s) => s.user)).toEqual(['U1', 'U2']);
    started[0]?.end();
    started[1]?.end();
    await Promise.all([first, other]);
    // The window (0 here) has passed: the waiting burst is one publish, started once the first one ended.
    await expect.poll(() => started.length).toBe(3);
    expect(started[2]?.user).toBe('U1');
    started[2]?.end();
    await Promise.all(burst);
    expect(started).toHaveLength(3);
  });

  it('a request within the window of the last start waits for the window, then publishes once', async () => {
    const clock = { now: 1_000 };
    const { started, publish } = gatedPublisher(clock);
    const homes = new HomePublisher(publish, 50, () => clock.now);
    const first = homes.request(client, 'U1');
    started[0]?.end();
    await first;
    const later = [homes.request(client, 'U1'), homes.request(client, 'U1')];
    expect(started).toHaveLength(1);
    clock.now += 50;
    await expect.poll(() => started.length).toBe(2);
    started[1]?.end();
    await Promise.all(later);
    expect(started).toHaveLength(2);
  });
});
