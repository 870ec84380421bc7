// The job alert's buttons (docs/alerts.md#the-buttons): ack first; Restart, Savepoint and Suspend file a normal request
// as the clicker, exactly as if they had typed `/flink <verb> <cluster/ns/name>` (policy, approvals, freezes and
// break-glass apply; nothing runs without policy); Status answers like `/flink status`. Answers are private.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { describeFault } from '../app/context.js';
import { formatTarget, parseTarget } from '../domain/model/target.js';
import { ALERT_ACTION_IDS, renderNotice, renderRefusal, type AlertAction, type SlackMessage } from './blocks/index.js';
import { readTyped, renderAnswer, type HandlerDeps } from './command-handler.js';

const INCIDENT_ID = /^inc-[a-z0-9]{6,16}$/;

export interface AlertClick {
  action: AlertAction;
  /** The button's value as Slack sent it back. */
  value: string;
  user: string;
  /** The clicker's workspace and Enterprise Grid org (the request's `team`: docs/audit.md#the-events). */
  team?: string;
  enterprise?: string;
  /** Where the alert is: the request's card goes there. */
  channel: string | undefined;
  /** The click's response_url: the request keeps it, as a typed command's, to tell the requester later. */
  responseUrl?: string;
}

/** The incident and the typed target of a button value, or why it cannot be used. */
export function readAlertValue(
  value: string,
): { ok: true; incident: string; target: string } | { ok: false; message: string } {
  const bad = { ok: false as const, message: 'this button does not name a job alert; nothing was changed' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return bad;
  }
  const { incident, target } = (parsed ?? {}) as { incident?: unknown; target?: unknown };
  if (typeof incident !== 'string' || !INCIDENT_ID.test(incident) || typeof target !== 'string') return bad;
  const checked = parseTarget(target);
  if (!checked.ok) return { ok: false, message: `${incident}: ${checked.message}; nothing was changed` };
  return { ok: true, incident, target: formatTarget(checked.value) };
}

/** What the clicker is told: the request's outcome (or the status answer), privately; never throws. */
export async function handleAlertClick(deps: HandlerDeps, click: AlertClick): Promise<SlackMessage> {
  const ctx = { now: deps.now(), command: deps.command };
  const read = readAlertValue(click.value);
  if (!read.ok) return renderRefusal(read.message, ctx);
  const log = deps.logger.child({ incident: read.incident, action: click.action, user: click.user });
  if (click.channel === undefined)
    return renderRefusal(`${read.incident}: this button works on the alert in its channel only`, ctx);
  try {
    // The same text, parser and placement as a typed command, so nothing differs from typing it; the alert is the
    // request's reason (production namespaces may require one: docs/alerts.md#the-buttons).
    const reason = click.action === 'status' ? '' : ` --reason "job alert ${read.incident}"`;
    const parsed = await readTyped(deps, `${click.action} ${read.target}${reason}`, click.channel);
    if (parsed.type === 'query') return renderAnswer(await deps.queries.answer(parsed.query, click.user), ctx);
    if (parsed.type !== 'intent')
      return renderRefusal(parsed.type === 'reply' ? parsed.message : 'that button cannot be used here', ctx);
    const outcome = await deps.operations.request({
      intent: parsed.intent,
      requester: click.user,
      ...(click.team === undefined ? {} : { team: click.team }),
      ...(click.enterprise === undefined ? {} : { enterprise: click.enterprise }),
      channel: click.channel,
      ...(click.responseUrl === undefined ? {} : { responseUrl: click.responseUrl }),
    });
    log.info({ outcome: outcome.type }, 'alert button handled');
    if (outcome.type === 'refused') return renderRefusal(outcome.message, ctx);
    if (outcome.type === 'cancelled') return renderNotice(outcome.message);
    const { record } = outcome;
    return renderNotice(
      `${record.id}: \`${click.action} ${read.target}\` requested from alert ${read.incident} — State: ${record.state}. ` +
        `Its card is in <#${click.channel}>.`,
    );
  } catch (error) {
    log.error({ err: error }, 'alert button failed');
    return renderRefusal(`${read.incident}: nothing was changed: ${describeFault(error)}`, ctx);
  }
}

export function registerAlertActions(app: App, deps: HandlerDeps): void {
  for (const [action, actionId] of Object.entries(ALERT_ACTION_IDS) as [AlertAction, string][]) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, action: button, body }) => {
      // block_actions take nothing in the ack (docs/lifecycle.md#what-slack-allows); answers go to the response_url.
      await ack();
      const message = await handleAlertClick(deps, {
        action,
        value: button.value ?? '',
        user: body.user.id,
        ...(body.user.team_id ? { team: body.user.team_id } : {}),
        ...(body.enterprise?.id ? { enterprise: body.enterprise.id } : {}),
        channel: body.channel?.id,
        ...(body.response_url === undefined ? {} : { responseUrl: body.response_url }),
      });
      if (body.response_url === undefined) return;
      await deps.responder
        .respond(body.response_url, { ...message, response_type: 'ephemeral', replace_original: false })
        .catch((error: unknown) =>
          deps.logger.error({ err: error }, 'could not answer an alert click through its response_url'),
        );
    });
  }
}
