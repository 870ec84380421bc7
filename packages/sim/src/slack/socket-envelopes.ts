// The envelopes the simulated Slack sends over Socket Mode links, and their attempts: each goes out on one open link
// (round robin), waits for its ack, and when none comes in time is retried or given up as Slack does
// (socket-retries.ts). The links themselves (tickets, hello, pings, disconnects) are socket-mode.ts's.
import { randomUUID } from 'node:crypto';
import { failureOf, retryDelayMs, type SocketTiming } from './socket-retries.js';
import type { SimSocketAck, SimSocketDelivery, SimSocketEnvelopeType, SimSocketEvent } from './types.js';

/** What an envelope needs of a link: its id (the server keeps the rest). */
export interface EnvelopeLink {
  id: number;
}

interface Pending<L extends EnvelopeLink> {
  delivery: SimSocketDelivery;
  /** Slack's attempt (0 = the first; events only go further). */
  attempt: number;
  /** The link this attempt went out on; undefined = waiting for one (or for the retry's delay). */
  on: L | undefined;
  /** The attempt is under way (not waiting out a retry delay). */
  due: boolean;
  /** The ack deadline of this attempt, or the delay before the next one. */
  timer: NodeJS.Timeout | undefined;
  settle: (ack: SimSocketAck) => void;
  reject: (error: Error) => void;
}

export interface EnvelopeDeps<L extends EnvelopeLink> {
  timing: SocketTiming;
  now: () => number;
  emit: (event: SimSocketEvent) => void;
  /** The links an envelope may go out on now. */
  openLinks: () => L[];
  /** Writes the envelope on the link; `afterSend` runs the server's faults for a link that just carried one. */
  send: (link: L, message: Record<string, unknown>) => void;
  afterSend: (link: L) => void;
}

export class SocketEnvelopes<L extends EnvelopeLink> {
  readonly deliveries: SimSocketDelivery[] = [];
  readonly acks: SimSocketAck[] = [];
  private readonly pending = new Map<string, Pending<L>>();
  private roundRobin = 0;

  constructor(private readonly deps: EnvelopeDeps<L>) {}

  get unacknowledged(): SimSocketDelivery[] {
    return [...this.pending.values()].map((p) => p.delivery);
  }

  /** Sends an envelope (now, or once a link opens); `acked` resolves with its ack, rejects when Slack gives it up. */
  deliver(
    type: SimSocketEnvelopeType,
    payload: Record<string, unknown>,
  ): { delivery: SimSocketDelivery; acked: Promise<SimSocketAck> } {
    const delivery: SimSocketDelivery = {
      envelopeId: randomUUID(),
      type,
      payload: structuredClone(payload),
      acceptsResponsePayload: type === 'slash_commands',
      queuedAt: this.deps.now(),
      sends: [],
    };
    this.deliveries.push(delivery);
    const acked = new Promise<SimSocketAck>((resolve, reject) => {
      const p: Pending<L> = {
        delivery,
        attempt: 0,
        on: undefined,
        due: false,
        timer: undefined,
        settle: resolve,
        reject,
      };
      this.pending.set(delivery.envelopeId, p);
      this.startAttempt(p);
    });
    return { delivery, acked };
  }

  /** The app's ack for `envelopeId` arrived on `link`; false when no envelope waits for it (a stray ack). */
  acknowledge(link: L, envelopeId: string, payload: Record<string, unknown>, at: number): boolean {
    const pending = this.pending.get(envelopeId);
    if (pending === undefined) return false;
    const ack: SimSocketAck = {
      envelopeId,
      type: pending.delivery.type,
      payload: structuredClone(payload),
      at,
      attempt: pending.attempt,
      connection: link.id,
    };
    clearTimeout(pending.timer);
    pending.delivery.ack = ack;
    this.pending.delete(envelopeId);
    this.acks.push(ack);
    this.deps.emit({ kind: 'acked', connection: link.id, envelopeId, at });
    pending.settle(ack);
    return true;
  }

  /** No ack can come over a closed link: an event's attempt fails now; a command or click waits out its 3 s. */
  linkClosed(link: L): void {
    for (const p of [...this.pending.values()])
      if (p.on === link && p.delivery.type === 'events_api') this.attemptFailed(p);
  }

  /** Sends every attempt that waits for a link, each to one open link (round robin; no fan-out). */
  flush(): void {
    for (const p of this.pending.values()) {
      if (p.on !== undefined || !p.due) continue;
      const open = this.deps.openLinks();
      if (open.length === 0) return;
      const link = open[this.roundRobin++ % open.length] as L;
      const attempt = p.attempt;
      p.on = link;
      p.delivery.sends.push({ connection: link.id, at: this.deps.now() });
      this.deps.send(link, {
        envelope_id: p.delivery.envelopeId,
        type: p.delivery.type,
        payload: p.delivery.payload,
        accepts_response_payload: p.delivery.acceptsResponsePayload,
        ...(p.delivery.type === 'events_api'
          ? { retry_attempt: attempt, retry_reason: attempt === 0 ? '' : 'timeout' }
          : {}),
      });
      this.deps.emit({ kind: 'sent', connection: link.id, envelopeId: p.delivery.envelopeId, at: this.deps.now() });
      this.deps.afterSend(link);
    }
  }

  close(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
  }

  /** Attempt `p.attempt` goes out on a link (now or when one opens) and has the ack deadline to be acknowledged. */
  private startAttempt(p: Pending<L>): void {
    p.due = true;
    p.on = undefined;
    p.timer = setTimeout(() => this.attemptFailed(p), this.deps.timing.ackDeadlineMs);
    this.flush();
  }

  /** No ack for this attempt: an event is retried after its delay; anything else, or the last retry, is given up. */
  private attemptFailed(p: Pending<L>): void {
    clearTimeout(p.timer);
    const delay = retryDelayMs(p.delivery.type, p.attempt, this.deps.timing);
    if (delay === undefined) return this.giveUp(p);
    p.attempt += 1;
    p.due = false;
    p.on = undefined;
    p.timer = setTimeout(() => this.startAttempt(p), delay);
  }

  private giveUp(p: Pending<L>): void {
    const { delivery } = p;
    const error = failureOf(delivery.type, delivery.sends.length > 0);
    const at = this.deps.now();
    delivery.failed = { error, at };
    this.pending.delete(delivery.envelopeId);
    this.deps.emit({ kind: 'failed', envelopeId: delivery.envelopeId, error, at });
    p.reject(new Error(`simulated Slack: ${delivery.type} envelope ${delivery.envelopeId} given up: ${error}`));
  }
}
