// The card's buttons (docs/policy.md#approvals): ack first, then approve / reject / cancel; the clicker is answered
// privately.
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { Click } from '../app/approvals.js';
import { describeFault } from '../app/context.js';
import type { ActionOutcome } from '../app/ports/index.js';
import { OP_ID_PATTERN } from '../domain/kit/language/intent-base.js';
import { forOperation } from '../log.js';
import {
  ACTION_IDS,
  digestPrefixFromBlockId,
  LIST_ACTION_IDS,
  readListValue,
  renderNotice,
  renderRefusal,
  type RenderContext,
  type SlackMessage,
} from './blocks/index.js';
import { renderAnswer, type HandlerDeps } from './command-handler.js';
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
  registerListPages(app, deps);
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
      const where = {
        ...(body.channel?.id ? { channel: body.channel.id } : {}),
        ...(body.response_url ? { responseUrl: body.response_url } : {}),
      };
      const message = await handleClick(deps, ACTIONS[name], click, name, where);
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

/**
 * `list`'s Previous and Next (docs/commands.md#paging-through-list): the page the button names, privately; it takes the
 * place of the private page clicked, while a public list stays as it is and the page comes as a new private message.
 * A refusal (the page no longer exists, say) is a new private message too, so the page clicked stays.
 */
function registerListPages(app: App, deps: HandlerDeps): void {
  for (const actionId of Object.values(LIST_ACTION_IDS)) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, action, body }) => {
      // block_actions take nothing in the ack (docs/lifecycle.md#what-slack-allows).
      await ack();
      const ctx: RenderContext = { now: deps.now(), command: deps.command };
      const { message, page } = await listPage(deps, action.value ?? '', body.user.id, ctx);
      if (body.response_url === undefined) return;
      const inPlace = page && body.container.is_ephemeral === true;
      await deps.responder
        .respond(body.response_url, { ...message, response_type: 'ephemeral', replace_original: inPlace })
        .catch((error: unknown) =>
          deps.logger.error({ err: error }, 'could not answer a list page click through its response_url'),
        );
    });
  }
}

/** The page a button's value names, rendered; never throws. `page`: false when it is a refusal instead. */
async function listPage(
  deps: HandlerDeps,
  value: string,
  user: string,
  ctx: RenderContext,
): Promise<{ message: SlackMessage; page: boolean }> {
  const read = readListValue(value);
  if (!read.ok) return { message: renderRefusal(read.message, ctx), page: false };
  const { ok: _ok, ...position } = read;
  try {
    const answer = await deps.queries.answer({ kind: 'list', ...position, public: false }, user);
    return { message: renderAnswer(answer, ctx), page: answer.kind === 'list' };
  } catch (error) {
    deps.logger.error({ err: error, user }, 'list page button failed');
    return { message: renderRefusal(`nothing was listed: ${describeFault(error)}`, ctx), page: false };
  }
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
