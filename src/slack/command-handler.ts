// The slash command, after the edge acked it (no network call, no op id; edge-guard.ts): parse, answer queries, run
// commands or request.
import type { Limiter } from '../concurrency/limiter.js';
import type { QuietGate } from '../concurrency/quiet-gate.js';
import type { WorkspaceUser } from '../app/commands.js';
import type { App, SlashCommand } from '@slack/bolt';
import type { ApprovalService } from '../app/approvals.js';
import type { FreezeCommands } from '../app/commands.js';
import type { HomeService } from '../app/home.js';
import type { BreakGlassReviews } from '../app/break-glass.js';
import { placeParsed } from '../app/clusters.js';
import { describeFault } from '../app/context.js';
import type { OperationService } from '../app/operations.js';
import type { PolicyProvider } from '../app/policy-source.js';
import type { Responder } from '../app/ports/index.js';
import type { QueryAnswer, QueryService } from '../app/queries.js';
import { spelledVerb, verbNamed, verbSpec } from '../domain/engines/language/verbs.js';
import { parseCommand } from '../domain/engines/language/parse.js';
import type { ParseResult } from '../domain/engines/language/requests.js';
import type { Command } from '../domain/engines/language/requests.js';
import type { OperationIntent } from '../domain/kinds/index.js';
import { channelDefaultNamespace } from '../domain/engines/policy/evaluate.js';
import type { Logger } from '../log.js';
import type { WorkspaceGuard } from './workspace-guard.js';
import type { CommandCount } from '../store/command-rate.js';
import type { HomePublisher } from './home-publisher.js';
import {
  renderExceptions,
  renderExplain,
  renderHelp,
  renderList,
  renderLocks,
  renderLogs,
  renderNotice,
  renderOp,
  renderOps,
  renderRefusal,
  renderSavepoints,
  renderStatus,
  type RenderContext,
  type SlackMessage,
} from './blocks/index.js';

/** Per-person command counting (docs/configuration.md#rate-limit): at most `perMinute` in a clock minute; 0: none. */
export interface CommandRateLimit {
  perMinute: number;
  counts: { take(user: string, now: number): Promise<CommandCount> };
}

export interface HandlerDeps {
  operations: OperationService;
  approvals: ApprovalService;
  freezes: FreezeCommands;
  queries: QueryService;
  /** App Home (docs/lifecycle.md#app-home). */
  home: HomeService;
  /** The Reviewed button of break-glass operations (docs/policy.md#break-glass). */
  breakGlass?: BreakGlassReviews;
  policy: PolicyProvider;
  /** The installation's clusters: where a typed target without one is placed (app/clusters.ts). */
  clusters: readonly string[];
  responder: Responder;
  /** The slash command, e.g. `/flink`. */
  command: string;
  logger: Logger;
  now: () => number;
  /** Seconds from the listener's start to the ack (the ack latency histogram). */
  onAck?: (seconds: number) => void;
  /** Who may use the bot, asked at the edge (docs/configuration.md#who-may-use-the-bot); absent: everyone. */
  guard?: Pick<WorkspaceGuard, 'refusal'>;
  /** Slash commands per person and minute, counted at the edge (docs/configuration.md#rate-limit); absent: no limit. */
  commandRate?: CommandRateLimit;
  /** Coalesces each person's App Home publishes (docs/lifecycle.md#app-home); absent: every request publishes. */
  homes?: Pick<HomePublisher, 'request'>;
  /** At most so many commands planned at once after their ack (docs/operating.md#under-a-burst); absent: no bound. */
  planning?: Limiter;
  /** Planning waits until the acks of a burst are out (docs/operating.md#under-a-burst); absent: a single yield. */
  quiet?: QuietGate;
}

/** The ack text for operations: a sign of life, no op id (the card brings that). Queries and commands ack empty. */
export function ackText(text: string): string | undefined {
  const [first = '', second] = text.trim().toLowerCase().split(/\s+/, 2);
  const verb = verbNamed(first, second);
  return verb !== undefined && verbSpec(verb).group === 'operation'
    ? `Working on \`${spelledVerb(verb)}\`…`
    : undefined;
}

export function registerCommandHandler(app: App, deps: HandlerDeps): void {
  // The edge acked the command, counted it, waited for the burst's acks and checked who sent it (edge-guard.ts).
  app.command(deps.command, async ({ command }) => {
    await (deps.planning ? deps.planning.run(() => handleCommand(deps, command)) : handleCommand(deps, command));
  });
}

/** Everything after the ack; never throws: every fault becomes a private message to the person who typed it. */
export async function handleCommand(deps: HandlerDeps, command: SlashCommand): Promise<void> {
  const ctx: RenderContext = { now: deps.now(), command: deps.command };
  // The answer takes the place of the ack's bubble, when there is one (docs/lifecycle.md#the-ack).
  const bubble = ackText(command.text) !== undefined;
  const reply = async (message: SlackMessage, inChannel = false): Promise<void> => {
    await deps.responder.respond(command.response_url, {
      ...message,
      response_type: inChannel ? 'in_channel' : 'ephemeral',
      ...(bubble && !inChannel ? { replace_original: true } : {}),
    });
  };
  try {
    const parsed = await readTyped(deps, command.text, command.channel_id);
    switch (parsed.type) {
      case 'reply':
        return await reply(renderRefusal(parsed.message, ctx));
      case 'query': {
        const answer = await deps.queries.answer(parsed.query, command.user_id);
        return await reply(renderAnswer(answer, ctx), answer.kind !== 'refused' && parsed.query.public);
      }
      case 'command':
        return await reply(await runCommand(deps, parsed.command, workspaceUser(command), ctx));
      case 'intent': {
        const message = await requestOperation(deps, parsed.intent, command);
        if (message !== undefined) return await reply(message);
        if (bubble) await dropBubble(deps, command);
        return;
      }
    }
  } catch (error) {
    deps.logger.error({ err: error, user: command.user_id, channel: command.channel_id }, 'slash command failed');
    await reply(renderRefusal(`that did not work: ${describeFault(error)}`, ctx)).catch((e: unknown) =>
      deps.logger.error({ err: e }, 'could not answer through the response_url'),
    );
  }
}

/** The card answers the command: the ack's bubble goes (docs/lifecycle.md#the-ack); failing that, it just stays. */
async function dropBubble(deps: HandlerDeps, command: SlashCommand): Promise<void> {
  await deps.responder
    .respond(command.response_url, { text: '', delete_original: true })
    .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not remove the ack through the response_url'));
}

/**
 * What `text` typed in `channel` asks for: parsed with the channel's default namespace and placed on its cluster.
 * Buttons that stand for a typed command (Undo, the job alert's) read their text here too, so nothing differs.
 */
export async function readTyped(
  deps: Pick<HandlerDeps, 'policy' | 'clusters' | 'command'>,
  text: string,
  channel: string,
): Promise<ParseResult> {
  const state = await deps.policy.current();
  const defaultNamespace = state.ok ? channelDefaultNamespace(state.policy, channel) : undefined;
  const typed = parseCommand(text, {
    ...(defaultNamespace === undefined ? {} : { defaultNamespace }),
    command: deps.command,
  });
  return placeParsed(typed, { clusters: deps.clusters, policy: state.ok ? state.policy : undefined, channel });
}

/** The card is the answer to a recorded operation; only refusals and cancellations are answered privately. */
async function requestOperation(
  deps: HandlerDeps,
  intent: OperationIntent,
  command: SlashCommand,
): Promise<SlackMessage | undefined> {
  const outcome = await deps.operations.request({
    intent,
    requester: command.user_id,
    ...(command.team_id ? { team: command.team_id } : {}),
    ...(command.enterprise_id ? { enterprise: command.enterprise_id } : {}),
    channel: command.channel_id,
    responseUrl: command.response_url,
  });
  const ctx: RenderContext = { now: deps.now(), command: deps.command };
  if (outcome.type === 'refused') return renderRefusal(outcome.message, ctx);
  if (outcome.type === 'cancelled') return renderNotice(outcome.message);
  return undefined;
}

/** Who typed the command, in which workspace: the audit events' `actor` (docs/audit.md#the-events). */
function workspaceUser(command: SlashCommand): WorkspaceUser {
  return {
    user: command.user_id,
    ...(command.team_id ? { team: command.team_id } : {}),
    ...(command.enterprise_id ? { enterprise: command.enterprise_id } : {}),
  };
}

async function runCommand(
  deps: HandlerDeps,
  command: Command,
  who: WorkspaceUser,
  ctx: RenderContext,
): Promise<SlackMessage> {
  const { user } = who;
  switch (command.kind) {
    case 'cancel': {
      const outcome = await deps.operations.cancel(command.opId, user);
      return outcome.type === 'done' ? renderNotice(outcome.message) : renderRefusal(outcome.message, ctx);
    }
    case 'lock': {
      const outcome = await deps.freezes.lock(command.target, command.reason, user, who, command.forMs);
      return outcome.ok ? renderNotice(outcome.message) : renderRefusal(outcome.message, ctx);
    }
    case 'unlock': {
      const outcome = await deps.freezes.unlock(command.target, user, who);
      return outcome.ok ? renderNotice(outcome.message) : renderRefusal(outcome.message, ctx);
    }
  }
}

export function renderAnswer(answer: QueryAnswer, ctx: RenderContext): SlackMessage {
  switch (answer.kind) {
    case 'help':
      return renderHelp(answer.verb, ctx);
    case 'status':
      return renderStatus(answer.view, ctx);
    case 'list':
      return renderList(answer.view, ctx);
    case 'ops':
      return renderOps(answer.records, answer.target ? { ...ctx, target: answer.target } : ctx);
    case 'op':
      return renderOp(answer.record, ctx);
    case 'explain':
      return renderExplain(answer.view, ctx);
    case 'locks':
      return renderLocks(answer.view, ctx);
    case 'savepoints':
      return renderSavepoints(answer.view, ctx);
    case 'exceptions':
      return renderExceptions(answer.view, ctx);
    case 'logs':
      return renderLogs(answer.view, ctx);
    case 'refused':
      return renderRefusal(answer.message, ctx);
  }
}
