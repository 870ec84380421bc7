// The sandbox page in headless Chromium: request as alice, approve as a lead, watch COMPLETED; a broken image ends FAILED.
// The sandbox has two simulated clusters (eu, us): #data-platform's targets without a cluster mean eu, and cards and the
// cluster panel name the cluster.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { eventually, holds } from '../support/poll.js';
import { baseEnv, REPO_ROOT, startSandboxProcess, type SandboxProcess } from '../support/sandbox-process.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];
const RESULTS = join(REPO_ROOT, 'test-results');
/** docs/sandbox.png is rewritten only on request, so a test run leaves the tracked files alone. */
const DOCS_SCREENSHOT = process.env.UPDATE_DOCS_SCREENSHOT === '1' ? join(REPO_ROOT, 'docs', 'sandbox.png') : undefined;
const OUTCOME_MS = 60_000;

let sandbox: SandboxProcess | undefined;
let context: BrowserContext | undefined;
let profile: string | undefined;
let page: Page;

/** The bot's card for an operation: the top-level message whose header names it. */
function card(opId: string): Locator {
  return page.locator('#messages .message.from-bot').filter({ has: page.locator('.bk-header', { hasText: opId }) });
}

/** Resolves once the text `read` takes from the live page (nothing there to subscribe to) matches `expected`. */
function shows(read: () => Promise<string | null>, expected: string | RegExp, timeoutMs?: number): Promise<true> {
  const check = holds(async () => expect((await read()) ?? '').toMatch(expected));
  return eventually(`the page to show ${String(expected)}`, check, timeoutMs === undefined ? {} : { timeoutMs });
}

/** Types into the channel composer and sends, as a person would. */
async function type(text: string): Promise<void> {
  await page.locator('#composer-input').fill(text);
  await page.locator('#composer-input').press('Enter');
}

/** The id of the newest card whose header mentions `what`. */
async function newestCard(what: string): Promise<string> {
  const header = page.locator('#messages .bk-header', { hasText: what }).last();
  await header.waitFor({ timeout: OUTCOME_MS });
  const opId = /op-[a-z0-9]{6,12}/.exec(await header.innerText())?.[0];
  expect(opId, 'the card header names the operation').toBeDefined();
  return opId as string;
}

async function switchUser(id: string): Promise<void> {
  await page.locator(`[data-user="${id}"]`).click();
  await shows(() => page.locator(`[data-user="${id}"]`).getAttribute('aria-pressed'), /^true$/);
}

/**
 * Started by the first test that needs it. Not a beforeAll: a missing Chromium must fail every test with the
 * install command, never leave them reported as skipped.
 */
let starting: Promise<void> | undefined;
function ready(): Promise<void> {
  starting ??= (async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium is missing at ${CHROMIUM}: install it: apt-get install -y chromium`);
    sandbox = await startSandboxProcess({ env: baseEnv({ REDIS_URL: inject('redisUrl') }) });
    profile = await mkdtemp(join(tmpdir(), 'sandbox-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      viewport: { width: 1600, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(sandbox.url);
    await page.locator('body.ready').waitFor();
    await mkdir(RESULTS, { recursive: true });
  })();
  return starting;
}

afterEach(async (test) => {
  if (test.task.result?.state === 'fail')
    await page?.screenshot({ path: join(RESULTS, `failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`) });
});

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  if (sandbox) expect(await sandbox.stop('SIGTERM')).toEqual({ code: 0, signal: null });
});

describe('sandbox page in Chromium', () => {
  it('shows the usage hint from the parser while a command is typed', async () => {
    await ready();
    await page.locator('#composer-input').fill('/flink sca');
    await shows(() => page.locator('#composer-hint').innerText(), '/flink scale <target> <parallelism>');
    await page.locator('#composer-input').fill('');
  });

  it('a prod scale waits for a lead; a non-lead is told privately; a lead approves; the card reaches COMPLETED', async () => {
    await ready();
    await type('/flink scale streaming-prod/orders 6 --reason "peak traffic"');
    const opId = await newestCard('scale eu/streaming-prod/orders');
    await shows(() => card(opId).innerText(), 'State: AWAITING_APPROVAL');
    // The card answers the command: the ack's "Working on" bubble is gone (docs/lifecycle.md#the-ack).
    await shows(async () => String(await page.locator('#messages .ephemeral', { hasText: 'Working on' }).count()), '0');

    await switchUser('U0BOB');
    await card(opId).getByRole('button', { name: 'Approve' }).click();
    await shows(() => page.locator('#messages .ephemeral').last().innerText(), opId);
    expect(await page.locator('#messages .ephemeral').last().innerText()).toContain('Only visible to you');
    expect(await card(opId).innerText()).toContain('State: AWAITING_APPROVAL');

    await switchUser('U0LEAD1');
    expect(await page.locator('#messages .ephemeral').allInnerTexts()).not.toContainEqual(
      expect.stringContaining(opId),
    ); // bob's stays bob's
    await card(opId).getByRole('button', { name: 'Approve' }).click();
    await shows(() => card(opId).innerText(), 'State: COMPLETED', OUTCOME_MS);
    await eventually(
      'no buttons left on the decided card',
      holds(async () => expect(await card(opId).locator('.bk-button').count()).toBe(0)),
    );

    await card(opId).locator('.replies-link').click();
    // The replies, without the card at the top of the panel: the submission, beginning with who approved, and the
    // verdict with every criterion (docs/lifecycle.md#the-thread).
    const replies = async (): Promise<string[]> =>
      (await page.locator('#thread-messages .message').allInnerTexts()).slice(1);
    await shows(async () => (await replies()).join('\n'), /COMPLETED.*evidence criteria met/, OUTCOME_MS);
    const thread = await replies();
    expect(thread).toHaveLength(2);
    const threadText = thread.join('\n');
    expect(threadText).toContain('SUBMITTED');
    expect(threadText).toContain('Approved by @lena');
    expect(threadText).toContain('Criteria:');
    expect(await card(opId).innerText()).toContain('@lena');
    // Deep verification (docs/deep-verification.md#what-it-proves): the job's own REST API proved every vertex RUNNING
    // at the new parallelism.
    expect(threadText).toMatch(/6 on every vertex \(Flink REST/);
    const orders = page.locator('.resource[data-target="eu/streaming-prod/orders"][data-kind="FlinkDeployment"]');
    await shows(() => orders.innerText(), /parallelism\s+6/);
    // us has a streaming-prod/orders of its own, untouched.
    expect(await page.locator('.resource[data-target="us/streaming-prod/orders"]').innerText()).toMatch(
      /parallelism\s+3/,
    );
    await orders.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'sandbox-approval.png') });
    if (DOCS_SCREENSHOT) await page.screenshot({ path: DOCS_SCREENSHOT });

    await page.locator('[data-channel="C0INCIDENTS"]').click();
    await shows(() => page.locator('#messages').innerText(), `Flink operation started: ${opId}`);
    await shows(() => page.locator('#messages').innerText(), opId, OUTCOME_MS);
    await page.locator('[data-channel="C0DATAPLATFORM"]').click();
  });

  it('App Home: a lead opens the Home tab, sees the pending approval, approves there; the card updates', async () => {
    await ready();
    await switchUser('U0ALICE');
    await page.locator('[data-channel="C0DATAPLATFORM"]').click();
    await type('/flink restart streaming-prod/payments --reason "home tab"');
    const opId = await newestCard('restart eu/streaming-prod/payments');
    await shows(() => card(opId).innerText(), 'State: AWAITING_APPROVAL');

    await switchUser('U0LEAD1');
    await page.locator('[data-channel="HOME"]').click();
    await shows(() => page.locator('#messages').innerText(), opId);
    await shows(() => page.locator('#messages').innerText(), 'Waiting for your approval');
    await page.screenshot({ path: join(RESULTS, 'sandbox-home.png') });
    await page.locator('#messages').getByRole('button', { name: 'Approve' }).first().click();
    await shows(() => page.locator('#messages').innerText(), 'nothing waits for you');
    // The answer to a click from Home is a DM; lena's approver DM copy shows the decision too.
    await page.locator('[data-channel="DMS"]').click();
    await shows(() => page.locator('#messages').innerText(), `You approved ${opId}`);

    await page.locator('[data-channel="C0DATAPLATFORM"]').click();
    await shows(() => card(opId).innerText(), 'State: COMPLETED', OUTCOME_MS);
  });

  it('an upgrade to an image that cannot be pulled ends FAILED, and the cluster panel shows why', async () => {
    await ready();
    await switchUser('U0BOB');
    await type('/flink upgrade orders --image flink:broken');
    const opId = await newestCard('upgrade eu/streaming-dev/orders');
    await shows(() => card(opId).innerText(), 'State: FAILED', OUTCOME_MS);
    const devOrders = page.locator('.resource[data-target="eu/streaming-dev/orders"]');
    expect(await devOrders.innerText()).toContain('flink:broken');
    await page.screenshot({ path: join(RESULTS, 'sandbox-broken-upgrade.png') });
  });

  it('a knob on the cluster panel makes the next savepoint fail', async () => {
    await ready();
    const knob = page.locator(
      '.resource[data-target="eu/streaming-prod/fraud-detection"] [data-knob="savepoint-failure"]',
    );
    await knob.click();
    await shows(() => knob.getAttribute('aria-pressed'), /^true$/);
    await switchUser('U0ALICE');
    await type('/flink savepoint streaming-prod/fraud-detection --reason "before the release"');
    const opId = await newestCard('savepoint eu/streaming-prod/fraud-detection');
    await shows(() => card(opId).innerText(), 'State: FAILED', OUTCOME_MS);
    await page.screenshot({ path: join(RESULTS, 'sandbox-savepoint-knob.png') });
  });

  it('the cluster panel shows both clusters under their names and releases; the selector shows one; a us request runs in us only', async () => {
    await ready();
    const names = () => page.locator('#cluster-rows h2.cluster-name').allInnerTexts();
    await eventually(
      'both clusters named',
      holds(async () =>
        expect(await names()).toEqual([
          expect.stringMatching(/cluster eu[\s\S]*operator 1\.15 · CRDs 1\.15/),
          expect.stringMatching(/cluster us[\s\S]*operator 1\.16 · CRDs 1\.16/),
        ]),
      ),
    );
    expect(await page.locator('#cluster-title').innerText()).toBe('Simulated clusters');
    await page.locator('[data-cluster-tab="us"]').click();
    const shown = async (): Promise<(string | null)[]> =>
      Promise.all((await page.locator('#cluster-rows .resource').all()).map((n) => n.getAttribute('data-target')));
    await eventually(
      'only the us resources',
      holds(async () =>
        expect(await shown()).toEqual(['us/streaming-analytics/sessionizer', 'us/streaming-prod/orders']),
      ),
    );
    await page.screenshot({ path: join(RESULTS, 'sandbox-clusters.png') });

    await switchUser('U0ALICE');
    await page.locator('[data-channel="C0DATAPLATFORM"]').click();
    await type('/flink scale us/streaming-prod/orders 5 --reason "us peak"');
    const opId = await newestCard('scale us/streaming-prod/orders');
    await switchUser('U0LEAD2');
    await card(opId).getByRole('button', { name: 'Approve' }).click();
    await shows(() => card(opId).innerText(), 'State: COMPLETED', OUTCOME_MS);
    await shows(() => page.locator('.resource[data-target="us/streaming-prod/orders"]').innerText(), /parallelism\s+5/);
    await page.locator('[data-cluster-tab="*"]').click();
    await shows(() => page.locator('.resource[data-target="eu/streaming-prod/orders"]').innerText(), /parallelism\s+6/);
  });

  it('shows what people type as text, never as markup', async () => {
    await ready();
    await type('<img src=x onerror="document.title=1"> *bold* & <b>tags</b>');
    const message = page.locator('#messages .message', { hasText: 'onerror' }).last();
    await message.waitFor();
    expect(await message.locator('img').count()).toBe(0);
    expect(await message.locator('.content').innerText()).toContain(
      '<img src=x onerror="document.title=1"> bold & <b>tags</b>',
    );
    expect(await message.locator('.content b').innerText()).toBe('bold');
    expect(await page.title()).toBe('flink-chatops sandbox');
  });
});
