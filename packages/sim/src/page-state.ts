// What the sandbox page shows, as plain JSON: the workspace, channel messages, threads, ephemerals and the cluster.
import { VERB_NAMES, usageLine, verbSpec, type Policy } from './bot.js';
import type { SimCluster } from './kube/cluster.js';
import {
  clusterRows,
  KNOB_NAMES,
  KNOBS,
  panelReleases,
  panelRows,
  type ClusterRow,
  type Knob,
  type KnobBoard,
  type PanelCluster,
} from './page-cluster.js';
import type { PageEphemeral } from './page-api.js';
import { GITOPS_CHOICES } from './page-gitops.js';
import { dmChannelId, type SimMessage, type SimSlack } from './slack-api.js';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from './workspace.js';

export interface PageUser {
  id: string;
  name: string;
  realName: string;
  title: string;
  /** Policy groups the person is in, directly or through a Slack user group. */
  groups: string[];
}

export interface PageState {
  team: { id: string; name: string };
  bot: { userId: string; name: string };
  command: string;
  policyFile: string;
  users: PageUser[];
  channels: { id: string; name: string; topic: string; defaultNamespace?: string; defaultCluster?: string }[];
  usergroups: { id: string; handle: string }[];
  usage: { verb: string; usage: string; summary: string }[];
  messages: Record<string, SimMessage[]>;
  /** Per channel, per thread parent ts: the replies, oldest first (the parent is not repeated). */
  threads: Record<string, Record<string, SimMessage[]>>;
  /** Every ephemeral message; the page shows each only to its user. */
  ephemerals: PageEphemeral[];
  /** Every simulated resource; with several clusters each row names its cluster (rows of one cluster together). */
  cluster: ClusterRow[];
  /** The simulated clusters' names, in the panel's order; empty when the page shows a single unnamed cluster. */
  clusters: string[];
  /** Per cluster name: the operator release it runs and the release of its CRDs. */
  releases: Record<string, { operator: string; crd: string }>;
  /** Each knob: its id, its short name (the button's text) and what it does. */
  knobs: { id: string; name: string; label: string }[];
  /** The GitOps switch's choices: off, Argo CD self-heal, Flux, Helm. */
  gitops: { id: string; label: string }[];
  /** Per user: the Home tab the app last published for them (views.publish), and the app's DMs to them. */
  homes: Record<string, { view?: unknown; dms: SimMessage[] }>;
  /** Per user: the id of the app's DM with them (its messages and threads are in `messages` and `threads`). */
  dmChannels: Record<string, string>;
}

export interface StateSources {
  slack: SimSlack;
  /** The clusters the page shows, with their knobs; else the single `cluster` with `knobs`. */
  panel?: readonly PanelCluster[];
  cluster?: Pick<SimCluster, 'store'>;
  knobs?: KnobBoard;
  policy: Policy | undefined;
  policyFile: string;
  command: string;
  /** Ephemerals only the page knows: the immediate answers to slash commands (Slack shows them, nothing records them). */
  acks: () => PageEphemeral[];
}

export function pageUsers(policy: Policy | undefined): PageUser[] {
  return USERS.map((u) => {
    const groups = Object.entries(policy?.groups ?? {})
      .filter(
        ([, g]) =>
          g.users.includes(u.id) ||
          g.usergroups.some((s) => USERGROUPS.find((ug) => ug.id === s)?.users.includes(u.id)),
      )
      .map(([name]) => name);
    return { id: u.id, name: u.name, realName: u.real_name, title: u.title, groups };
  });
}

/** One line per verb, from the parser's own table: the composer's usage hint. */
export function usageHints(command: string): PageState['usage'] {
  return VERB_NAMES.map((verb) => ({ verb, usage: usageLine(verb, command), summary: verbSpec(verb).summary }));
}

export function buildState(src: StateSources): PageState {
  const messages: PageState['messages'] = {};
  const threads: PageState['threads'] = {};
  const ephemerals: PageEphemeral[] = [...src.acks()];
  const dmChannels = Object.fromEntries(USERS.map((u) => [u.id, dmChannelId(u.id)]));
  for (const id of [...CHANNELS.map((c) => c.id), ...Object.values(dmChannels)]) {
    const top = src.slack.messages(id);
    messages[id] = top;
    const byParent: Record<string, SimMessage[]> = {};
    for (const m of top) if ((m.reply_count ?? 0) > 0) byParent[m.ts] = src.slack.replies(id, m.ts).slice(1);
    threads[id] = byParent;
    ephemerals.push(...src.slack.ephemerals(id));
  }
  ephemerals.sort((a, b) => Number(a.ts) - Number(b.ts));
  return {
    team: { id: TEAM.teamId, name: TEAM.teamName },
    bot: { userId: BOT.botUserId, name: BOT.botName },
    command: src.command,
    policyFile: src.policyFile,
    users: pageUsers(src.policy),
    channels: CHANNELS.map((c) => {
      const defaults = src.policy?.channels[c.id];
      const ns = defaults?.defaultNamespace;
      const cluster = defaults?.defaultCluster;
      return {
        id: c.id,
        name: c.name,
        topic: c.topic,
        ...(ns === undefined ? {} : { defaultNamespace: ns }),
        ...(cluster === undefined ? {} : { defaultCluster: cluster }),
      };
    }),
    usergroups: USERGROUPS.map((g) => ({ id: g.id, handle: g.handle })),
    usage: usageHints(src.command),
    messages,
    threads,
    ephemerals,
    cluster: stateRows(src),
    clusters: (src.panel ?? []).flatMap((c) => (c.name === undefined ? [] : [c.name])),
    releases: panelReleases(src.panel ?? []),
    knobs: (Object.keys(KNOBS) as Knob[]).map((id) => ({ id, name: KNOB_NAMES[id], label: KNOBS[id] })),
    gitops: GITOPS_CHOICES.map((c) => ({ ...c })),
    homes: Object.fromEntries(
      USERS.map((u) => [
        u.id,
        { view: src.slack.homeView(u.id)?.view, dms: messages[dmChannels[u.id] as string] ?? [] },
      ]),
    ),
    dmChannels,
  };
}

function stateRows(src: StateSources): ClusterRow[] {
  if (src.panel) return panelRows(src.panel);
  if (!src.cluster || !src.knobs)
    throw new Error('the page state needs the clusters (panel) or one cluster with its knobs');
  return clusterRows(src.cluster, src.knobs);
}
