// Where `--incident` may mirror an operation's digests (docs/policy.md#incident-channels): at most three channels,
// each one the policy names or one the requester is a member of.
import type { Policy } from '../domain/engines/policy/schema.js';
import type { ChannelMembership } from './ports/index.js';

export const MAX_INCIDENT_CHANNELS = 3;

/** Channels the policy itself names: every namespace's `incidentChannel` and every `channels` entry. */
function policyChannels(policy: Policy): Set<string> {
  const named = policy.namespaces.flatMap((n) => (n.incidentChannel === undefined ? [] : [n.incidentChannel]));
  return new Set([...named, ...Object.keys(policy.channels)]);
}

/** Why the requester may not post into these channels (undefined: they may). */
export async function incidentChannelsProblem(
  channels: readonly string[],
  requester: string,
  policy: Policy,
  membership: ChannelMembership | undefined,
): Promise<string | undefined> {
  if (channels.length > MAX_INCIDENT_CHANNELS)
    return `--incident takes at most ${MAX_INCIDENT_CHANNELS} channels; you gave ${channels.length}; nothing was recorded`;
  const named = policyChannels(policy);
  for (const channel of channels) {
    if (named.has(channel)) continue;
    const member = membership === undefined ? 'unknown' : await membership(channel, requester);
    if (member === 'member') continue;
    const why =
      member === 'not-member'
        ? 'you are not a member of it'
        : 'the bot cannot confirm you are a member of it (invite the bot, or ask for it in the policy)';
    return `--incident <#${channel}>: ${why}; digests go only into channels you are in or that the policy names; nothing was recorded`;
  }
  return undefined;
}
