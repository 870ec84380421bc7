// One screen of `list` (src/slack/blocks/list-page.ts, docs/commands.md#paging-through-list): what each cluster
// claims, the lines, the buttons and their values, and Slack's limits for the fullest page the app can make.
import { describe, expect, it } from 'vitest';
import { PAGE_SIZE, lineCost, pageStarts } from '../../../../src/app/list.js';
import type { Target } from '../../../../src/domain/model/target.js';
import {
  itemLine,
  LIST_ACTION_IDS,
  listButtonValue,
  readListValue,
  renderListPage,
  sectionLine,
} from '../../../../src/slack/blocks/list-page.js';
import type { ListSection, PagedListView } from '../../../../src/app/views.js';
import { renderList } from '../../../../src/slack/blocks/index.js';
import { buttonsOf, expectValid, visibleText } from '../../../support/blocks.js';
import { CTX } from '../../../support/records.js';

type Item = PagedListView['items'][number];
const job = (cluster: string | undefined, namespace: string, name: string): Item => ({
  target: { ...(cluster === undefined ? {} : { cluster }), kind: 'FlinkDeployment', namespace, name } as Target,
  lifecycleState: 'STABLE',
  jobState: 'RUNNING',
});
const section = (fields: Partial<ListSection>): ListSection => ({
  page: 1,
  pages: 1,
  first: 1,
  last: 1,
  total: 1,
  empty: [],
  ...fields,
});
const lines = (text: string) => text.split('\n').filter((l) => l.startsWith('• '));

describe('a page of one cluster', () => {
  const items = Array.from({ length: 100 }, (_, i) =>
    job(undefined, i < 60 ? 'analytics' : 'ingest', `job-${i + 101}`),
  );
  const view: PagedListView = {
    namespaces: ['analytics', 'ingest'],
    items,
    problems: [],
    paging: {
      sections: [section({ page: 2, pages: 20, first: 101, last: 200, total: 2000 })],
      previous: { page: 1 },
      next: { page: 3 },
    },
  };

  it('says what it shows of how many, never the total alone, and shows exactly that many lines', () => {
    const m = renderList(view, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(text).toContain('showing 101–200 of 2,000 · page 2 of 20');
    expect(m.text).toBe('Flink resources 101–200 of 2,000 (page 2 of 20)');
    expect(lines(text)).toHaveLength(100);
    expect(text).toContain('*analytics*\n• `analytics/job-101` — lifecycle STABLE · job RUNNING');
    expect(text).toContain('*ingest*\n• `ingest/job-161`');
    expect(text).not.toMatch(/…and \d+ more/);
  });

  it('Previous and Next carry the page, and read back as a position', () => {
    const buttons = buttonsOf(renderListPage(view, CTX));
    expect(buttons.map((b) => [b.text.text, b.action_id])).toEqual([
      ['‹ Previous', LIST_ACTION_IDS.previous],
      ['Next ›', LIST_ACTION_IDS.next],
    ]);
    expect(readListValue(buttons[1]?.value ?? '')).toEqual({ ok: true, page: 3 });
    const value = listButtonValue('streaming-prod', { cluster: 'us', page: 'last' });
    expect(readListValue(value)).toEqual({ ok: true, namespace: 'streaming-prod', cluster: 'us', page: 'last' });
  });

  it('a screen with everything has no buttons', () => {
    const all: PagedListView = {
      ...view,
      items: items.slice(0, 3),
      paging: { sections: [section({ total: 3, last: 3 })] },
    };
    const m = renderListPage(all, CTX);
    expect(buttonsOf(m)).toEqual([]);
    expect(visibleText(m)).toContain('all 3 resources');
    expect(m.text).toBe('3 Flink resources');
  });
});

describe('several clusters on one screen', () => {
  it('each cluster says its own count; empty namespaces and unreadable ones are named', () => {
    const view: PagedListView = {
      namespaces: ['eu/a', 'eu/b', 'us/a', 'us/b'],
      clusters: ['eu', 'us'],
      items: [job('eu', 'a', 'x'), job('eu', 'a', 'y'), job('us', 'a', 'z')],
      problems: [{ namespace: 'us/b', message: 'the bot has no access to namespace b (add a RoleBinding)' }],
      paging: {
        sections: [
          section({ cluster: 'eu', page: 3, pages: 3, first: 201, last: 202, total: 202, empty: ['eu/b'] }),
          section({ cluster: 'us', total: 1 }),
        ],
        previous: { cluster: 'eu', page: 2 },
      },
    };
    const m = renderListPage(view, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(text).toContain('Flink jobs — eu, us');
    expect(text).toContain('*eu* · showing 201–202 of 202 · page 3 of 3');
    expect(text).toContain('*us* · 1 resource');
    expect(text).toContain('No FlinkDeployments or FlinkSessionJobs in `eu/b`');
    expect(text).toContain('*Could not read*\n• `us/b`: the bot has no access to namespace b (add a RoleBinding)');
    expect(m.text).toBe('3 Flink resources in 2 clusters');
    expect(buttonsOf(m).map((b) => b.text.text)).toEqual(['‹ Previous']);
  });

  it('a section never claims more than it shows', () => {
    expect(sectionLine(section({ cluster: 'eu', total: 0, first: 0, last: 0 }))).toBe(
      '*eu* · no FlinkDeployments or FlinkSessionJobs',
    );
    expect(sectionLine(section({ pages: 20, page: 20, first: 1901, last: 2000, total: 2000 }))).toBe(
      'showing 1,901–2,000 of 2,000 · page 20 of 20',
    );
  });
});

describe('the fullest page the app can make', () => {
  it('a rendered line is never longer than the app counted it', () => {
    const worst: Item = {
      target: { cluster: 'c'.repeat(63), kind: 'FlinkSessionJob', namespace: 'n'.repeat(63), name: 'x'.repeat(253) },
      lifecycleState: '<&>'.repeat(13),
      jobState: '&'.repeat(40),
      frozen: true,
    };
    for (const item of [worst, job(undefined, 'a', 'b'), { target: job('eu', 'a', 'b').target }])
      expect(itemLine(item).length + 1).toBeLessThanOrEqual(lineCost(item));
  });

  it('long names, session jobs, freezes, escaped states and many problems stay within every limit, uncut', () => {
    const items: Item[] = Array.from({ length: 300 }, (_, i) => ({
      target: {
        cluster: 'eu',
        kind: 'FlinkSessionJob',
        namespace: `ns-${i % 7}`,
        name: `${'a'.repeat(60 + (i % 50))}-${i}`,
      },
      lifecycleState: 'DEPLOYED & <READY>',
      jobState: 'RUNNING',
      frozen: true,
    }));
    items.sort((a, b) => a.target.namespace.localeCompare(b.target.namespace));
    const starts = pageStarts(items, 10_000 - 500);
    const shown = items.slice(0, starts[1]);
    expect(shown.length).toBeLessThan(PAGE_SIZE);
    const problems = Array.from({ length: 40 }, (_, i) => ({ namespace: `eu/bad-${i}`, message: 'x'.repeat(200) }));
    const view: PagedListView = {
      namespaces: ['eu/ns-0'],
      clusters: ['eu', 'us'],
      items: shown,
      problems,
      paging: {
        namespace: 'n'.repeat(63),
        sections: [
          section({
            cluster: 'eu',
            pages: starts.length,
            last: shown.length,
            total: items.length,
            empty: Array.from({ length: 60 }, (_, i) => `eu/empty-${i}`),
          }),
        ],
        next: { cluster: 'eu', page: 2 },
      },
    };
    const m = renderListPage(view, CTX);
    expectValid(m);
    expect(lines(visibleText(m)).filter((l) => l.includes('(session job)'))).toHaveLength(shown.length);
  });
});

describe('a button value that cannot be used', () => {
  it.each([
    'not json',
    '[]',
    'null',
    '{"page":0}',
    '{"page":"x"}',
    '{"page":1.5}',
    '{"page":2,"namespace":"Bad_NS"}',
    '{"page":2,"cluster":"eu west"}',
    '{"namespace":"a"}',
  ])('%s', (value) => {
    expect(readListValue(value)).toEqual({
      ok: false,
      message: 'this button does not name a page of `list`; nothing was listed',
    });
  });
});
