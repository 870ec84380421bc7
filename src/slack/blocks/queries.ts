// Answers to the read-only queries (status, list, ops, explain, locks, help) and short private replies.
import { runsLine } from './schedule.js';
import { helpText } from '../../domain/engines/language/help.js';
import type { OperationRecord } from '../../domain/engines/operation.js';
import { formatTarget, type Target } from '../../domain/model/target.js';
import { revertText } from './gitops.js';
import { enforceLimits } from './limits.js';
import { checkLines, intentLine, planLines, planTitle, reasonLines } from './parts.js';
import { isBreakGlass, skippedUseLines } from './break-glass.js';
import { itemLine, lineSections, placeOf, renderListPage } from './list-page.js';
import {
  ageOf,
  context,
  either,
  escapeKeepMentions,
  escapeOutside,
  escapeText,
  fields,
  header,
  listSection,
  moreLine,
  oneLine,
  plural,
  section,
  slackDate,
  userText,
  who,
  type Block,
} from './text.js';
import type { ExplainView, ListView, LocksView, PagedListView, StatusView } from '../../app/views.js';
import type { RenderContext, SlackMessage } from './message.js';

const compact = (blocks: (Block | undefined)[]): Block[] => blocks.filter((b): b is Block => b !== undefined);
const unknown = '_unknown_';
const shown = (v: string | number | undefined): string =>
  v === undefined || v === '' ? unknown : escapeText(String(v));

/** A command that could not become an operation or query: what was wrong and how to write it. */
export function renderRefusal(message: string, ctx: RenderContext & { usage?: string }): SlackMessage {
  const blocks = [section(`:no_entry_sign: ${escapeKeepMentions(message)}`)];
  const hint = ctx.usage
    ? `Usage: \`${escapeText(ctx.usage)}\``
    : `\`${escapeText(ctx.command)} help\` lists every command`;
  blocks.push(context(hint));
  return enforceLimits({ text: escapeKeepMentions(message), blocks });
}

/** A short private answer, e.g. why a click was not counted. */
export function renderNotice(text: string): SlackMessage {
  const escaped = escapeKeepMentions(text);
  return enforceLimits({ text: escaped, blocks: [section(escaped)] });
}

function leaseText(view: StatusView, now: number): string {
  return view.lease ? `held by \`${escapeText(view.lease.opId)}\` for ${ageOf(view.lease.since, now)}` : '_free_';
}

function freezeText(view: StatusView, now: number): string {
  const f = view.freeze;
  if (!f) return '_not frozen_';
  const until = f.until === undefined ? '' : ` until ${slackDate(f.until)}`;
  return `:lock: frozen by ${who(f.by)} ${ageOf(f.at, now)} ago${until}: ${userText(f.reason, 300)}`;
}

export function renderStatus(view: StatusView, ctx: RenderContext): SlackMessage {
  const target = formatTarget(view.target);
  const sp = view.lastSavepoint;
  const last = view.lastOperation;
  const blocks = compact([
    header(`Status of ${target}`),
    fields([
      ['Lifecycle', shown(view.lifecycleState)],
      ['Job state', shown(view.jobState)],
      ['Image', view.image ? `\`${escapeText(view.image)}\`` : unknown],
      ['Parallelism', shown(view.parallelism)],
      ['Upgrade mode', shown(view.upgradeMode)],
      ['Environment', shown(view.environment)],
    ]),
    fields([
      [
        'Last savepoint',
        sp ? `\`${escapeText(sp.location)}\`${sp.at === undefined ? '' : ` (${slackDate(sp.at)})`}` : '_none_',
      ],
      ['Lease', leaseText(view, ctx.now)],
      ['Freeze', freezeText(view, ctx.now)],
      [
        'Last operation',
        last
          ? `\`${escapeText(last.id)}\` ${escapeText(last.kind)} *${last.state}* by ${who(last.requester)}, ${slackDate(last.updatedAt)}`
          : '_none_',
      ],
    ]),
    view.error ? section(`:warning: *Operator error:* ${escapeText(oneLine(view.error))}`) : undefined,
    gitopsStatus(view),
    crdStatus(view),
  ]);
  const text = `Status of ${target}: lifecycle ${view.lifecycleState ?? 'unknown'}, job ${view.jobState ?? 'unknown'}`;
  return enforceLimits({ text: escapeText(text), blocks });
}

/** The installed CRDs and what the target shows of the operator beside them (docs/deployment.md#operator-versions). */
function crdStatus(view: StatusView): Block | undefined {
  const lines = [
    view.operator?.mismatch ? `:warning: *${escapeText(view.operator.words)}*` : undefined,
    view.operator && !view.operator.mismatch ? `*Operator:* ${escapeText(view.operator.words)}` : undefined,
    view.crds ? `*CRDs:* ${escapeText(view.crds)}` : undefined,
  ].filter((l): l is string => l !== undefined);
  return lines.length > 0 ? section(lines.join('\n')) : undefined;
}

/** Who applies the target from Git, a pause, and the last operation's latest revert (docs/policy.md#gitops-managed-targets). */
function gitopsStatus(view: StatusView): Block | undefined {
  const lines: string[] = [];
  const g = view.gitops;
  if (g) {
    const by = g.pausedBy ? ` by \`${escapeText(g.pausedBy)}\`` : '';
    const skipped = g.skipped ? `; Flux does not apply Git to it (\`${escapeText(g.skipped)}\`)` : '';
    lines.push(`Managed by ${escapeText(g.owner)}${g.paused ? `; Flux is *paused* for it${by}` : ''}${skipped}`);
  }
  if (view.lastRevert) lines.push(`:rewind: ${revertText(view.lastRevert)}`);
  return lines.length === 0 ? undefined : section(`*GitOps*\n${lines.join('\n')}`);
}

/** `list`: a page of it when the app paged it (docs/commands.md#paging-through-list), else the whole view. */
export function renderList(view: ListView | PagedListView, ctx: RenderContext): SlackMessage {
  if ('paging' in view) return renderListPage(view, ctx);
  const inClusters = view.clusters ? ` in ${plural(view.clusters.length, 'cluster')}` : '';
  const blocks: Block[] = [header(`Flink jobs in ${plural(view.namespaces.length, 'namespace')}${inClusters}`)];
  const namespaces = [...new Set([...view.namespaces, ...view.items.map((i) => placeOf(i.target))])];
  for (const ns of namespaces) {
    const lines = view.items.filter((i) => placeOf(i.target) === ns).map(itemLine);
    const problem = view.problems.find((p) => p.namespace === ns);
    if (problem) lines.push(`:warning: ${escapeOutside(oneLine(problem.message))}`);
    blocks.push(
      section(
        `*${escapeText(ns)}*\n${lines.length > 0 ? lines.join('\n') : '_no FlinkDeployments or FlinkSessionJobs_'}`,
      ),
    );
  }
  const others = view.problems.filter((p) => !namespaces.includes(p.namespace));
  const otherBlock = listSection(
    'Could not read',
    others.map((p) => `• \`${escapeText(p.namespace)}\`: ${escapeOutside(oneLine(p.message))}`),
  );
  if (otherBlock) blocks.push(otherBlock);
  if (namespaces.length === 0) blocks.push(section('_No managed namespaces and no recent operations._'));
  const text = `${plural(view.items.length, 'Flink resource')} in ${plural(namespaces.length, 'namespace')}`;
  return enforceLimits({ text, blocks });
}

function opLine(r: OperationRecord): string {
  return `• ${isBreakGlass(r) ? '*BREAK-GLASS* · ' : ''}\`${r.id}\` · ${escapeText(r.kind)} \`${escapeText(formatTarget(r.target))}\` · *${r.state}* · ${who(r.requester)} · ${slackDate(r.createdAt)}`;
}

/** What the lines of `ops` may take: up to 100 operations, as many as fit, then how many more there are. */
const OPS_CHARS = 9_000;

/** Recent operations, newest first, one line each; the ones that do not fit are counted, never cut mid-way. */
export function renderOps(records: OperationRecord[], ctx: RenderContext & { target?: Target }): SlackMessage {
  const where = ctx.target ? ` on ${formatTarget(ctx.target)}` : '';
  const sorted = [...records].sort((a, b) => b.createdAt - a.createdAt);
  const lines: string[] = [];
  let used = 0;
  for (const line of sorted.map(opLine)) {
    if (used + line.length + 1 > OPS_CHARS) break;
    lines.push(line);
    used += line.length + 1;
  }
  const more = sorted.length - lines.length;
  const blocks = [
    header(`Recent operations${where}`),
    ...(lines.length > 0 ? lineSections(lines) : [section(`_No operations yet${escapeText(where)}._`)]),
    ...(more > 0 ? [context(`${moreLine(more)}: \`${escapeText(ctx.command)} ops <target>\` shows one target's`)] : []),
    context(`\`${escapeText(ctx.command)} op <op id>\` shows one operation with its full history`),
  ];
  return enforceLimits({ text: escapeText(`${plural(records.length, 'recent operation')}${where}`), blocks });
}

/** The decision, with what the typed command lacks (a --reason) listed among what it would need. */
function explainDecision(view: ExplainView): Block | undefined {
  const d = view.decision;
  const missing = (view.missing ?? []).map((m) => `• ${escapeText(m)}`);
  if (d.outcome === 'deny') {
    const lines = [...reasonLines(d), ...(missing.length > 0 ? ['Also missing:', ...missing] : [])];
    return listSection('Would be denied by policy', lines, '_no reason given_');
  }
  if (d.outcome === 'allow') {
    const why = d.breakGlass ? 'break-glass skips what the rules ask for' : 'no policy rule asks for one';
    if (missing.length === 0) return section(`:white_check_mark: *Would run without approval*: ${why}.`);
    return listSection(`Would run without approval (${why}) once it has`, missing);
  }
  const lines = d.requirements.map(
    (r) =>
      `• \`${escapeText(r.rule)}\`: ${plural(r.approvals, 'approval')} from ${either(r.from.map((g) => `*${escapeText(g)}*`))}`,
  );
  return listSection('Would need approval', [...missing, ...lines]);
}

const EXPLAINED = {
  allow: 'would run without approval',
  'needs-approval': 'would need approval',
  deny: 'would be denied',
} as const;

/** The plan and policy decision for a command, without creating an operation. */
export function renderExplain(view: ExplainView, ctx: RenderContext): SlackMessage {
  const target = formatTarget(view.target);
  const blocks = compact([
    header(`Explain: ${view.intent.kind} ${target}`),
    fields([
      ['Operation', intentLine(view.intent, view.target)],
      ['Environment', shown(view.environment ?? view.decision.environment)],
    ]),
    view.intent.reason ? section(`*Reason:* ${userText(view.intent.reason, 1500)}`) : undefined,
    section(`*${planTitle(view.plan)}*\n${planLines(view.plan).join('\n')}`),
    listSection('Checks', checkLines(view.decision.checks), '_no checks apply_'),
    explainDecision(view),
    view.schedule && view.decision.outcome !== 'deny'
      ? section(`:calendar: *Scheduled*: once allowed it would wait, then ${runsLine(view.schedule, ctx.now)}.`)
      : undefined,
    view.decision.breakGlass
      ? section(
          `*BREAK-GLASS* (approvers review it after it ends):\n${skippedUseLines(view.decision.breakGlass).join('\n')}`,
        )
      : undefined,
    context('Nothing was recorded: run the same command without `explain` to request it.'),
  ]);
  return enforceLimits({
    text: escapeText(
      `explain ${view.intent.kind} ${target}: ${EXPLAINED[view.decision.outcome]}${view.missing?.length ? ' (and a --reason)' : ''}`,
    ),
    blocks,
  });
}

export function renderLocks(view: LocksView, ctx: RenderContext): SlackMessage {
  const leases = view.leases.map(
    (l) =>
      `• \`${escapeText(l.target)}\` held by \`${escapeText(l.opId)}\` for ${ageOf(l.since, ctx.now)} (since ${slackDate(l.since)})`,
  );
  const freezes = view.freezes.map(
    (f) =>
      `• \`${escapeText(f.target)}\` :lock: frozen by ${who(f.by)} ${ageOf(f.at, ctx.now)} ago${f.until === undefined ? '' : ` until ${slackDate(f.until)}`}: ${userText(f.reason, 300)}`,
  );
  const audit = view.audit.map((a) => {
    const reason = a.reason ? `: ${userText(a.reason, 300)}` : '';
    return `• ${slackDate(a.at)} ${who(a.by)} ${escapeText(a.what)} \`${escapeText(a.target)}\`${reason}`;
  });
  const blocks = compact([
    header('Locks and freezes'),
    listSection('Execution leases', leases, '_none: no operation is running_'),
    listSection('Freezes', freezes, '_none_'),
    listSection('Audit', audit, '_nothing recorded yet_'),
  ]);
  const text = `${plural(view.leases.length, 'lease')}, ${plural(view.freezes.length, 'freeze')}`;
  return enforceLimits({ text, blocks });
}

/** Help from the parser's own schema, one section per paragraph. */
export function renderHelp(verb: string | undefined, ctx: RenderContext): SlackMessage {
  const help = escapeText(helpText(verb, ctx.command));
  const paragraphs = help.split(/\n{2,}/).filter((p) => p.trim() !== '');
  const blocks = paragraphs.map((p) => section(p));
  const first = (paragraphs[0] ?? '').split('\n')[0] ?? '';
  return enforceLimits({ text: first.replaceAll('*', ''), blocks });
}
