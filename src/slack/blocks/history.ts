// Answers to `savepoints` and `exceptions` (docs/commands.md#queries): snapshot history with restore commands, and what
// went wrong.
import { errorText } from '../../domain/model/resource.js';
import { formatTarget } from '../../domain/model/target.js';
import type { ExceptionsView, SavepointsView } from '../../app/views.js';
import { enforceLimits } from './limits.js';
import type { RenderContext, SlackMessage } from './message.js';
import {
  context,
  escapeOutside,
  escapeText,
  outsideClip,
  fields,
  header,
  oneLine,
  plural,
  section,
  slackDate,
  type Block,
} from './text.js';

/** One exception's first line, at most this long (Slack would cut a whole section at 3000). */
const HEADLINE_CHARS = 300;
const ERROR_CHARS = 1500;

function restoreLine(restore: string | undefined, ctx: RenderContext): string {
  return restore === undefined ? '' : `\nRestore: \`${escapeText(`${ctx.command} ${restore}`)}\``;
}

function snapshotBlock(s: SavepointsView['snapshots'][number], ctx: RenderContext): Block {
  const when =
    s.at === undefined ? 'time unknown' : `${slackDate(s.at)}${s.timeSource === 'created' ? ' (created)' : ''}`;
  const parts = [
    `*${escapeText(s.state)}* ${s.type}`,
    s.triggerType ? escapeText(s.triggerType.toLowerCase()) : undefined,
    when,
  ];
  if (s.failures > 0)
    parts.push(s.noAttemptLimit ? `retrying (${plural(s.failures, 'failure')})` : plural(s.failures, 'failure'));
  if (s.noAttemptLimit) parts.push('no backoffLimit: operator 1.16 retries it without end');
  const head = `• \`${escapeText(s.name)}\` — ${parts.filter((p) => p !== undefined).join(' · ')}`;
  const path = s.path === undefined ? '' : `\n\`${escapeText(s.path)}\``;
  const error =
    s.error === undefined || s.state === 'COMPLETED' ? '' : `\n:warning: ${outsideClip(errorText(s.error), 500)}`;
  return section(`${head}${path}${error}${restoreLine(s.restore, ctx)}`);
}

/** Rendered one block each; more are counted in "…and N more". */
const MAX_SNAPSHOT_BLOCKS = 40;

/**
 * The operator's recorded path first, then the snapshots newest first, each COMPLETED one with its restore command.
 * The note comes before the list, so a cut at the end takes the oldest snapshots.
 */
export function renderSavepoints(view: SavepointsView, ctx: RenderContext): SlackMessage {
  const target = formatTarget(view.target);
  const r = view.recorded;
  const listed = view.snapshots.slice(0, MAX_SNAPSHOT_BLOCKS);
  const shown =
    listed.length < view.total
      ? `Showing the newest ${listed.length} of ${view.total}; \`--limit <n>\` chooses how many. `
      : '';
  const blocks: Block[] = [
    header(`Savepoints of ${target}`),
    section(
      r === undefined
        ? '*Last recorded by the operator:* _none_ (`jobStatus.upgradeSavepointPath` is not set)'
        : `*Last recorded by the operator* (\`jobStatus.upgradeSavepointPath\`):\n\`${escapeText(r.path)}\`${restoreLine(r.restore, ctx)}`,
    ),
    context(
      `${shown}Newest first by result time (else creation time). \`${escapeText(ctx.command)} restore\` asks for approval like any operation.`,
    ),
  ];
  if (view.problem !== undefined) blocks.push(section(`:warning: ${escapeText(oneLine(view.problem))}`));
  if (view.snapshots.length === 0 && view.problem === undefined)
    blocks.push(section('_No FlinkStateSnapshots reference this target._'));
  for (const s of listed) blocks.push(snapshotBlock(s, ctx));
  if (view.snapshots.length > listed.length) blocks.push(context(`…and ${view.snapshots.length - listed.length} more`));
  const text = `Savepoints of ${target}: ${plural(view.total, 'snapshot')}${r ? `, last recorded ${r.path}` : ''}`;
  return enforceLimits({ text: escapeOutside(text), blocks });
}

const SOURCES_SAID =
  "_Flink_: the job's exception history (its current run, kept by the JobManager); _events_: the operator's JobException events (Kubernetes keeps them for about an hour).";
const NONE_ANYWHERE = "_No exceptions in Flink's exception history of the current run, nor in the events._";
const NONE_IN_EVENTS = '_No JobException warnings in the events (Kubernetes keeps events for about an hour)._';

/** Exceptions get this much of the message's character budget, shared between them. */
const EXCEPTIONS_BUDGET = 7000;
/** Rendered one block each; more are counted in "…and N more". */
const MAX_EXCEPTION_BLOCKS = 30;

/** Where each exception was found, as the list says it. */
const SOURCES: Record<ExceptionsView['exceptions'][number]['source'], string> = {
  events: 'events',
  flink: 'Flink',
  both: 'Flink, events',
};

function exceptionBlock(e: ExceptionsView['exceptions'][number], headlineChars: number): Block {
  const when = e.at === undefined ? 'time unknown' : slackDate(e.at);
  const task = e.task === undefined ? '_task unknown_' : `*${outsideClip(e.task, 150)}*`;
  const times = `${e.count > 1 ? ` · ×${e.count}` : ''} · _${SOURCES[e.source]}_`;
  const more = e.message.split('\n').length - 1;
  const trace = more > 0 ? `\n_stack trace: ${plural(more, 'more line')} not shown_` : '';
  return section(`• ${when} · ${task}${times}\n${outsideClip(e.headline, headlineChars)}${trace}`);
}

function restartLines(view: ExceptionsView): string {
  const lines = view.restarts.map(
    (r) =>
      `• ${r.at === undefined ? 'time unknown' : slackDate(r.at)} · ${escapeOutside(oneLine(r.message))}${r.count > 1 ? ` (×${r.count})` : ''}`,
  );
  if (lines.length === 0)
    return '_no job restarts or failures in the events (Kubernetes keeps them for about an hour)_';
  return lines.length > 10 ? [...lines.slice(0, 10), `…and ${lines.length - 10} more`].join('\n') : lines.join('\n');
}

/**
 * Exceptions newest first (time, task, first line), restarts, status.error; within Slack's limits, saying what was
 * cut. The notes come before the list, so a cut at the end takes the oldest exceptions, never the notes.
 */
export function renderExceptions(view: ExceptionsView, _ctx: RenderContext): SlackMessage {
  const target = formatTarget(view.target);
  const listed = view.exceptions.slice(0, MAX_EXCEPTION_BLOCKS);
  const headlineChars = Math.max(
    120,
    Math.min(HEADLINE_CHARS, Math.floor(EXCEPTIONS_BUDGET / Math.max(1, listed.length))),
  );
  const shown =
    listed.length < view.total
      ? `Showing the newest ${listed.length} of ${view.total}; \`--limit <n>\` chooses how many. `
      : '';
  const notes = view.notes.map((n) => escapeOutside(n)).join('. ');
  const blocks: Block[] = [
    header(`Exceptions of ${target}`),
    fields([
      ['Job state', view.jobState === undefined ? '_unknown_' : escapeText(view.jobState)],
      ['Task failovers', String(view.failovers)],
      ['Restarts / failures', String(view.restarts.reduce((n, r) => n + r.count, 0))],
    ]),
    context(
      `${shown}Newest first; each exception shows its first line only. ${SOURCES_SAID}${notes === '' ? '' : ` ${notes}.`}`,
    ),
  ];
  if (view.error !== undefined)
    blocks.push(section(`:warning: *Operator error* (\`status.error\`): ${outsideClip(view.error, ERROR_CHARS)}`));
  blocks.push(section(`*Restarts*\n${restartLines(view)}`));
  if (listed.length === 0) blocks.push(section(view.flinkHistory ? NONE_ANYWHERE : NONE_IN_EVENTS));
  for (const e of listed) blocks.push(exceptionBlock(e, headlineChars));
  const text = `Exceptions of ${target}: ${plural(view.total, 'exception')}, ${plural(view.failovers, 'task failover')}${view.error ? `; error: ${oneLine(view.error)}` : ''}`;
  return enforceLimits({ text: escapeOutside(text), blocks });
}
