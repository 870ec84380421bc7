// The card's buttons (docs/policy.md#approvals): ack first, then approve / reject / cancel; the clicker is answered
// privately.
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { Click } from '../app/approvals.js';
import { describeFault } from '../app/context.js';
import type { ActionOutcome } from '../app/ports/index.js';
import { OP_ID_PATTERN } from '../domain/kit/language/intent-base.js';
import { forOperation } from '../log.js';
import { ACTION_IDS, digestPrefixFromBlockId, renderNotice } from './blocks/index.js';
import type { HandlerDeps } from './command-handler.js';
import { publishHome } from './home-handler.js';
import { undoFromButton, type ClickPlace } from './undo-button.js';

type Act = (deps: HandlerDeps, click: Click, where: ClickPlace) => Promise<ActionOutcome>;

const ACTIONS: Record<keyof typeof ACTION_IDS, Act> = {
  approve: (deps, click) => deps.approvals.approve(click),
  reject: (deps, click) => deps.approvals.reject(click),
  cancel: (deps, click) => deps.operations.cancel(click.opId, click.user),
  review: (deps, click) =>
    deps.breakGlass
      ? deps.breakGlass.review(click.opId, click.user)
      : Promise.resolve({
          type: 'refused',
          message: `${click.opId}: break-glass reviews are not set up in this bot; nothing changed`,
        }),
  // Files `undo <op id>` as the clicker (docs/lifecycle.md#after-completed).
  undo: (deps, click, where) => undoFromButton(deps, click, where),
};

export function registerActionHandlers(app: App, deps: HandlerDeps): void {
  for (const [name, actionId] of Object.entries(ACTION_IDS) as [keyof typeof ACTION_IDS, string][]) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, action, body, client }) => {
      // block_actions take nothing in the ack (docs/lifecycle.md#what-slack-allows); the answer goes through the
      // response_url.
      await ack();
      const click: Click = {
        opId: action.value ?? '',
        user: body.user.id,
        ...(body.user.team_id ? { team: body.user.team_id } : {}),
        ...(body.enterprise?.id ? { enterprise: body.enterprise.id } : {}),
        digestPrefix: digestPrefixFromBlockId(action.block_id),
      };
      const outsider = await clickRefusal(deps, body);
      const where = {
        ...(body.channel?.id ? { channel: body.channel.id } : {}),
        ...(body.response_url ? { responseUrl: body.response_url } : {}),
      };
      const message = outsider ?? (await handleClick(deps, ACTIONS[name], click, name, where));
      if (body.view?.type === 'home') return answerFromHome(deps, client, click, message);
      if (body.response_url === undefined) return;
      await deps.responder
        .respond(body.response_url, { ...renderNotice(message), response_type: 'ephemeral', replace_original: false })
        .catch((error: unknown) =>
          forOperation(deps.logger, click.opId).error(
            { err: error },
            'could not answer a click through its response_url',
          ),
        );
    });
  }
}

/** Why a click from outside the allowed workspaces is refused (docs/configuration.md#who-may-use-the-bot). */
export function clickRefusal(deps: Pick<HandlerDeps, 'guard'>, body: BlockAction): Promise<string | undefined> {
  const asker = { userId: body.user.id, teamId: body.user.team_id, enterpriseId: body.enterprise?.id, ownTeam: true };
  return deps.guard?.refusal(asker) ?? Promise.resolve(undefined);
}

/** What to tell the clicker; never throws. */
async function handleClick(
  deps: HandlerDeps,
  act: Act,
  click: Click,
  name: string,
  where: ClickPlace,
): Promise<string> {
  if (!OP_ID_PATTERN.test(click.opId)) return 'this button does not name an operation; nothing was changed';
  const log = forOperation(deps.logger, click.opId);
  try {
    const outcome = await act(deps, click, where);
    log.info({ action: name, user: click.user, outcome: outcome.type }, 'button handled');
    return outcome.message;
  } catch (error) {
    log.error({ err: error, action: name, user: click.user }, 'button failed');
    return `${click.opId}: nothing was changed: ${describeFault(error)}`;
  }
}

/**
 * A click on App Home has no response_url (docs/lifecycle.md#app-home): the answer goes to the clicker's DM with the
 * app, and their Home is published again so it shows what the click changed.
 */
async function answerFromHome(
  deps: HandlerDeps,
  client: webApi.WebClient,
  click: Click,
  message: string,
): Promise<void> {
  const notice = renderNotice(message);
  await client.chat
    .postMessage({ channel: click.user, text: notice.text, blocks: notice.blocks as unknown as webApi.KnownBlock[] })
    .catch((error: unknown) =>
      forOperation(deps.logger, click.opId).error({ err: error }, 'could not answer a Home click by DM'),
    );
  await publishHome(deps, client, click.user);
}
