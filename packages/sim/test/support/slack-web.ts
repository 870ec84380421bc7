// Rig of the slack-sim, slack-sim-errors and slack-sim-blocks tests: one simulated Slack workspace per test, driven
// by the real WebClient, with a settable clock, the platform error a call fails with, and Block Kit builders.
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, expect } from 'vitest';
import { startSimSlack, type SimSlack, type SimSlackOptions } from '../../src/slack-api.js';

export const TOKEN = 'xoxb-sim-test';
export const OPS = 'C0OPS';
export const silent: webApi.Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => undefined,
};

/** The current test's simulated Slack: a live binding, replaced by every start(). */
export let sim: SimSlack;
let clock: number | undefined;

/** Pins the simulated Slack's clock (rate-limit windows), or hands it back to Date.now with undefined. */
export function setClock(ms: number | undefined): void {
  clock = ms;
}

export async function start(extra: SimSlackOptions = {}): Promise<void> {
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [
      { id: 'U0ALICE', name: 'alice' },
      { id: 'U0BOB', name: 'bob', real_name: 'Bob B' },
      { id: 'U0CAROL', name: 'carol' },
    ],
    channels: [
      { id: OPS, name: 'ops', members: ['U0ALICE', 'U0BOB'] },
      { id: 'C0NOBOT', name: 'elsewhere', botMember: false },
      { id: 'C0OTHER', name: 'other' },
    ],
    usergroups: [{ id: 'S0LEADS', handle: 'leads', users: ['U0ALICE', 'U0BOB'] }],
    chatPostMessagePerChannelPerSecond: Infinity,
    now: () => clock ?? Date.now(),
    ...extra,
  });
}

export function client(opts: webApi.WebClientOptions = {}, token = TOKEN): webApi.WebClient {
  return new webApi.WebClient(token, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 }, logger: silent, ...opts });
}

/** The `data` of the Slack platform error the call must fail with. */
export async function slackError(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error: unknown = await call.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: webApi.ErrorCode.PlatformError });
  return (error as { data: Record<string, unknown> }).data;
}

export const section = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'section',
  text: { type: 'mrkdwn', text },
  ...extra,
});
export const button = (extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: { type: 'plain_text', text: 'Go' },
  action_id: 'go',
  ...extra,
});
export const actions = (elements: unknown[]) => ({ type: 'actions', elements });
export const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** Registers beforeEach/afterEach hooks that give every test a fresh workspace on the real clock. */
export function useSlackWeb(): void {
  beforeEach(async () => {
    clock = undefined;
    await start();
  });
  afterEach(async () => {
    await sim.close();
  });
}
