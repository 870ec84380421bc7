// The sandbox page's renderer (packages/sim/src/page/blocks.js) in Chromium: mrkdwn and emoji shortcodes as Slack
// renders them (README.md#try-it: the page looks and behaves like a Slack channel), outside text never markup.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox-process.js';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from '../support/chromium.js';

const PAGE_DIR = join(REPO_ROOT, 'packages', 'sim', 'src', 'page');
const ORIGIN = 'http://page.test';

let browser: Browser | undefined;
let page: Page | undefined;

/** A blank page whose scripts are the page's own files, served as the page server serves them. */
async function blank(): Promise<Page> {
  if (page) return page;
  requireChromium();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  page = await browser.newPage();
  await page.route(`${ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><body></body>' });
    return route.fulfill({ contentType: 'text/javascript', body: await readFile(join(PAGE_DIR, path.slice(1))) });
  });
  await page.goto(`${ORIGIN}/`);
  return page;
}

/** Each mrkdwn text rendered by the page's renderMrkdwn into a div: the div's HTML. */
async function rendered(texts: readonly string[]): Promise<string[]> {
  const p = await blank();
  const script = `(async () => {
    const { renderMrkdwn } = await import('/blocks.js');
    const ctx = {
      userName: (id) => ({ U0ALICE: 'alice' })[id] ?? id,
      channelName: (id) => ({ C0INCIDENTS: 'incidents' })[id] ?? id,
      groupHandle: (id) => ({ S0LEADS: 'flink-leads' })[id] ?? id,
    };
    return ${JSON.stringify(texts)}.map((text) => {
      const div = document.createElement('div');
      div.append(renderMrkdwn(text, ctx));
      return div.innerHTML;
    });
  })()`;
  return (await p.evaluate(script)) as string[];
}

/** Every emoji shortcode the bot writes (src/slack), as `grep -rhoE ':[a-z_0-9+-]+:' src/slack` finds them. */
async function botShortcodes(): Promise<string[]> {
  const files = (await readdir(join(REPO_ROOT, 'src', 'slack'), { recursive: true })).filter((f) => f.endsWith('.ts'));
  const found = new Set<string>();
  for (const file of files)
    for (const m of (await readFile(join(REPO_ROOT, 'src', 'slack', file), 'utf8')).matchAll(/:[a-z][a-z_0-9+-]*:/g))
      found.add(m[0]);
  return [...found].sort();
}

afterAll(async () => {
  await browser?.close();
});

describe('the page renders mrkdwn as Slack does', () => {
  it('turns every emoji shortcode the bot uses into its emoji', async () => {
    const codes = await botShortcodes();
    expect(codes).toEqual(expect.arrayContaining([':white_check_mark:', ':warning:', ':rewind:', ':calendar:']));
    const html = await rendered(codes);
    const literal = codes.filter((code, i) => !html[i]?.startsWith(`<span class="emoji" title="${code}">`));
    expect(literal, 'shortcodes printed as text').toEqual([]);
  });

  it('bold, italics, strike, code, quotes, links and mentions', async () => {
    const html = await rendered([
      ':white_check_mark: *COMPLETED*: 3 of 3 criteria met',
      '_Note:_ the sink keeps parallelism 1, ~old~ `spec.job.parallelism`',
      'before ```a\n*b*``` after',
      '&gt; escaped quote\n> plain quote',
      'see <https://flink.example/jobs?a=1&amp;b=2|the job> and <@U0ALICE> in <#C0INCIDENTS>, <!subteam^S0LEADS>',
      'a*b*c and snake_case_name stay as they are',
    ]);
    expect(html).toEqual([
      '<span class="emoji" title=":white_check_mark:">✅</span> <b>COMPLETED</b>: 3 of 3 criteria met',
      '<i>Note:</i> the sink keeps parallelism 1, <s>old</s> <code class="inline-code">spec.job.parallelism</code>',
      'before <pre class="code-block">a\n*b*</pre> after',
      '<span class="quote">escaped quote</span><span class="quote">plain quote</span>',
      'see <a class="link" href="https://flink.example/jobs?a=1&amp;b=2">the job</a> and <span class="mention">@alice</span> in <span class="mention channel-mention">#incidents</span>, <span class="mention">@flink-leads</span>',
      'a*b*c and snake_case_name stay as they are',
    ]);
  });

  it('keeps a date or a mention inside italics one italic, as the thread writes them', async () => {
    const [html] = await rendered([
      '_Submitted by <@U0ALICE> <!date^1767261600^{date_short_pretty} {time}|2026-01-01 10:00 UTC>: scale to 3._',
    ]);
    expect(html).toMatch(/^<i>Submitted by <span class="mention">@alice<\/span> <span class="slack-date" /);
    expect(html).toMatch(/<\/span>: scale to 3\.<\/i>$/);
    expect(html).not.toContain('_');
  });

  it('shows outside text as text: entities decode to characters, never to markup', async () => {
    const html = await rendered([
      '&lt;img src=x onerror=alert(1)&gt; &amp; <javascript:alert(1)|click>',
      '*&lt;script&gt;*',
    ]);
    expect(html).toEqual(['&lt;img src=x onerror=alert(1)&gt; &amp; click', '<b>&lt;script&gt;</b>']);
  });
});
