// The answer to `/flink logs` (docs/commands.md#flink-logs): the pod and container named, how many lines, and the
// (already masked) lines as code-block snippets — the newest kept when Slack's limits (limits.ts) leave no room for all.
import { formatTarget } from '../../domain/model/target.js';
import type { LogsView } from '../../app/views.js';
import { enforceLimits, SLACK_LIMITS, TOTAL_BUDGET } from './limits.js';
import type { RenderContext, SlackMessage } from './message.js';
import { context, escapeOutside, escapeText, header, plural, section, type Block } from './text.js';

/** Characters of code the whole answer may hold: the budget less room for the header, the context and the fences. */
export const LOG_CODE_BUDGET = TOTAL_BUDGET - 1_500;
/** A code block per section, under Slack's section limit with its fences. */
const CHUNK = SLACK_LIMITS.sectionText - 20;

/** A log line safe inside a code block: Slack's three entities escaped, no fence of its own (cut and masked before). */
function codeLine(line: string): string {
  return escapeOutside(line.replaceAll('```', "'''"));
}

/** The newest lines whose code fits `budget`, oldest first. */
function newestFitting(lines: readonly string[], budget: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (used + line.length + 1 > budget) break;
    kept.unshift(line);
    used += line.length + 1;
  }
  return kept;
}

/** Lines grouped into code blocks of at most CHUNK characters each. */
function codeBlocks(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (current.length > 0 && size + line.length + 1 > CHUNK) {
      blocks.push(section(`\`\`\`\n${current.join('\n')}\n\`\`\``));
      current = [];
      size = 0;
    }
    current.push(line.length > CHUNK ? line.slice(0, CHUNK) : line);
    size += line.length + 1;
  }
  if (current.length > 0) blocks.push(section(`\`\`\`\n${current.join('\n')}\n\`\`\``));
  return blocks;
}

/** The read stopped at `limitBytes`: the lines asked for hold more, and the API server cut their newest part off. */
function cutNote(view: LogsView): string {
  const kb = Math.round((view.cutAtBytes ?? 0) / 1024);
  return `cut at ${kb} KB: the lines asked for hold more than that, so the newest of them are missing; ask for fewer with --lines`;
}

function roleWords(view: LogsView): string {
  return view.role.kind === 'jobmanager' ? 'JobManager' : `TaskManager ${view.role.n}`;
}

export function renderLogs(view: LogsView, _ctx: RenderContext): SlackMessage {
  const target = formatTarget(view.target);
  const lines = view.lines.map(codeLine);
  const shown = newestFitting(lines, LOG_CODE_BUDGET);
  const what = view.grep === undefined ? '' : ` containing ${JSON.stringify(view.grep)}`;
  const count =
    shown.length < lines.length
      ? `the last ${shown.length} of ${plural(lines.length, 'line')}${what} (cut to fit a Slack message; ask for fewer with \`--lines\`)`
      : `${plural(shown.length, 'line')}${what}`;
  const read = view.grep === undefined ? '' : `, searched in the last ${plural(view.read, 'line')}`;
  const masked = view.masked > 0 ? ` · ${plural(view.masked, 'line')} with masked values (•••)` : '';
  const blocks: Block[] = [
    header(`Logs of ${target} — ${roleWords(view)}`),
    context(
      `Pod \`${escapeText(view.pod)}\` · container \`${escapeText(view.container)}\` · ${escapeText(count)}${escapeText(read)}${masked}`,
    ),
  ];
  if (view.cutAtBytes !== undefined) blocks.push(context(escapeText(cutNote(view))));
  for (const note of view.notes) blocks.push(context(escapeText(note)));
  if (shown.length === 0)
    blocks.push(
      section(
        view.grep === undefined
          ? '_The log is empty._'
          : `_No line${escapeText(what)} in the last ${plural(view.read, 'line')} of the log._`,
      ),
    );
  blocks.push(...codeBlocks(shown));
  const text = `Logs of ${target} (${roleWords(view)}, pod ${view.pod}): ${plural(shown.length, 'line')}`;
  return enforceLimits({ text: escapeOutside(text), blocks });
}
