// The sandbox page at 1280×800 with a thread open, a laptop's window: the cluster panel stays whole within the
// viewport, and every knob button shows its short name (docs/sandbox.md#the-knobs), never its id.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventually, holds } from '../support/poll.js';
import { baseEnv, REPO_ROOT, startSandboxProcess, type SandboxProcess } from '../support/sandbox-process.js';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from '../support/chromium.js';

const RESULTS = join(REPO_ROOT, 'test-results');
const VIEWPORT = { width: 1280, height: 800 };
const OUTCOME_MS = 60_000;

let sandbox: SandboxProcess | undefined;
let context: BrowserContext | undefined;
let profile: string | undefined;

/** The page at 1280×800; a missing Chromium fails with the install command (never a skip). */
async function open(): Promise<Page> {
  requireChromium();
  sandbox = await startSandboxProcess({ env: baseEnv({ REDIS_URL: inject('redisUrl') }) });
  profile = await mkdtemp(join(tmpdir(), 'sandbox-layout-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: VIEWPORT,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(sandbox.url);
  await page.locator('body.ready').waitFor();
  await mkdir(RESULTS, { recursive: true });
  return page;
}

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  if (sandbox) expect(await sandbox.stop('SIGTERM')).toEqual({ code: 0, signal: null });
});

describe('sandbox page at 1280 px', () => {
  it('keeps the cluster panel within the viewport with a thread open, and names every knob', async () => {
    const page = await open();
    await page.locator('#composer-input').fill('/flink scale orders 3 --reason "layout check"');
    await page.locator('#composer-input').press('Enter');
    const replies = page.locator('#messages .message.from-bot .replies-link').last();
    await replies.waitFor({ timeout: OUTCOME_MS });
    await replies.click();
    await page.locator('#thread:not([hidden]) #thread-messages .message').first().waitFor();

    const panel = await page.locator('aside.cluster').boundingBox();
    const thread = await page.locator('#thread').boundingBox();
    const channel = await page.locator('main.channel').boundingBox();
    expect(panel && thread && channel, 'channel, thread and cluster panel are laid out').toBeTruthy();
    if (!panel || !thread || !channel) return;
    expect(panel.x + panel.width).toBeLessThanOrEqual(VIEWPORT.width);
    expect(panel.width).toBeGreaterThanOrEqual(300);
    expect(thread.x + thread.width).toBeLessThanOrEqual(panel.x);
    expect(channel.width).toBeGreaterThanOrEqual(360);
    // Nothing scrolls sideways: the page is as wide as the window.
    expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(VIEWPORT.width);
    await page.screenshot({ path: join(RESULTS, 'sandbox-layout-1280.png') });

    // Every knob button says its short name (docs/sandbox.md#the-knobs), not its id.
    const knobs = page.locator('aside.cluster [data-knob]');
    await eventually(
      'the knob buttons',
      holds(async () => expect(await knobs.count()).toBeGreaterThan(20)),
    );
    const shown = await knobs.evaluateAll((buttons) =>
      buttons.map((b) => ({ id: b.getAttribute('data-knob'), text: b.textContent })),
    );
    const raw = shown.filter(({ id, text }) => !text || text === id);
    expect(raw, 'knobs showing their id').toEqual([]);
    expect(shown.map((k) => k.text)).toEqual(expect.arrayContaining(['Job restarting', 'Autoscaler on']));
  });
});
