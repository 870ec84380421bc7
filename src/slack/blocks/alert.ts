// Job alerts (docs/alerts.md#the-alert-message): one message per job and incident, edited in place as it develops, with
// the buttons that file normal requests; and the digest that stands in for many at once.
import { formatTarget, type Target } from '../../domain/model/target.js';
import { enforceLimits } from './limits.js';
import type { RenderContext, SlackMessage } from './message.js';
import {
  button,
  context,
  escapeOutside,
  escapeText,
  fields,
  fitLines,
  header,
  oneLine,
  plural,
  relative,
  section,
  slackDate,
  utcTime,
  type Block,
} from './text.js';

/** What an alert shows: the incident as the alert store keeps it (app/ports/alerts.ts), read-only. */
export interface AlertView {
  id: string;
  /** The installation's name of the target's cluster; '' with a single cluster. */
  cluster: string;
  target: Target;
  rule: string;
  mention?: string;
  openedAt: number;
  updatedAt: number;
  signals: readonly { kind: string; since: number; summary: string; source: string }[];
  seen: readonly string[];
  recoveredAt?: number;
  version: number;
}

export const ALERT_ACTION_IDS = {
  status: 'flink_alert_status',
  restart: 'flink_alert_restart',
  savepoint: 'flink_alert_savepoint',
  suspend: 'flink_alert_suspend',
} as const;
export type AlertAction = keyof typeof ALERT_ACTION_IDS;

const LABEL: Record<AlertAction, string> = {
  status: 'Status',
  restart: 'Restart',
  savepoint: 'Savepoint',
  suspend: 'Suspend',
};
const STYLE: Record<AlertAction, 'primary' | 'danger' | undefined> = {
  status: undefined,
  restart: 'primary',
  savepoint: undefined,
  suspend: 'danger',
};

const KIND_WORDS: Record<string, string> = {
  'job-failed': 'job failed',
  restarting: 'restarting',
  'checkpoints-failing': 'checkpoints failing',
  'jobmanager-error': 'JobManager in error',
};
const SUMMARY_CHARS = 300;
const MENTION = /^(<!subteam\^[A-Z0-9]+(\|[^<>]*)?>|<@[UW][A-Z0-9]+>)$/;
/** The digest lists this many incidents; the rest are counted. */
const DIGEST_LINES = 40;

/** How a person writes the alert's target, with its cluster whenever the installation names one. */
export function alertTarget(alert: Pick<AlertView, 'cluster' | 'target'>): string {
  const cluster = alert.target.cluster ?? (alert.cluster === '' ? undefined : alert.cluster);
  return formatTarget({ ...alert.target, ...(cluster === undefined ? {} : { cluster }) });
}

/** A button's value: the incident and the target as typed (`cluster/ns/name`), read back by alert-actions.ts. */
export function alertButtonValue(alert: Pick<AlertView, 'id' | 'cluster' | 'target'>): string {
  return JSON.stringify({ incident: alert.id, target: alertTarget(alert) });
}

export function kindWords(kind: string): string {
  return KIND_WORDS[kind] ?? kind;
}

/** The policy's mention as Slack encodes it (`<!subteam^S…>`, `<@U…>`); anything else is shown, never pinging. */
function mentionText(mention: string | undefined): string | undefined {
  if (mention === undefined || mention.trim() === '') return undefined;
  return MENTION.test(mention.trim()) ? mention.trim() : escapeText(mention);
}

function signalLines(alert: AlertView): string[] {
  return alert.signals.map(
    (s) =>
      `• *${escapeText(kindWords(s.kind))}*: ${escapeOutside(fitLines(oneLine(s.summary), SUMMARY_CHARS))} ` +
      `_(source: ${escapeText(s.source)}, since ${slackDate(s.since)})_`,
  );
}

function nowSection(alert: AlertView, mention: string | undefined): Block {
  const lead = mention === undefined ? '' : `${mention} `;
  if (alert.recoveredAt !== undefined)
    return section(`${lead}:white_check_mark: *Recovered at ${slackDate(alert.recoveredAt)}*: nothing is wrong now`);
  const lines = signalLines(alert);
  return section(`${lead}*What is wrong now*\n${lines.length > 0 ? lines.join('\n') : '_nothing reported_'}`);
}

function actionsBlock(alert: AlertView): Block {
  const value = alertButtonValue(alert);
  // In the order ALERT_ACTION_IDS lists them: Status, Restart, Savepoint, Suspend.
  const order = Object.keys(ALERT_ACTION_IDS) as AlertAction[];
  return {
    type: 'actions',
    block_id: `alert:${alert.id}`,
    elements: order.map((a) => button(LABEL[a], ALERT_ACTION_IDS[a], value, STYLE[a])),
  };
}

function fallbackText(alert: AlertView, target: string, mention: string | undefined): string {
  const lead = mention === undefined ? '' : `${mention} `;
  if (alert.recoveredAt !== undefined)
    return `${lead}${alert.id}: ${escapeText(target)} recovered at ${utcTime(alert.recoveredAt)}`;
  const what = alert.signals.map((s) => `${kindWords(s.kind)} (${oneLine(s.summary)})`).join('; ');
  return `${lead}${alert.id}: job alert for ${escapeText(target)}: ${escapeOutside(what || 'nothing reported')}`;
}

/**
 * The alert: the job, what is wrong now (each signal's summary and source), since when, what was seen during the
 * incident, the policy entry; the four buttons while it is open, none once recovered.
 */
export function renderAlert(alert: AlertView, ctx: RenderContext): SlackMessage {
  const target = alertTarget(alert);
  const recovered = alert.recoveredAt !== undefined;
  // The mention pages while it is open; the recovered edit pages nobody.
  const mention = recovered ? undefined : mentionText(alert.mention);
  const seen = alert.seen.map((k) => escapeText(kindWords(k))).join(', ');
  const blocks: Block[] = [
    header(`${recovered ? 'Recovered' : 'Job alert'}: ${target}`),
    nowSection(alert, mention),
    fields([
      ['Since', `${slackDate(alert.openedAt)} (${relative(alert.openedAt, ctx.now)})`],
      ['Seen during the incident', seen === '' ? '_nothing yet_' : seen],
      ['Policy entry', `\`${escapeText(alert.rule)}\``],
      ['Target', `\`${escapeText(target)}\``],
    ]),
    context(`\`${alert.id}\` · version ${alert.version} · updated ${slackDate(alert.updatedAt)}`),
  ];
  if (!recovered) blocks.push(actionsBlock(alert));
  return enforceLimits({ text: fallbackText(alert, target, mention), blocks });
}

function digestLine(alert: AlertView): string {
  const target = `\`${escapeText(alertTarget(alert))}\``;
  if (alert.recoveredAt !== undefined) return `• ${target}: recovered at ${slackDate(alert.recoveredAt)}`;
  const kinds = alert.signals.map((s) => escapeText(kindWords(s.kind))).join(', ');
  const summary = alert.signals.map((s) => escapeOutside(oneLine(s.summary))).join('; ');
  return `• ${target} (${kinds || 'nothing reported'}): ${fitLines(summary, SUMMARY_CHARS)} · \`${alert.id}\``;
}

/**
 * The digest a channel gets instead of one message each when too many incidents await their first post at once:
 * every incident it stands for (target, kinds, summary), edited as they change.
 */
export function renderAlertDigest(
  alerts: readonly AlertView[],
  ctx: RenderContext & { digestId: string },
): SlackMessage {
  const open = alerts.filter((a) => a.recoveredAt === undefined);
  const shown = [...open, ...alerts.filter((a) => a.recoveredAt !== undefined)].slice(0, DIGEST_LINES);
  const lines = shown.map(digestLine);
  if (alerts.length > shown.length) lines.push(`_…and ${alerts.length - shown.length} more_`);
  const title =
    open.length > 0 ? `Job alerts: ${plural(open.length, 'job')} need attention` : 'Job alerts: none open any more';
  const mentions = [...new Set(open.map((a) => mentionText(a.mention)).filter((m) => m?.startsWith('<') === true))];
  const lead = mentions.length > 0 ? `${mentions.join(' ')} ` : '';
  const blocks: Block[] = [
    header(title),
    section(
      open.length > 0
        ? `${lead}Too many incidents at once for one message each; they are listed here and this message is kept up to date. ` +
            `\`${ctx.command} status <target>\` answers for one of them.`
        : `Every incident this digest listed has recovered or moved on.`,
    ),
    ...(lines.length > 0 ? [section(lines.join('\n'))] : []),
    context(`\`${ctx.digestId}\` · updated ${slackDate(ctx.now)}`),
  ];
  const targets = open.map((a) => escapeText(alertTarget(a))).join(', ');
  const text = `${lead}${ctx.digestId}: ${open.length > 0 ? `${plural(open.length, 'job alert')}: ${targets}` : 'no job alert open any more'}`;
  return enforceLimits({ text, blocks });
}
