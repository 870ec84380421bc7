// The channel's alert digest (docs/alerts.md#many-at-once): when more than a threshold of incidents of one channel await
// their first post at once, ONE message lists them (target, kinds, summary) and is edited as they change; each of them
// then has the digest as its message. A channel's digests are numbered posts of the delivery id `alerts-<channel>`.
import type { Incident, IncidentMessage } from '../app/ports/alerts.js';
import type { Logger } from '../log.js';
import { renderAlertDigest } from '../slack/blocks/alert.js';
import type { SyncOutcome } from './delivery.js';
import {
  ALERT_FIELD,
  HISTORY_LOOKBACK_MS,
  renderContext,
  underLock,
  type AlertMessageDeps,
  type DigestSide,
} from './alert-messages.js';
import { sleep } from './pacer.js';
import { Poster } from './posts.js';
import { SlackUnavailable } from './slack-calls.js';

/** More than this many awaiting their first post at once get one digest (docs/alerts.md#many-at-once). */
export const DEFAULT_DIGEST_THRESHOLD = 10;
const MAX_UNKNOWN = 5;

export const digestId = (channel: string): string => `alerts-${channel}`;
const digestField = (n: number): string => `post:${n}`;

export class AlertDigests implements DigestSide {
  private readonly poster: Poster;
  /** Digest edits queued in this process and not yet rendered: later requests join them. */
  private readonly queued = new Map<string, Promise<void>>();
  /** Members seen recovering here, still listed (recovered incidents leave the open list). */
  private readonly recovered = new Map<string, Map<string, Incident>>();

  constructor(
    private readonly deps: AlertMessageDeps,
    private readonly threshold = DEFAULT_DIGEST_THRESHOLD,
  ) {
    this.poster = new Poster(deps);
  }

  /** Open incidents of the channel with no message yet. */
  private async awaiting(channel: string): Promise<Incident[]> {
    const open = (await this.deps.store.listOpen()).filter((i) => i.channel === channel);
    const messages = await Promise.all(open.map((i) => this.deps.store.message(i.id)));
    return open.filter((_, n) => messages[n] === undefined);
  }

  /** The digests of the channel: each one posted ([n, ts]), and the latest one's number and mark. */
  private async posted(
    channel: string,
  ): Promise<{ latest: number; latestState: string | undefined; done: Map<number, string> }> {
    const snapshot = await this.deps.state.read(digestId(channel));
    const done = new Map<number, string>();
    let latest = 0;
    let latestState: string | undefined;
    for (const [field, read] of snapshot.marks) {
      const n = Number(field.slice('post:'.length));
      if (!field.startsWith('post:') || !Number.isInteger(n)) continue;
      if (n > latest) [latest, latestState] = [n, read.mark?.state];
      if (read.mark?.state === 'done') done.set(n, read.mark.ts);
    }
    return { latest, latestState, done };
  }

  async isDigest(message: IncidentMessage): Promise<boolean> {
    return [...(await this.posted(message.channel)).done.values()].includes(message.ts);
  }

  /** Open incidents the digest `ts` stands for. */
  private async members(channel: string, ts: string): Promise<Incident[]> {
    const open = (await this.deps.store.listOpen()).filter((i) => i.channel === channel);
    const messages = await Promise.all(open.map((i) => this.deps.store.message(i.id)));
    return open.filter((_, n) => messages[n]?.ts === ts);
  }

  /**
   * Decides, under the channel's digest lock, how an incident awaiting its first post is shown: 'alone' (its own
   * message), or filed in the channel's digest, which is posted when more than the threshold await at once and is
   * joined by every newcomer while it still lists an open incident (so a storm stays one message however it arrives).
   */
  async take(channel: string, log: Logger, signal: AbortSignal): Promise<SyncOutcome | 'alone'> {
    const id = digestId(channel);
    let alone = false;
    const outcome = await underLock(this.deps, id, signal, async (locked) => {
      const { latest, latestState, done } = await this.posted(channel);
      const latestTs = done.get(latest);
      const active =
        latestState === 'pending' || (latestTs !== undefined && (await this.members(channel, latestTs)).length > 0);
      const awaiting = await this.awaiting(channel);
      if (awaiting.length === 0 || (!active && awaiting.length <= this.threshold)) {
        alone = true;
        return { kind: 'done' };
      }
      const n = active ? latest : latest + 1;
      const field = digestField(n);
      const posted = await this.poster.ensure(
        {
          opId: id,
          field,
          read: await this.deps.state.mark(id, field),
          channel,
          payload: { op: id, seq: n },
          place: (attemptAt) => ({ channel, oldestMs: attemptAt - HISTORY_LOOKBACK_MS }),
          build: async () => renderAlertDigest(awaiting, { ...renderContext(this.deps), digestId: id }),
        },
        log,
        locked,
      );
      if (posted === 'busy')
        return { kind: 'defer', reason: 'a digest post may be in flight', delayMs: this.deps.holdMs };
      const mark = (await this.deps.state.mark(id, field)).mark;
      if (mark?.state !== 'done') return { kind: 'done', note: `the alert digest was not posted (${posted})` };
      const filed = await this.file(channel, mark.ts, locked);
      log.info({ channel, digest: n, ts: mark.ts, filed }, 'incidents filed in the channel digest');
      await this.edit(channel, mark.ts, log, locked);
      return { kind: 'done' };
    });
    return alone && outcome.kind === 'done' ? 'alone' : outcome;
  }

  /** Each awaiting incident gets the digest as its message, under its own lock (one being posted alone is left). */
  private async file(channel: string, ts: string, signal: AbortSignal): Promise<number> {
    let filed = 0;
    for (const incident of await this.awaiting(channel)) {
      // A lock held elsewhere (defer) means it is being posted alone: it keeps its own message.
      await underLock(this.deps, incident.id, signal, async () => {
        const read = await this.deps.state.mark(incident.id, ALERT_FIELD);
        if (read.mark !== undefined) return { kind: 'done', note: 'posted on its own' };
        if (await this.deps.store.setMessage(incident.id, { channel, ts })) filed++;
        return { kind: 'done' };
      });
    }
    return filed;
  }

  /** A member changed: the digest is edited (requests queued meanwhile in this process are one edit). */
  async refresh(
    channel: string,
    ts: string,
    incident: Incident,
    log: Logger,
    signal: AbortSignal,
  ): Promise<SyncOutcome> {
    const id = digestId(channel);
    if (incident.recoveredAt !== undefined) {
      const seen = this.recovered.get(ts) ?? new Map<string, Incident>();
      this.recovered.set(ts, seen.set(incident.id, incident));
    }
    await this.edit(channel, ts, log, signal);
    return { kind: 'done', note: `digest ${id} refreshed` };
  }

  private async edit(channel: string, ts: string, log: Logger, signal: AbortSignal): Promise<void> {
    const key = `${channel}:${ts}`;
    const queued = this.queued.get(key);
    if (queued !== undefined) return queued;
    const edit = this.editNow(channel, ts, log, signal, () => this.queued.delete(key)).finally(() => {
      if (this.queued.get(key) === edit) this.queued.delete(key);
    });
    this.queued.set(key, edit);
    return edit;
  }

  /** One edit in the digest's shared turn, rendering the members as they are once it holds the turn. */
  private async editNow(
    channel: string,
    ts: string,
    log: Logger,
    signal: AbortSignal,
    started: () => void,
  ): Promise<void> {
    const id = digestId(channel);
    for (let unknown = 0; ;) {
      await this.deps.slack.gates.wait('chat.update', signal);
      const result = await this.deps.edits.run(
        id,
        async () => {
          started();
          const open = await this.members(channel, ts);
          const gone = [...(this.recovered.get(ts)?.values() ?? [])].filter((r) => !open.some((o) => o.id === r.id));
          const message = renderAlertDigest([...open, ...gone], { ...renderContext(this.deps), digestId: id });
          if (open.length === 0) this.recovered.delete(ts);
          // The metadata of the post (`{op, seq: n}`) stays as it was: it is what finds the digest again.
          return this.deps.slack.once(
            'chat.update',
            { channel, ts, text: message.text, blocks: message.blocks },
            signal,
          );
        },
        signal,
      );
      if (result.ok || result.kind === 'ratelimited') {
        if (result.ok) return;
        continue;
      }
      if (result.kind === 'refused') {
        log.error({ error: result.error, channel, ts }, 'Slack refused the digest edit; giving up on it');
        return;
      }
      if (++unknown >= MAX_UNKNOWN) throw new SlackUnavailable('chat.update', result.error);
      await sleep(Math.min(250 * 2 ** unknown, 5000), signal);
    }
  }
}
