// The Undo button of a change that regressed (docs/lifecycle.md#after-completed): a click files `undo <op id>` as
// the person who clicked, through the path a typed `/flink undo <op id>` takes (parse, place, request), so policy,
// approvals and break-glass rules apply as they would; the clicker hears the new operation's id, or the refusal.
import type { Click } from '../app/approvals.js';
import type { ActionOutcome } from '../app/ports/index.js';
import { readTyped, type HandlerDeps } from './command-handler.js';

/** The reason an undo filed by the button carries (production may require one: docs/policy.md#approvals). */
export const UNDO_BUTTON_REASON = 'the change regressed after COMPLETED (Undo button)';

export interface ClickPlace {
  /** The channel of the clicked message: the undo's card goes there. */
  channel?: string;
  responseUrl?: string;
}

export async function undoFromButton(deps: HandlerDeps, click: Click, where: ClickPlace): Promise<ActionOutcome> {
  const typed = `undo ${click.opId} --reason "${UNDO_BUTTON_REASON}"`;
  if (where.channel === undefined)
    return refused(`${click.opId}: nothing was filed; type \`${deps.command} ${typed}\` in the operation's channel`);
  const parsed = await readTyped(deps, typed, where.channel);
  if (parsed.type === 'reply') return refused(parsed.message);
  if (parsed.type !== 'intent') return refused(`${click.opId}: the undo could not be filed; nothing was changed`);
  const outcome = await deps.operations.request({
    intent: parsed.intent,
    requester: click.user,
    ...(click.team === undefined ? {} : { team: click.team }),
    ...(click.enterprise === undefined ? {} : { enterprise: click.enterprise }),
    channel: where.channel,
    ...(where.responseUrl === undefined ? {} : { responseUrl: where.responseUrl }),
  });
  if (outcome.type !== 'recorded') return refused(outcome.message);
  const { record } = outcome;
  return {
    type: 'done',
    record,
    message: `${record.id}: undo of ${click.opId} filed as you; it is ${record.state} (its card is in the channel)`,
  };
}

const refused = (message: string): ActionOutcome => ({ type: 'refused', message });
