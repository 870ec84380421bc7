// The page's actions: a typed slash command or message, a button click, a failure knob. Commands and clicks go to
// the bot as signed Slack requests; what Slack would show the person right away comes back as an ephemeral.
import { isKnob, KnobBoard, KNOBS, panelClusters, pickCluster, type Knob, type PanelCluster } from './page-cluster.js';
import type { Logger, Policy } from './bot.js';
import type { SimCluster } from './kube/cluster.js';
import { GitOpsError } from './kube/gitops/gitops.js';
import { switchGitOps } from './page-gitops.js';
import { blockActionsBody, homeBlockActionsBody, signedHeaders, slashCommandBody, type Workspace } from './signing.js';
import { dmChannelId, type SimEphemeral, type SimMessage, type SimSlack } from './slack-api.js';
import { CHANNELS, encodeTyped, TEAM, USERS } from './workspace.js';

export interface PageBackend {
  slack: SimSlack;
  /** The simulated clusters by name (the sandbox's eu and us), in the order the page shows them. */
  clusters?: readonly { name: string; cluster: SimCluster }[];
  /** Operator seconds the "later" knobs hold back at least (page-knobs.ts `laterFloorSeconds`; the sandbox's). */
  laterFloor?: number;
  /** Or one unnamed simulated cluster (a single-cluster page); ignored when `clusters` is given. */
  cluster?: SimCluster;
  /** The bot's `/slack/events`. */
  botEventsUrl: string;
  signingSecret: string;
  command: string;
  policy: Policy | undefined;
  policyFile: string;
  logger?: Logger;
  now?: () => number;
}

/** The clusters a backend shows, each with its knob board (`knobs`: the single cluster's, when already made). */
export function backendPanel(
  backend: Pick<PageBackend, 'clusters' | 'cluster' | 'laterFloor'>,
  knobs?: KnobBoard,
): PanelCluster[] {
  if (backend.clusters !== undefined && backend.clusters.length > 0)
    return panelClusters(backend.clusters, backend.laterFloor);
  if (backend.cluster === undefined) throw new Error('the page needs a simulated cluster (clusters or cluster)');
  return [{ cluster: backend.cluster, knobs: knobs ?? new KnobBoard(backend.cluster, backend.laterFloor) }];
}

/** A request the page got wrong: answered with `status` and the message. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** An ephemeral only the page knows: the immediate answer to a slash command (Slack shows it; no API call records it). */
export type PageEphemeral = Omit<SimEphemeral, 'source'> & {
  source: SimEphemeral['source'] | 'command';
  command?: string;
};

export interface PageEvents {
  ephemeral(e: PageEphemeral): void;
  cluster(): void;
}

/** Slack gives an app 3 s to answer a slash command or a click. */
const ACK_TIMEOUT_MS = 3_000;
const MAX_TEXT = 4_000;
const WORKSPACE: Workspace = { teamId: TEAM.teamId, teamDomain: TEAM.teamDomain, appId: TEAM.appId };

type Body = Record<string, unknown>;

function field(body: Body, name: string, required = true): string | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new BadRequest(`"${name}" must be a non-empty string`);
  return v;
}

function person(body: Body): { id: string; name: string } {
  const id = field(body, 'user') as string;
  const user = USERS.find((u) => u.id === id);
  if (!user) throw new BadRequest(`unknown user "${id}"; the sandbox has ${USERS.map((u) => u.id).join(', ')}`);
  return { id: user.id, name: user.name };
}

/** A channel of the sandbox, or the app's DM with `user` (the person acting: nobody else sees it). */
function room(body: Body, user: { id: string }): { id: string; name: string } {
  const id = field(body, 'channel') as string;
  if (id === dmChannelId(user.id)) return { id, name: 'directmessage' };
  if (USERS.some((u) => dmChannelId(u.id) === id))
    throw new BadRequest(`${id} is another person's DM with the app; act as them to use it`, 403);
  const channel = CHANNELS.find((c) => c.id === id);
  if (!channel)
    throw new BadRequest(`unknown channel "${id}"; the sandbox has ${CHANNELS.map((c) => c.id).join(', ')}`);
  return { id: channel.id, name: channel.name };
}

/** The button's label as the clicked message shows it. */
function buttonText(message: SimMessage, blockId: string, actionId: string): string | undefined {
  for (const block of (message.blocks ?? []) as Body[]) {
    if (block.block_id !== blockId || !Array.isArray(block.elements)) continue;
    for (const el of block.elements as Body[]) {
      const text = (el.text as Body | undefined)?.text;
      if (el.action_id === actionId && typeof text === 'string') return text;
    }
  }
  return undefined;
}

export class PageApi {
  readonly acks: PageEphemeral[] = [];
  private lastTs = 0;
  /** The clusters whose knobs the page turns. */
  readonly panel: readonly PanelCluster[];

  /** `knobs`: the clusters with their boards, or the single cluster's board (backend.cluster). */
  constructor(
    private readonly backend: PageBackend,
    knobs: KnobBoard | readonly PanelCluster[],
    private readonly events: PageEvents,
  ) {
    this.panel = knobs instanceof KnobBoard ? backendPanel(backend, knobs) : knobs;
  }

  private now(): number {
    return (this.backend.now ?? Date.now)();
  }

  /** The answer to `POST path`, or undefined when no such endpoint exists. */
  async handle(path: string, raw: unknown): Promise<Body | undefined> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new BadRequest('the request body must be a JSON object');
    const body = raw as Body;
    switch (path) {
      case '/api/command':
        return this.command(body);
      case '/api/action':
        return this.action(body);
      case '/api/knob':
        return this.knob(body);
      case '/api/gitops':
        return this.gitops(body);
      case '/api/home':
        return this.openHome(body);
      case '/api/home-action':
        return this.homeAction(body);
      default:
        return undefined;
    }
  }

  /** `/flink …` becomes a signed slash command; anything else is a message posted as that person. */
  private async command(body: Body): Promise<Body> {
    const user = person(body);
    const channel = room(body, user);
    if (channel.name === 'directmessage')
      throw new BadRequest("the app's Messages tab is read-only (messages_tab_read_only_enabled)", 403);
    const typed = (field(body, 'text') as string).trim();
    if (typed.length > MAX_TEXT) throw new BadRequest(`the text is longer than ${MAX_TEXT} characters`);
    const threadTs = field(body, 'threadTs', false);
    if (!typed.startsWith('/')) {
      const posted = this.backend.slack.postAsUser(channel.id, user.id, encodeTyped(typed), threadTs);
      return { ok: true, kind: 'message', ts: posted.ts };
    }
    const word = typed.split(/\s+/, 1)[0] ?? '';
    if (word !== this.backend.command) {
      this.addEphemeral(
        channel.id,
        user.id,
        `${word} is not a valid command. In the sandbox, the app's command is ${this.backend.command}.`,
        typed,
      );
      return { ok: true, kind: 'command', status: 0 };
    }
    const text = encodeTyped(typed.slice(word.length).trim());
    const responseUrl = this.backend.slack.responseUrl(undefined, { channel: channel.id, user: user.id });
    const form = slashCommandBody(WORKSPACE, { command: word, text, user, channel, responseUrl }, this.now());
    const answer = await this.post(form);
    if (!answer.ok) {
      this.addEphemeral(channel.id, user.id, `${word} failed with the error "${answer.error}"`, typed);
      return { ok: true, kind: 'command', status: answer.status, error: answer.error };
    }
    const ack = parseAck(answer.text);
    // Slack shows the ack as the command's own ephemeral, which its response_url may replace or delete.
    if (ack !== undefined && this.backend.slack.commandAck(responseUrl, ack, typed) === undefined)
      this.addEphemeral(channel.id, user.id, ack.text, typed, ack.blocks);
    return { ok: true, kind: 'command', status: answer.status, ...(ack ? { ack: ack.text } : {}) };
  }

  private async action(body: Body): Promise<Body> {
    const user = person(body);
    const channel = room(body, user);
    const messageTs = field(body, 'messageTs') as string;
    const actionId = field(body, 'actionId') as string;
    const blockId = field(body, 'blockId') as string;
    const value = typeof body.value === 'string' ? body.value : '';
    const message = this.findMessage(channel.id, messageTs, field(body, 'threadTs', false));
    if (!message) throw new BadRequest(`no message ${messageTs} in #${channel.name}`, 404);
    const responseUrl = this.backend.slack.responseUrl(undefined, { channel: channel.id, user: user.id, messageTs });
    const click = {
      user,
      channel,
      message: { ...message },
      actionId,
      blockId,
      value,
      buttonText: buttonText(message, blockId, actionId) ?? actionId,
      responseUrl,
    };
    const answer = await this.post(blockActionsBody(WORKSPACE, click, this.now()));
    if (!answer.ok)
      this.addEphemeral(channel.id, user.id, `The app did not answer the click ("${answer.error}"); try again.`);
    return { ok: true, status: answer.status, ...(answer.ok ? {} : { error: answer.error }) };
  }

  /** The person opens the app's Home tab: Slack sends the app `app_home_opened`; the view comes by views.publish. */
  private async openHome(body: Body): Promise<Body> {
    const user = person(body);
    const { slack, botEventsUrl, signingSecret } = this.backend;
    const answer = await slack.openHome(user.id, { url: botEventsUrl, signingSecret });
    return {
      ok: true,
      status: answer.status,
      ...(answer.status === 200 ? {} : { error: 'the app did not answer app_home_opened' }),
    };
  }

  /** A button on the person's Home tab: a block_actions payload from a view, with no channel and no response_url. */
  private async homeAction(body: Body): Promise<Body> {
    const user = person(body);
    const home = this.backend.slack.homeView(user.id);
    if (!home) throw new BadRequest(`the app has published no Home for ${user.id}`, 404);
    const actionId = field(body, 'actionId') as string;
    const blockId = field(body, 'blockId') as string;
    const value = typeof body.value === 'string' ? body.value : '';
    const text =
      buttonText({ ts: '', text: '', blocks: home.view.blocks } as unknown as SimMessage, blockId, actionId) ??
      actionId;
    const click = { user, viewId: home.id, view: home.view, actionId, blockId, value, buttonText: text };
    const answer = await this.post(homeBlockActionsBody(WORKSPACE, click, this.now()));
    return { ok: true, status: answer.status, ...(answer.ok ? {} : { error: answer.error }) };
  }

  /** A knob on one resource of one cluster: `cluster` names it (required when the page shows several). */
  private knob(body: Body): Body {
    const clusterName = field(body, 'cluster', false);
    const namespace = field(body, 'namespace') as string;
    const name = field(body, 'name') as string;
    const knob = body.knob;
    if (!isKnob(knob)) throw new BadRequest(`"knob" must be one of ${Object.keys(KNOBS).join(', ')}`);
    const picked = pickCluster(this.panel, clusterName);
    if ('error' in picked) throw new BadRequest(picked.error, clusterName === undefined ? 400 : 404);
    const { store } = picked.cluster;
    const where = picked.name === undefined ? 'the simulated cluster' : `simulated cluster ${picked.name}`;
    if (!store.get('flinkdeployments', namespace, name) && !store.get('flinksessionjobs', namespace, name)) {
      throw new BadRequest(`no FlinkDeployment or FlinkSessionJob ${namespace}/${name} in ${where}`, 404);
    }
    const on = typeof body.on === 'boolean' ? body.on : undefined;
    const knobs: Knob[] = picked.knobs.set(namespace, name, knob, on);
    this.events.cluster();
    return { ok: true, ...(picked.name === undefined ? {} : { cluster: picked.name }), namespace, name, knobs };
  }

  /** The GitOps switch of one resource (docs/sandbox.md#gitops-switches). */
  private gitops(body: Body): Body {
    try {
      const answer = switchGitOps(this.panel, body);
      this.events.cluster();
      return answer;
    } catch (error) {
      if (error instanceof GitOpsError) throw new BadRequest(error.message, error.status);
      throw error;
    }
  }

  private findMessage(channel: string, ts: string, threadTs: string | undefined): SimMessage | undefined {
    const { slack } = this.backend;
    const top = slack.messages(channel);
    const direct = top.find((m) => m.ts === ts);
    if (direct) return direct;
    const parents = threadTs !== undefined ? [threadTs] : top.filter((m) => (m.reply_count ?? 0) > 0).map((m) => m.ts);
    for (const parent of parents) {
      const found = slack.replies(channel, parent).find((m) => m.ts === ts);
      if (found) return found;
    }
    return undefined;
  }

  private async post(
    form: string,
  ): Promise<{ ok: true; status: number; text: string } | { ok: false; status: number; error: string }> {
    const headers = signedHeaders(this.backend.signingSecret, form, this.now() / 1000);
    try {
      const res = await fetch(this.backend.botEventsUrl, {
        method: 'POST',
        body: form,
        headers,
        signal: AbortSignal.timeout(ACK_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status !== 200)
        return {
          ok: false,
          status: res.status,
          error: res.status === 404 ? 'dispatch_unknown_error' : 'dispatch_failed',
        };
      return { ok: true, status: res.status, text };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      this.backend.logger?.warn({ err: error }, 'the bot did not answer the sandbox page');
      return { ok: false, status: 0, error: timedOut ? 'operation_timeout' : 'dispatch_failed' };
    }
  }

  private addEphemeral(channel: string, user: string, text: string, command?: string, blocks?: unknown[]): void {
    this.lastTs = Math.max(Math.floor(this.now()) * 1000, this.lastTs + 1);
    const ts = `${Math.floor(this.lastTs / 1e6)}.${String(this.lastTs % 1e6).padStart(6, '0')}`;
    const e: PageEphemeral = {
      channel,
      user,
      ts,
      text,
      at: this.now(),
      source: 'command',
      ...(command ? { command } : {}),
      ...(blocks ? { blocks } : {}),
    };
    this.acks.push(e);
    if (this.acks.length > 500) this.acks.shift();
    this.events.ephemeral(e);
  }
}

/** What Slack shows from an ack's body: nothing for an empty ack, else its text (and blocks). */
function parseAck(text: string): { text: string; blocks?: unknown[] } | undefined {
  if (text.trim() === '') return undefined;
  try {
    const body = JSON.parse(text) as Body;
    const blocks = Array.isArray(body.blocks) ? (body.blocks as unknown[]) : undefined;
    if (typeof body.text !== 'string' && !blocks) return undefined;
    return { text: typeof body.text === 'string' ? body.text : '', ...(blocks ? { blocks } : {}) };
  } catch {
    return { text };
  }
}
