// An operation a dead bot left ACCEPTED (docs/lifecycle.md#the-sweep): recorded with the fields the bot's request path
// records before it posts the card, copied from a real one; the sweep tests recover it.
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { BotEnv } from './bot-env.js';

export async function leftAccepted(env: BotEnv, like: OperationRecord, responseId: string): Promise<OperationRecord> {
  const id = `${like.id.slice(0, -3)}zz${responseId.length % 10}`;
  const responseUrl = env.sim.responseUrl(responseId, { channel: env.channel, user: like.requester });
  const { kind, intent, target, requester, channel, incidentChannels, plan, decision } = like;
  const created = await env.bot.deps.store.create(
    { id, kind, intent, target, requester, channel, responseUrl, incidentChannels, plan, decision },
    requester,
  );
  if (!created.ok) throw new Error('id taken');
  return created.record;
}
