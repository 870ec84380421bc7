// The App Home tab (docs/lifecycle.md#app-home): approvals waiting for the viewer with the card's own buttons, their
// operations, leases and freezes, the latest operations, and a Refresh button; within Block Kit's limits for views.
import { formatTarget } from '../../domain/model/target.js';
import type { HomeOperation, HomeView } from '../../app/views.js';
import { ACTION_IDS, approvalBlockId } from './card.js';
import { REVIEW_ACTION_ID } from './break-glass.js';
import { enforceLimits } from './limits.js';
import { runsLine } from './schedule.js';
import type { RenderContext } from './message.js';
import {
  ageOf,
  button,
  channelRef,
  context,
  escapeText,
  header,
  listSection,
  plural,
  relative,
  section,
  slackDate,
  userText,
  who,
  type Block,
} from './text.js';

/** The Refresh button: publishes the viewer's Home again. */
export const HOME_REFRESH_ACTION = 'flink_ops_home_refresh';
const REFRESH_BLOCK = 'home_refresh';
/** Views have no message character total; this only keeps a huge Home readable (the view limit is 250 kB). */
const HOME_BUDGET = 40_000;

export interface HomeSurface {
  type: 'home';
  blocks: Block[];
}

function opLine(op: HomeOperation, now: number): string {
  const runs = op.schedule === undefined ? '' : ` · ${runsLine(op.schedule, now)}`;
  const where = `${runs}${op.card === undefined ? '' : ` in ${channelRef(op.card.channel)}`}`;
  return `• ${op.breakGlass ? '*BREAK-GLASS* · ' : ''}\`${op.id}\` · ${escapeText(op.kind)} \`${escapeText(formatTarget(op.target))}\` · *${op.state}* · ${who(op.requester)} · ${slackDate(op.createdAt)}${where}`;
}

function approvalBlocks(op: HomeOperation, ctx: RenderContext, seen: Set<string>): Block[] {
  const expires = op.expiresAt === undefined ? '' : ` · approval window closes ${relative(op.expiresAt, ctx.now)}`;
  const where = op.card === undefined ? '' : ` · card in ${channelRef(op.card.channel)}`;
  const text = `\`${op.id}\` ${escapeText(op.kind)} \`${escapeText(formatTarget(op.target))}\`, requested by ${who(op.requester)} ${ageOf(op.createdAt, ctx.now)} ago${expires}${where}`;
  const blockId = op.planDigest === undefined ? undefined : approvalBlockId(op.planDigest);
  if (blockId === undefined || seen.has(blockId)) return [section(`${text}\n_open the card to decide_`)];
  seen.add(blockId);
  const elements = [
    button('Approve', ACTION_IDS.approve, op.id, 'primary'),
    button('Reject', ACTION_IDS.reject, op.id, 'danger'),
  ];
  return [section(text), { type: 'actions', block_id: blockId, elements }];
}

function approvalsPart(view: HomeView, ctx: RenderContext, max: number): Block[] {
  if (view.approvals.length === 0) return [section('*Waiting for your approval*\n_nothing waits for you_')];
  const blocks: Block[] = [section(`*Waiting for your approval* (${view.approvals.length})`)];
  const seen = new Set<string>();
  for (const op of view.approvals.slice(0, max)) blocks.push(...approvalBlocks(op, ctx, seen));
  if (view.approvals.length > max)
    blocks.push(context(`…and ${view.approvals.length - max} more: \`${escapeText(ctx.command)} ops\` lists them`));
  return blocks;
}

/** Break-glass reviews due for the viewer, each with the card's Reviewed button (one actions block per operation). */
function reviewsPart(view: HomeView, max: number): Block[] {
  const reviews = view.reviews ?? [];
  if (reviews.length === 0) return [section('*Break-glass reviews due*\n_none_')];
  const blocks: Block[] = [section(`*Break-glass reviews due* (${reviews.length})`)];
  for (const op of reviews.slice(0, max)) {
    const where = op.card === undefined ? '' : ` · card in ${channelRef(op.card.channel)}`;
    blocks.push(
      section(
        `:rotating_light: \`${op.id}\` ${escapeText(op.kind)} \`${escapeText(formatTarget(op.target))}\` by ${who(op.requester)} · *${op.state}*${where}`,
      ),
    );
    blocks.push({
      type: 'actions',
      block_id: `review:${op.id}`,
      elements: [button('Reviewed', REVIEW_ACTION_ID, op.id, 'primary')],
    });
  }
  if (reviews.length > max) blocks.push(context(`…and ${reviews.length - max} more: open their cards`));
  return blocks;
}

function locksPart(view: HomeView, ctx: RenderContext): (Block | undefined)[] {
  const leases = view.leases.map(
    (l) => `• \`${escapeText(l.target)}\` held by \`${escapeText(l.opId)}\` for ${ageOf(l.since, ctx.now)}`,
  );
  const freezes = view.freezes.map(
    (f) =>
      `• \`${escapeText(f.target)}\` :lock: frozen by ${who(f.by)} ${ageOf(f.at, ctx.now)} ago${f.until === undefined ? '' : ` until ${slackDate(f.until)}`}: ${userText(f.reason, 200)}`,
  );
  return [
    listSection('Execution leases', leases, '_none: no operation is running_'),
    listSection('Freezes', freezes, '_none_'),
  ];
}

/**
 * The Home view for `view.user`; `maxApprovals` bounds the approvals with buttons (each takes two blocks, and the
 * limits guard folds at 50 blocks, well inside Home's 100).
 */
export function renderHome(view: HomeView, ctx: RenderContext, maxApprovals = 15): HomeSurface {
  const refresh: Block = {
    type: 'actions',
    block_id: REFRESH_BLOCK,
    elements: [button('Refresh', HOME_REFRESH_ACTION, 'refresh')],
  };
  const blocks = [
    header('Flink ChatOps'),
    context(
      `For ${who(view.user)} · updated ${slackDate(ctx.now)} · \`${escapeText(ctx.command)} help\` lists every command`,
    ),
    refresh,
    ...view.problems.map((p) => section(`:warning: ${escapeText(p)}`)),
    ...approvalsPart(view, ctx, maxApprovals),
    ...reviewsPart(view, 5),
    listSection(
      'Your operations in flight and scheduled',
      view.mine.map((op) => opLine(op, ctx.now)),
      '_none_',
    ),
    ...locksPart(view, ctx),
    listSection(
      `Latest operations (${plural(view.latest.length, 'operation')})`,
      view.latest.map((op) => opLine(op, ctx.now)),
      '_none yet_',
    ),
  ].filter((b): b is Block => b !== undefined);
  const fitted = enforceLimits({ text: 'Flink ChatOps', blocks }, HOME_BUDGET);
  return { type: 'home', blocks: fitted.blocks };
}
