// One screen of `list` (docs/commands.md#paging-through-list): a page of a cluster (or several small clusters whole),
// each cluster headed by what it shows of how many ("showing 101–200 of 2,000 · page 2 of 20"), and the Previous and
// Next buttons, whose values carry the cluster, the typed namespace and the page.
import { clusterProblem, formatTarget, namespaceProblem, type Target } from '../../domain/model/target.js';
import type { ListPosition, ListSection, ListView, PagedListView } from '../../app/views.js';
import { enforceLimits } from './limits.js';
import type { RenderContext, SlackMessage } from './message.js';
import { button, context, escapeOutside, escapeText, fitLines, header, oneLine, section, type Block } from './text.js';

export const LIST_ACTION_IDS = { previous: 'flink_list_previous', next: 'flink_list_next' } as const;
export type ListButton = keyof typeof LIST_ACTION_IDS;

/** A section's text stays below Slack's 3,000 characters. */
const SECTION_CHARS = 2_900;
const EMPTY_CHARS = 500;
const PROBLEM_CHARS = 1_000;
const number = (n: number): string => n.toLocaleString('en-US');
const unknown = '_unknown_';
const shown = (v: string | undefined): string => (v === undefined || v === '' ? unknown : escapeText(v));

export function itemLine(item: ListView['items'][number]): string {
  const kind = item.target.kind === 'FlinkSessionJob' ? ' (session job)' : '';
  const frozen = item.frozen ? ' · :lock: frozen' : '';
  return `• \`${escapeText(formatTarget(item.target))}\`${kind} — lifecycle ${shown(item.lifecycleState)} · job ${shown(item.jobState)}${frozen}`;
}

/** Where `list` groups an item: its namespace, or `cluster/namespace` with several clusters. */
export function placeOf(target: Target): string {
  return target.cluster === undefined ? target.namespace : `${target.cluster}/${target.namespace}`;
}

/** What a cluster's section claims: never more than it shows. */
export function sectionLine(s: ListSection): string {
  const name = s.cluster === undefined ? '' : `*${escapeText(s.cluster)}* · `;
  if (s.total === 0) return `${name}no FlinkDeployments or FlinkSessionJobs`;
  if (s.pages === 1) return `${name}${s.total === 1 ? '1 resource' : `all ${number(s.total)} resources`}`;
  return `${name}showing ${number(s.first)}–${number(s.last)} of ${number(s.total)} · page ${s.page} of ${s.pages}`;
}

/** Lines packed into as few sections as Slack's 3,000 characters a section allow, none cut. */
export function lineSections(lines: readonly string[]): Block[] {
  const texts: string[] = [];
  let current = '';
  for (const line of lines) {
    if (current !== '' && current.length + 1 + line.length > SECTION_CHARS) {
      texts.push(current);
      current = '';
    }
    current = current === '' ? line : `${current}\n${line}`;
  }
  if (current !== '') texts.push(current);
  return texts.map((t) => section(t));
}

/** The lines of one cluster's page, a bold heading per place. */
function pageSections(items: ListView['items']): Block[] {
  const lines: string[] = [];
  let place: string | undefined;
  for (const item of items) {
    const here = placeOf(item.target);
    if (here !== place) lines.push(`*${escapeText(here)}*`);
    place = here;
    lines.push(itemLine(item));
  }
  return lineSections(lines);
}

export function listButtonValue(namespace: string | undefined, at: ListPosition): string {
  return JSON.stringify({ ...(at.cluster === undefined ? {} : { cluster: at.cluster }), namespace, page: at.page });
}

function title(view: PagedListView): string {
  const clusters = view.paging.sections.flatMap((s) => (s.cluster === undefined ? [] : [s.cluster]));
  const where = view.paging.namespace === undefined ? '' : ` in ${view.paging.namespace}`;
  return `Flink jobs${where}${clusters.length > 0 ? ` — ${clusters.join(', ')}` : ''}`;
}

/** The fallback text: what the screen shows, never a larger total as if it were shown. */
function fallback(view: PagedListView): string {
  const [only, ...others] = view.paging.sections;
  if (only === undefined) return 'No Flink resources';
  const where = only.cluster === undefined ? '' : ` in ${only.cluster}`;
  if (others.length === 0 && only.pages > 1)
    return `Flink resources ${number(only.first)}–${number(only.last)} of ${number(only.total)}${where} (page ${only.page} of ${only.pages})`;
  const n = view.items.length;
  return `${number(n)} Flink resource${n === 1 ? '' : 's'}${others.length === 0 ? where : ` in ${view.paging.sections.length} clusters`}`;
}

export function renderListPage(view: PagedListView, _ctx: RenderContext): SlackMessage {
  const { paging } = view;
  const blocks: Block[] = [header(title(view))];
  for (const s of paging.sections) {
    const own = view.items.filter((i) => i.target.cluster === s.cluster);
    blocks.push(context(sectionLine(s)), ...pageSections(own));
    if (s.empty.length > 0) {
      const names = s.empty.map((p) => `\`${escapeText(p)}\``).join(', ');
      blocks.push(context(fitLines(`No FlinkDeployments or FlinkSessionJobs in ${names}`, EMPTY_CHARS)));
    }
  }
  if (view.problems.length > 0) {
    const lines = view.problems.map((p) => `• \`${escapeText(p.namespace)}\`: ${escapeOutside(oneLine(p.message))}`);
    blocks.push(section(fitLines(`*Could not read*\n${lines.join('\n')}`, PROBLEM_CHARS)));
  }
  if (view.namespaces.length === 0) blocks.push(section('_No managed namespaces and no recent operations._'));
  const buttons = [
    paging.previous &&
      button('‹ Previous', LIST_ACTION_IDS.previous, listButtonValue(paging.namespace, paging.previous)),
    paging.next && button('Next ›', LIST_ACTION_IDS.next, listButtonValue(paging.namespace, paging.next), 'primary'),
  ].filter((b): b is Block => b !== undefined);
  if (buttons.length > 0) blocks.push({ type: 'actions', block_id: 'list_pages', elements: buttons });
  return enforceLimits({ text: escapeText(fallback(view)), blocks });
}

/** A page button's value as Slack sent it back, or why it cannot be used. */
export function readListValue(
  value: string,
): { ok: true; namespace?: string; cluster?: string; page: number | 'last' } | { ok: false; message: string } {
  const bad = { ok: false as const, message: 'this button does not name a page of `list`; nothing was listed' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return bad;
  }
  if (typeof parsed !== 'object' || parsed === null) return bad;
  const { namespace, cluster, page } = parsed as Record<string, unknown>;
  const pageOk = page === 'last' || (typeof page === 'number' && Number.isInteger(page) && page >= 1);
  if (!pageOk || !optional(namespace, namespaceProblem) || !optional(cluster, clusterProblem)) return bad;
  return {
    ok: true,
    page: page as number | 'last',
    ...(namespace === undefined ? {} : { namespace: namespace as string }),
    ...(cluster === undefined ? {} : { cluster: cluster as string }),
  };
}

/** Absent, or a string without a problem. */
const optional = (v: unknown, problem: (s: string) => string | undefined): boolean =>
  v === undefined || (typeof v === 'string' && problem(v) === undefined);
