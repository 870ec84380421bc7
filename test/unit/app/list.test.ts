// `list` in pages (src/app/list.ts, docs/commands.md#paging-through-list): where pages start, which clusters a
// screen shows, Previous and Next, and the refusals; on the in-memory stores with a cluster fake at the Kubernetes
// boundary that holds many resources.
import { describe, expect, it } from 'vitest';
import { ListQueries, PAGE_CHARS, PAGE_SIZE, lineCost, pageStarts, type ListAnswer } from '../../../src/app/list.js';
import type { BotDeps } from '../../../src/app/context.js';
import { staticPolicy } from '../../../src/app/policy-source.js';
import type { FlinkClient, ResourceSummary } from '../../../src/kube/flink-client.js';
import { KubeError } from '../../../src/kube/errors.js';
import type { TargetKind } from '../../../src/domain/model/target.js';
import { FakeCluster } from '../../support/fake-cluster.js';
import { memoryBot, unitPolicy } from '../../support/memory-bot.js';

/** A cluster whose namespaces hold `counts[ns]` deployments `job-0000`…; a namespace in `forbidden` answers 403. */
function listedCluster(counts: Record<string, number>, forbidden: readonly string[] = []): FlinkClient {
  const listSummaries = async (kind: TargetKind, namespace: string): Promise<ResourceSummary[]> => {
    if (forbidden.includes(namespace)) throw new KubeError('forbidden', 'namespaces is forbidden', 403);
    if (kind !== 'FlinkDeployment') return [];
    return Array.from({ length: counts[namespace] ?? 0 }, (_, i) => ({
      name: `job-${String(i).padStart(4, '0')}`,
      lifecycleState: 'STABLE',
      jobState: 'RUNNING',
    }));
  };
  return Object.assign(new FakeCluster(), { listSummaries });
}

const NAMESPACES = ['streaming-dev', 'streaming-prod'];
const POLICY = unitPolicy({ version: 1, namespaces: NAMESPACES.map((name) => ({ name })) });

function lists(clusters: Record<string, FlinkClient>): ListQueries {
  const base = memoryBot().deps;
  const names = Object.keys(clusters);
  const deps: BotDeps = {
    ...base,
    policy: staticPolicy(POLICY),
    clusters: {
      names,
      kube: (t) => clusters[t.cluster ?? (names[0] as string)] as FlinkClient,
      rest: () => undefined,
    },
  };
  return new ListQueries(deps);
}

type Page = Extract<ListAnswer, { kind: 'list' }>['view'];

async function page(q: ListQueries, query: Record<string, unknown> = {}): Promise<Page> {
  const answer = await q.answer({ kind: 'list', public: false, ...query });
  if (answer.kind !== 'list') throw new Error(`refused: ${answer.message}`);
  return answer.view;
}

async function refusal(q: ListQueries, query: Record<string, unknown>): Promise<string> {
  const answer = await q.answer({ kind: 'list', public: false, ...query });
  expect(answer.kind).toBe('refused');
  return answer.kind === 'refused' ? answer.message : '';
}

const names = (view: Page) => view.items.map((i) => `${i.target.namespace}/${i.target.name}`);

describe('pageStarts', () => {
  const item = (name: string, namespace = 'ns') => ({
    target: { kind: 'FlinkDeployment' as const, namespace, name },
    lifecycleState: 'STABLE',
  });

  it('at most 100 a page, every item on exactly one page', () => {
    const items = Array.from({ length: 250 }, (_, i) => item(`j-${i}`));
    expect(pageStarts(items, PAGE_CHARS)).toEqual([0, 100, 200]);
    expect(pageStarts([], PAGE_CHARS)).toEqual([0]);
  });

  it('fewer a page when long names would not fit, each page within the budget', () => {
    const items = Array.from({ length: 100 }, (_, i) => item(`${'x'.repeat(240)}-${i}`));
    const starts = pageStarts(items, PAGE_CHARS);
    expect(starts.length).toBeGreaterThan(3);
    for (const [p, from] of starts.entries()) {
      const on = items.slice(from, starts[p + 1] ?? items.length);
      expect(on.reduce((n, i) => n + lineCost(i), 0)).toBeLessThanOrEqual(PAGE_CHARS);
    }
  });
});

describe('one cluster', () => {
  const q = lists({ default: listedCluster({ 'streaming-dev': 130, 'streaming-prod': 120 }) });

  it('page 1: the first 100 in namespace and name order; Next to page 2, no Previous', async () => {
    const view = await page(q);
    expect(view.items).toHaveLength(PAGE_SIZE);
    expect(names(view)[0]).toBe('streaming-dev/job-0000');
    expect(names(view)[99]).toBe('streaming-dev/job-0099');
    expect(view.paging.sections).toEqual([{ page: 1, pages: 3, first: 1, last: 100, total: 250, empty: [] }]);
    expect(view.paging.next).toEqual({ page: 2 });
    expect(view.paging.previous).toBeUndefined();
  });

  it('pages 2 and last cross the namespaces; together every resource once', async () => {
    const second = await page(q, { page: 2 });
    expect(second.paging.sections[0]).toMatchObject({ page: 2, first: 101, last: 200 });
    expect(second.paging.previous).toEqual({ page: 1 });
    const last = await page(q, { page: 'last' });
    expect(last.paging.sections[0]).toMatchObject({ page: 3, first: 201, last: 250 });
    expect(last.paging.next).toBeUndefined();
    const all = [...names(await page(q)), ...names(second), ...names(last)];
    expect(new Set(all).size).toBe(250);
  });

  it('a page past the end is refused in words', async () => {
    expect(await refusal(q, { page: 4 })).toBe(
      'there is no page 4: it has 3 pages (250 resources); nothing was listed',
    );
  });

  it('--cluster must be the cluster there is', async () => {
    expect(await refusal(q, { cluster: 'eu' })).toBe(
      'there is no cluster eu: the clusters are default; nothing was listed',
    );
    expect((await page(q, { cluster: 'default' })).items).toHaveLength(100);
  });
});

describe('several clusters', () => {
  const q = lists({
    eu: listedCluster({ 'streaming-dev': 150 }),
    us: listedCluster({ 'streaming-prod': 5 }, ['streaming-dev']),
    ap: listedCluster({ 'streaming-dev': 2, 'streaming-prod': 1 }),
  });

  it("a page never mixes clusters; on eu's last page the small clusters after it come whole", async () => {
    const first = await page(q);
    expect(first.paging.sections).toEqual([
      { cluster: 'eu', page: 1, pages: 2, first: 1, last: 100, total: 150, empty: ['eu/streaming-prod'] },
    ]);
    expect(first.items.every((i) => i.target.cluster === 'eu')).toBe(true);
    const last = await page(q, { page: 2 });
    expect(last.paging.sections.map((s) => [s.cluster, s.first, s.last, s.total])).toEqual([
      ['eu', 101, 150, 150],
      ['us', 1, 5, 5],
      ['ap', 1, 3, 3],
    ]);
    expect(last.paging.next).toBeUndefined();
    expect(last.paging.previous).toEqual({ cluster: 'eu', page: 1 });
    // A namespace the bot may not read is said, with its cluster.
    expect(last.problems).toEqual([
      {
        namespace: 'us/streaming-dev',
        message: 'the bot has no access to namespace streaming-dev (add a RoleBinding)',
      },
    ]);
  });

  it("--cluster starts at that cluster's pages; Previous goes to the cluster before, at its last page", async () => {
    const us = await page(q, { cluster: 'us' });
    expect(us.paging.sections.map((s) => s.cluster)).toEqual(['us', 'ap']);
    expect(us.paging.previous).toEqual({ cluster: 'eu', page: 'last' });
    expect(await refusal(q, { cluster: 'us', page: 2 })).toBe(
      'there is no page 2 of cluster us: it has 1 page (5 resources); nothing was listed',
    );
    expect(await refusal(q, { cluster: 'mars' })).toContain('there is no cluster mars: the clusters are eu, us, ap');
  });

  it('Next on the last page of a cluster too large to join goes to its first page', async () => {
    const big = lists({ eu: listedCluster({ 'streaming-dev': 120 }), us: listedCluster({ 'streaming-dev': 101 }) });
    const euLast = await page(big, { page: 2 });
    expect(euLast.paging.sections.map((s) => s.cluster)).toEqual(['eu']);
    expect(euLast.paging.next).toEqual({ cluster: 'us', page: 1 });
  });

  it('a namespace only some clusters manage is refused by none of them', async () => {
    expect(await refusal(q, { namespace: 'kube-system' })).toContain('kube-system');
    const dev = await page(q, { namespace: 'streaming-dev', page: 2 });
    expect(dev.paging.namespace).toBe('streaming-dev');
    expect(dev.items.every((i) => i.target.namespace === 'streaming-dev')).toBe(true);
  });
});
