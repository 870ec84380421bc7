// The `list` query in pages (docs/commands.md#paging-through-list): every resource of the managed namespaces, cluster
// by cluster, 100 a page (fewer when long names would not fit one Slack message); a page never mixes clusters.
import type { Query } from '../domain/engines/language/requests.js';
import { findNamespace, unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { LAST_PAGE, type ListPageNumber } from '../domain/kit/language/list.js';
import { formatTarget, targetKey, type TargetKind } from '../domain/model/target.js';
import { isKubeError } from '../kube/errors.js';
import { describeFault, type BotDeps } from './context.js';
import type { ListPosition, ListSection, ListView, PagedListView } from './views.js';

/** At most this many resources a page. */
export const PAGE_SIZE = 100;
/**
 * What a screen's clusters may take, in characters as Slack counts them (docs/lifecycle.md#what-slack-allows): their
 * lines, headings and empty namespaces; with the header, the problems (clipped to 1,000) and the buttons the message
 * stays under its 12,000 budget.
 */
export const PAGE_CHARS = 10_000;
/** Operator states are short words; a longer one is cut, so that a line's size is known before it is rendered. */
export const STATE_CHARS = 40;
/** What the renderer adds to a line besides the target and the two states (bullet, code marks, words, a lock, \n). */
const LINE_EXTRA = 55;
/** The empty namespaces of a cluster are named in at most this many characters (the renderer clips them so). */
export const EMPTY_CHARS = 500;
/** A cluster's line above its page ("eu · showing 1–100 of 2,000 · page 1 of 20") and its block. */
const SECTION_EXTRA = 150;

/** The items are the shown ones only; namespaces and problems those of the shown clusters. */
export type ListAnswer = { kind: 'list'; view: PagedListView } | { kind: 'refused'; message: string };

type Item = ListView['items'][number];

/** A namespace in a cluster (cluster undefined: the only one). */
interface Place {
  cluster: string | undefined;
  namespace: string;
}

/** How `list` names a place: `namespace`, or `cluster/namespace` with several clusters. */
function placeName(place: Place): string {
  return place.cluster === undefined ? place.namespace : `${place.cluster}/${place.namespace}`;
}

/** One cluster read whole: its items sorted by place and name, and where each of its pages starts. */
export interface ClusterList {
  cluster: string | undefined;
  places: string[];
  items: Item[];
  problems: ListView['problems'];
  starts: number[];
}

export class ListQueries {
  constructor(private readonly deps: BotDeps) {}

  /**
   * One screen: a page of one cluster, followed by the next clusters whole while the page is its cluster's last,
   * each of them fits one page and the screen stays within a page's size. Namespaces: the exact ones of the policy
   * plus those of recent operations (globs list nothing by themselves).
   */
  async answer(query: Extract<Query, { kind: 'list' }>): Promise<ListAnswer> {
    const state = await this.deps.policy.current();
    const policy = state.ok ? state.policy : undefined;
    const names = this.deps.clusters.names;
    const clusters = names.length > 1 ? names : [undefined];
    const { namespace } = query;
    if (query.cluster !== undefined && !names.includes(query.cluster))
      return refused(`there is no cluster ${query.cluster}: the clusters are ${names.join(', ')}; nothing was listed`);
    if (namespace !== undefined && policy && !clusters.some((c) => findNamespace(policy, namespace, c)))
      return refused(unmanagedMessage(policy, namespace));
    const fromPolicy = policy ? policy.namespaces.map((n) => n.name).filter((n) => !/[*?[]/.test(n)) : [];
    const candidates =
      namespace !== undefined
        ? [namespace]
        : [...new Set([...fromPolicy, ...(await this.deps.store.namespacesOfRecentOperations())])].sort();
    const frozen = new Set((await this.deps.freezes.list()).map((f) => targetKey(f.target)));
    const read = (cluster: string | undefined) => this.cluster(cluster, candidates, policy, frozen);
    const start = query.cluster === undefined || names.length === 1 ? 0 : names.indexOf(query.cluster);
    const first = await read(clusters[start]);
    const pages = first.starts.length;
    const page = query.page === LAST_PAGE ? pages : (query.page ?? 1);
    if (page > pages) return refused(pastTheEnd(first, page, names.length > 1));
    const screen = new ListScreen(first, page);
    let k = start + 1;
    if (page === pages) for (; k < clusters.length; k++) if (!screen.add(await read(clusters[k]))) break;
    const at = (cluster: string | undefined, p: ListPageNumber): ListPosition =>
      cluster === undefined ? { page: p } : { cluster, page: p };
    const paging: PagedListView['paging'] = {
      ...(namespace === undefined ? {} : { namespace }),
      sections: screen.sections,
      ...(page > 1 || start > 0
        ? { previous: page > 1 ? at(first.cluster, page - 1) : at(clusters[start - 1], LAST_PAGE) }
        : {}),
      ...(page < pages || k < clusters.length
        ? { next: page < pages ? at(first.cluster, page + 1) : at(clusters[k], 1) }
        : {}),
    };
    const view = {
      namespaces: screen.places,
      items: screen.items,
      problems: screen.problems,
      ...(names.length > 1 ? { clusters: [...names] } : {}),
      paging,
    };
    return { kind: 'list', view };
  }

  /** Every resource in one cluster's places, sorted, with its page starts. */
  private async cluster(
    cluster: string | undefined,
    candidates: readonly string[],
    policy: Policy | undefined,
    frozen: ReadonlySet<string>,
  ): Promise<ClusterList> {
    const places = candidates
      .filter((ns) => cluster === undefined || !policy || findNamespace(policy, ns, cluster))
      .map((ns) => ({ cluster, namespace: ns }));
    const results = await Promise.all(places.map((place) => this.namespace(place)));
    const list: ClusterList = { cluster, places: places.map(placeName), items: [], problems: [], starts: [0] };
    for (const [i, result] of results.entries()) {
      const place = placeName(places[i] as Place);
      if ('problem' in result) list.problems.push({ namespace: place, message: result.problem });
      else
        for (const item of result.items)
          list.items.push({ ...item, ...(frozen.has(targetKey(item.target)) ? { frozen: true } : {}) });
    }
    list.items.sort(byPlaceAndName);
    list.starts = pageStarts(list.items, PAGE_CHARS - emptyCost(list));
    return list;
  }

  private async namespace({ cluster, namespace }: Place): Promise<{ items: Item[] } | { problem: string }> {
    try {
      const kinds: TargetKind[] = ['FlinkDeployment', 'FlinkSessionJob'];
      const kube = this.deps.clusters.kube(cluster === undefined ? {} : { cluster });
      const lists = await Promise.all(kinds.map((kind) => kube.listSummaries(kind, namespace)));
      const items = lists.flatMap((summaries, i) =>
        summaries.map(({ name, lifecycleState, jobState }) => ({
          target: { ...(cluster === undefined ? {} : { cluster }), kind: kinds[i] as TargetKind, namespace, name },
          ...(lifecycleState === undefined ? {} : { lifecycleState: lifecycleState.slice(0, STATE_CHARS) }),
          ...(jobState === undefined ? {} : { jobState: jobState.slice(0, STATE_CHARS) }),
        })),
      );
      return { items };
    } catch (error) {
      if (isKubeError(error, 'forbidden'))
        return { problem: `the bot has no access to namespace ${namespace} (add a RoleBinding)` };
      return { problem: describeFault(error) };
    }
  }
}

/** What one screen shows: a page of its first cluster and, after a last page, whole clusters that fit. */
class ListScreen {
  readonly sections: ListSection[] = [];
  readonly items: Item[] = [];
  readonly places: string[] = [];
  readonly problems: ListView['problems'] = [];
  private used = 0;

  constructor(first: ClusterList, page: number) {
    const from = first.starts[page - 1] ?? 0;
    const to = first.starts[page] ?? first.items.length;
    this.show(first, page, first.items.slice(from, to), from);
  }

  /** Adds `list` whole when it has one page and fits what is left; false when it does not (it starts the next). */
  add(list: ClusterList): boolean {
    const cost = sectionCost(list, list.items);
    if (list.starts.length > 1 || this.items.length + list.items.length > PAGE_SIZE || this.used + cost > PAGE_CHARS)
      return false;
    this.show(list, 1, list.items, 0);
    return true;
  }

  private show(list: ClusterList, page: number, items: Item[], from: number): void {
    const withItems = new Set(list.items.map((i) => placeOf(i)));
    const withProblems = new Set(list.problems.map((p) => p.namespace));
    this.sections.push({
      ...(list.cluster === undefined ? {} : { cluster: list.cluster }),
      page,
      pages: list.starts.length,
      first: items.length === 0 ? 0 : from + 1,
      last: from + items.length,
      total: list.items.length,
      empty: list.places.filter((p) => !withItems.has(p) && !withProblems.has(p)),
    });
    this.items.push(...items);
    this.places.push(...list.places);
    this.problems.push(...list.problems);
    this.used += sectionCost(list, items);
  }
}

/** Where each page starts: at most PAGE_SIZE items, and lines (with a heading per place) within `budget`. */
export function pageStarts(items: readonly Item[], budget: number): number[] {
  const starts = [0];
  let used = 0;
  let count = 0;
  let place: string | undefined;
  for (const [i, item] of items.entries()) {
    const heading = placeOf(item) === place ? 0 : headingCost(item);
    if (count > 0 && (count === PAGE_SIZE || used + heading + lineCost(item) > budget)) {
      starts.push(i);
      used = headingCost(item) + lineCost(item);
      count = 1;
    } else {
      used += heading + lineCost(item);
      count += 1;
    }
    place = placeOf(item);
  }
  return starts;
}

/** Characters a rendered line takes at most: `&`, `<` and `>` become entities of up to five. */
export function lineCost(item: Item): number {
  const escaped = (s: string | undefined) => (s ?? '_unknown_').replace(/[&<>]/g, '&amp;').length;
  return formatTarget(item.target).length + escaped(item.lifecycleState) + escaped(item.jobState) + LINE_EXTRA;
}

const headingCost = (item: Item): number => placeOf(item).length + 8;

function sectionCost(list: ClusterList, items: readonly Item[]): number {
  let place: string | undefined;
  let cost = SECTION_EXTRA + emptyCost(list);
  for (const item of items) {
    cost += (placeOf(item) === place ? 0 : headingCost(item)) + lineCost(item);
    place = placeOf(item);
  }
  return cost;
}

const emptyCost = (list: ClusterList): number =>
  list.places.length === 0 ? 0 : Math.min(EMPTY_CHARS, list.places.join(', ').length + 60);

function placeOf(item: Item): string {
  const t = item.target;
  return t.cluster === undefined ? t.namespace : `${t.cluster}/${t.namespace}`;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** By namespace, then name; a deployment before a session job of the same name. */
function byPlaceAndName(a: Item, b: Item): number {
  const [x, y] = [a.target, b.target];
  return compare(x.namespace, y.namespace) || compare(x.name, y.name) || compare(x.kind, y.kind);
}

function pastTheEnd(list: ClusterList, page: number, several: boolean): string {
  const where = several ? ` of cluster ${list.cluster ?? ''}` : '';
  const count = `${list.items.length.toLocaleString('en-US')} resource${list.items.length === 1 ? '' : 's'}`;
  const pages = list.starts.length;
  return `there is no page ${page}${where}: it has ${pages} page${pages === 1 ? '' : 's'} (${count}); nothing was listed`;
}

function refused(message: string): ListAnswer {
  return { kind: 'refused', message };
}
