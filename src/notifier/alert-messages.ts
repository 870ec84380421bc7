// One incident's own alert message (docs/alerts.md#the-alert-message): posted once (a post of unknown outcome is found
// again by its metadata before posting again), then edited to the newest version, coalesced like card edits, and to
// "recovered at …" when it clears. Many awaiting their first post at once go to the channel's digest instead.
import { randomUUID } from 'node:crypto';
import type { AlertStore, Incident, IncidentMessage } from '../app/ports/alerts.js';
import type { Logger } from '../log.js';
import type { RenderContext, SlackMessage } from '../slack/blocks/message.js';
import { renderAlert } from '../slack/blocks/alert.js';
import { METADATA_EVENT_TYPE } from '../slack-client/client.js';
import type { SyncOutcome } from './delivery.js';
import { sleep, type PostPacer } from './pacer.js';
import { Poster, type PosterDeps } from './posts.js';
import { SlackUnavailable, type CallResult, type SlackCalls } from './slack-calls.js';

/** The delivery-mark field of an incident's own message (one per incident, whatever its version). */
export const ALERT_FIELD = 'post:alert';
/** A lost post is looked for in channel history from this long before its attempt (clock skew with Slack). */
export const HISTORY_LOOKBACK_MS = 10 * 60_000;
const MAX_UNKNOWN = 5;
const BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_blocks_too_long']);

export interface AlertMessageDeps extends PosterDeps {
  store: AlertStore;
  slack: SlackCalls;
  /** Edits of one message, installation-wide: one at a time, a window apart (keyed by incident or digest id). */
  edits: PostPacer;
  command: string;
  renderNow: () => number;
  holdMs: number;
  lockTtlMs: number;
}

/** Metadata of an alert post: found again by `{op: <incident id>, seq: 'alert'}`; the version it showed rides along. */
export function alertPayload(incident: Pick<Incident, 'id' | 'version'>): { op: string; seq: string } {
  const payload = { op: incident.id, seq: 'alert', version: incident.version };
  return payload;
}

export function renderContext(deps: Pick<AlertMessageDeps, 'renderNow' | 'command'>): RenderContext {
  return { now: deps.renderNow(), command: deps.command };
}

/**
 * `fn` under the delivery lock of `id` (renewed while it runs); a lock held elsewhere defers. Each hold has a token of
 * its own: tasks of one process (a target's, and the digest filing it) must exclude each other too.
 */
export async function underLock(
  deps: Pick<AlertMessageDeps, 'state' | 'lockTtlMs' | 'holdMs' | 'consumer'>,
  id: string,
  signal: AbortSignal,
  fn: (signal: AbortSignal) => Promise<SyncOutcome>,
): Promise<SyncOutcome> {
  const { state, lockTtlMs, holdMs } = deps;
  const token = `${deps.consumer}:${randomUUID()}`;
  if (!(await state.tryLock(id, token, lockTtlMs)))
    return { kind: 'defer', reason: `another notifier is delivering ${id}`, delayMs: holdMs };
  const lost = new AbortController();
  const renew = setInterval(() => {
    state.extendLock(id, token, lockTtlMs).then(
      (held) => held || lost.abort(),
      () => lost.abort(),
    );
  }, lockTtlMs / 3);
  try {
    return await fn(AbortSignal.any([signal, lost.signal]));
  } finally {
    clearInterval(renew);
    await state.releaseLock(id, token);
  }
}

/** What an incident's own message needs of the channel's digest (alert-digest.ts). */
export interface DigestSide {
  isDigest(message: IncidentMessage): Promise<boolean>;
  /** For an incident awaiting its first post: 'alone' (post it), or the outcome of filing it in the digest. */
  take(channel: string, log: Logger, signal: AbortSignal): Promise<SyncOutcome | 'alone'>;
  refresh(channel: string, ts: string, incident: Incident, log: Logger, signal: AbortSignal): Promise<SyncOutcome>;
}

export class AlertMessages {
  private readonly poster: Poster;

  constructor(
    private readonly deps: AlertMessageDeps,
    private readonly digests: DigestSide,
  ) {
    this.poster = new Poster(deps);
  }

  /** Makes Slack show the newest version of the target's incident (its own message, or the digest it is in). */
  async sync(cluster: string, target: Incident['target'], log: Logger, signal: AbortSignal): Promise<SyncOutcome> {
    const incident = await this.deps.store.get(cluster, target);
    if (incident === undefined) return { kind: 'done', note: 'no incident for the target any more' };
    const message = await this.deps.store.message(incident.id);
    if (message !== undefined && (await this.digests.isDigest(message))) {
      return this.digests.refresh(incident.channel, message.ts, incident, log, signal);
    }
    if (message === undefined && incident.recoveredAt === undefined) {
      const taken = await this.digests.take(incident.channel, log, signal);
      if (taken !== 'alone') return taken;
    }
    return underLock(this.deps, incident.id, signal, (locked) =>
      this.show(incident, log.child({ incident: incident.id }), locked),
    );
  }

  private async show(found: Incident, log: Logger, signal: AbortSignal): Promise<SyncOutcome> {
    let message = await this.deps.store.message(found.id);
    if (message === undefined) {
      const posted = await this.post(found, log, signal);
      if (posted.kind !== 'posted') return posted.outcome;
      message = posted.message;
    }
    if (await this.digests.isDigest(message))
      return { kind: 'defer', reason: 'the incident went into the digest meanwhile', delayMs: this.deps.holdMs };
    await this.edit(found.id, found.cluster, found.target, message, log, signal);
    return { kind: 'done' };
  }

  private async post(
    incident: Incident,
    log: Logger,
    signal: AbortSignal,
  ): Promise<{ kind: 'posted'; message: IncidentMessage } | { kind: 'not'; outcome: SyncOutcome }> {
    const { state, store } = this.deps;
    const read = await state.mark(incident.id, ALERT_FIELD);
    const outcome = await this.poster.ensure(
      {
        opId: incident.id,
        field: ALERT_FIELD,
        read,
        channel: incident.channel,
        payload: alertPayload(incident),
        place: (attemptAt) => ({ channel: incident.channel, oldestMs: attemptAt - HISTORY_LOOKBACK_MS }),
        build: async () => renderAlert(incident, renderContext(this.deps)),
      },
      log,
      signal,
    );
    if (outcome === 'busy')
      return { kind: 'not', outcome: { kind: 'defer', reason: 'a post may be in flight', delayMs: this.deps.holdMs } };
    const mark = (await state.mark(incident.id, ALERT_FIELD)).mark;
    if (outcome !== 'done' || mark?.state !== 'done')
      return { kind: 'not', outcome: { kind: 'done', note: `the alert was not posted (${outcome})` } };
    const mine = { channel: incident.channel, ts: mark.ts };
    if (!(await store.setMessage(incident.id, mine))) {
      const winner = await store.message(incident.id);
      if (winner !== undefined && winner.ts !== mine.ts) {
        log.warn({ ts: mine.ts, winner: winner.ts }, 'another message shows the incident already; deleting ours');
        await this.deleteDuplicate(mine, log, signal);
        return { kind: 'posted', message: winner };
      }
    }
    await state.raiseRendered(incident.id, incident.version);
    return { kind: 'posted', message: mine };
  }

  /**
   * Deletes a post that lost to another message of the incident. Already gone (`message_not_found`) is the end sought;
   * any other refusal, or Slack failing past the read attempts, leaves the duplicate up, said once in the log.
   */
  private async deleteDuplicate(mine: IncidentMessage, log: Logger, signal: AbortSignal): Promise<void> {
    const error = await this.deps.slack.idempotent('chat.delete', { channel: mine.channel, ts: mine.ts }, signal).then(
      (result) => (result.ok ? undefined : result.error),
      (failed: unknown) => (failed instanceof Error ? failed.message : String(failed)),
    );
    if (error === undefined || error === 'message_not_found') return;
    log.warn({ channel: mine.channel, ts: mine.ts, error }, 'could not delete our duplicate alert message; it stays');
  }

  /**
   * Edits the message to the incident as it is at send time, unless a version at least as new was rendered; edits of
   * one incident take its shared turn, a window apart, so a burst of versions is one edit.
   */
  async edit(
    id: string,
    cluster: string,
    target: Incident['target'],
    message: IncidentMessage,
    log: Logger,
    signal: AbortSignal,
  ): Promise<void> {
    const { store, state, slack, edits } = this.deps;
    const current = async (): Promise<Incident | undefined> => {
      const incident = await store.get(cluster, target);
      return incident?.id === id ? incident : undefined;
    };
    let force = false;
    let textOnly = false;
    for (let unknown = 0; ;) {
      await slack.gates.wait('chat.update', signal);
      const latest = await current();
      if (latest === undefined || (!force && (await state.renderedSeq(id)) >= latest.version)) return;
      const turn = await edits.turn<{ version: number; result: CallResult } | undefined>(
        id,
        async () => {
          const incident = await current();
          if (incident === undefined || (!force && (await state.renderedSeq(id)) >= incident.version))
            return { value: undefined, called: false };
          const args = updateArgs(message, renderAlert(incident, renderContext(this.deps)), incident, textOnly);
          return {
            value: { version: incident.version, result: await slack.once('chat.update', args, signal) },
            called: true,
          };
        },
        signal,
      );
      if (turn === undefined) return;
      const { version, result } = turn;
      if (result.ok) {
        force = (await state.raiseRendered(id, version)) > version;
        if (!force) return;
        continue;
      }
      if (result.kind === 'ratelimited') continue;
      if (result.kind === 'refused') {
        if (BLOCK_ERRORS.has(result.error) && !textOnly) {
          textOnly = true;
          continue;
        }
        log.error({ error: result.error, message }, 'Slack refused the alert edit; giving up on this version');
        await state.raiseRendered(id, version);
        return;
      }
      if (++unknown >= MAX_UNKNOWN) throw new SlackUnavailable('chat.update', result.error);
      await sleep(Math.min(250 * 2 ** unknown, 5000), signal);
    }
  }
}

export function updateArgs(
  where: IncidentMessage,
  message: SlackMessage,
  payload: { id: string; version: number },
  textOnly: boolean,
): Record<string, unknown> {
  return {
    channel: where.channel,
    ts: where.ts,
    text: message.text,
    ...(textOnly ? {} : { blocks: message.blocks }),
    metadata: { event_type: METADATA_EVENT_TYPE, event_payload: alertPayload(payload) },
  };
}
