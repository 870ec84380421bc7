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

type Act = (deps: HandlerDeps, click: Click) => Promise<ActionOutcome>;

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
        digestPrefix: digestPrefixFromBlockId(action.block_id),
      };
      const asker = {
        userId: body.user.id,
        teamId: body.user.team_id,
        enterpriseId: body.enterprise?.id,
        ownTeam: true,
      };
      const outsider = await deps.guard?.refusal(asker);
      const message = outsider ?? (await handleClick(deps, ACTIONS[name], click, name));
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

/** What to tell the clicker; never throws. */
async function handleClick(deps: HandlerDeps, act: Act, click: Click, name: string): Promise<string> {
  if (!OP_ID_PATTERN.test(click.opId)) return 'this button does not name an operation; nothing was changed';
  const log = forOperation(deps.logger, click.opId);
  try {
    const outcome = await act(deps, click);
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
