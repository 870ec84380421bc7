// The edge (docs/configuration.md#who-may-use-the-bot): one Bolt global middleware in front of every surface — slash
// commands, buttons (cards, DMs, alerts, App Home), view submissions and events — asks who is asking before any
// handler runs. Someone outside the allowed workspaces is answered privately (commands, clicks) or not at all (events:
// Slack has them acknowledged already), and nothing is recorded. Slash commands are also counted per person
// (docs/configuration.md#rate-limit).
//
// A command's payload does not name the user's own team, so judging it may take a users.info call; the acks of a
// burst go out before any Slack call (docs/operating.md#under-a-burst), so the edge acks commands itself, counts
// them, waits for the burst's quiet, then judges. A click names the clicker's own team: an allowed one is admitted at
// once, before the handler's ack.
import { performance } from 'node:perf_hooks';
import type { AnyMiddlewareArgs, Middleware, SlashCommand } from '@slack/bolt';
import type { CommandCount } from '../store/command-rate.js';
import { renderRefusal } from './blocks/index.js';
import { ackText, type HandlerDeps } from './command-handler.js';

type MiddlewareArgs = Parameters<Middleware<AnyMiddlewareArgs>>[0];
type Ack = (response?: { response_type: 'ephemeral'; text: string }) => Promise<void>;

export type EdgeDeps = Pick<
  HandlerDeps,
  'guard' | 'responder' | 'logger' | 'now' | 'command' | 'onAck' | 'quiet' | 'commandRate'
>;

export function edgeGuard(deps: EdgeDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as Record<string, unknown>;
    const ack = 'ack' in args && typeof args.ack === 'function' ? (args.ack as Ack) : undefined;
    if (typeof body.command === 'string' && ack) return command(deps, args, body as unknown as SlashCommand, ack);
    if (body.type === 'event_callback') return event(deps, args, body.event as { user?: unknown } | undefined);
    const user = body.user as { id?: unknown; team_id?: unknown } | undefined;
    if (typeof user?.id === 'string') return interaction(deps, args, body, { id: user.id, team: user.team_id }, ack);
    return args.next();
  };
}

async function command(deps: EdgeDeps, args: MiddlewareArgs, body: SlashCommand, ack: Ack): Promise<void> {
  const started = performance.now();
  const text = ackText(body.text);
  await (text === undefined ? ack() : ack({ response_type: 'ephemeral', text }));
  deps.onAck?.((performance.now() - started) / 1000);
  // Counted after the ack, so a burst's acks never wait on Redis; the one past the limit stops here.
  const limited = await rateRefusal(deps, body.user_id);
  if (limited !== undefined) return answer(deps, body.response_url, limited);
  // Under a burst, the acks of the requests still arriving go out before this one's check and planning start.
  deps.quiet?.noise();
  await (deps.quiet ? deps.quiet.quiet() : new Promise((resolve) => setImmediate(resolve)));
  const outsider = await deps.guard?.refusal({ userId: body.user_id });
  if (outsider === undefined) return args.next();
  deps.logger.info({ user: body.user_id, team: body.team_id }, 'command from outside the allowed workspaces refused');
  await answer(deps, body.response_url, outsider);
}

async function event(deps: EdgeDeps, args: MiddlewareArgs, event: { user?: unknown } | undefined): Promise<void> {
  // Events no person sent (none is subscribed today) have nobody to judge.
  if (typeof event?.user !== 'string') return args.next();
  const outsider = await deps.guard?.refusal({ userId: event.user });
  if (outsider === undefined) return args.next();
  deps.logger.info({ user: event.user }, 'event from outside the allowed workspaces dropped');
}

async function interaction(
  deps: EdgeDeps,
  args: MiddlewareArgs,
  body: Record<string, unknown>,
  user: { id: string; team: unknown },
  ack: Ack | undefined,
): Promise<void> {
  const ownTeamId = typeof user.team === 'string' ? user.team : undefined;
  const outsider = await deps.guard?.refusal({ userId: user.id, ownTeamId });
  if (outsider === undefined) return args.next();
  await ack?.();
  deps.logger.info({ user: user.id, team: ownTeamId }, 'click from outside the allowed workspaces refused');
  // A Home click has no response_url: an outsider's Home is never published, so there is nothing to answer on.
  if (typeof body.response_url === 'string') await answer(deps, body.response_url, outsider);
}

/** The private answer through the response_url; never throws. */
async function answer(deps: EdgeDeps, responseUrl: string, message: string): Promise<void> {
  const refusal = renderRefusal(message, { now: deps.now(), command: deps.command });
  await deps.responder
    .respond(responseUrl, { ...refusal, response_type: 'ephemeral', replace_original: false })
    .catch((error: unknown) =>
      deps.logger.error({ err: error }, 'could not answer a refusal through its response_url'),
    );
}

/** The answer when `user` sent too many commands this minute; undefined: go on (also when Redis cannot count). */
async function rateRefusal(deps: EdgeDeps, user: string): Promise<string | undefined> {
  const rate = deps.commandRate;
  if (rate === undefined || rate.perMinute === 0) return undefined;
  const now = deps.now();
  let counted: CommandCount;
  try {
    counted = await rate.counts.take(user, now);
  } catch (error) {
    deps.logger.warn({ err: error, user }, 'could not count a command; letting it through');
    return undefined;
  }
  if (counted.count <= rate.perMinute) return undefined;
  const seconds = Math.max(1, Math.ceil((counted.resetsAt - now) / 1000));
  return (
    `you sent ${counted.count} commands in the last minute, more than the ${rate.perMinute} a minute this bot takes ` +
    `from one person; wait ${seconds} s and try again. Nothing was done.`
  );
}
