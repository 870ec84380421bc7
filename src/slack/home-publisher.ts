// App Home publishes, coalesced per person (docs/lifecycle.md#app-home): while one publish of a person's Home is in
// flight, or within a second of the last one's start, later requests wait and become one publish of the view as it is
// then. A burst of opens, Refresh clicks and Home clicks so costs at most two views.publish calls, the last showing
// the latest state.
import type { webApi } from '@slack/bolt';

/** Builds the person's Home now and publishes it; never throws. */
export type PublishHome = (client: webApi.WebClient, user: string) => Promise<void>;

const WINDOW_MS = 1_000;

interface Slot {
  running: boolean;
  lastStart: number;
  /** Requests that came while running or within the window: one publish answers them all. */
  next?: { client: webApi.WebClient; waiters: (() => void)[]; timer?: NodeJS.Timeout };
}

export class HomePublisher {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly publish: PublishHome,
    private readonly windowMs = WINDOW_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Publishes `user`'s Home now, or with the next publish; resolves once a publish started after this call ended. */
  request(client: webApi.WebClient, user: string): Promise<void> {
    const slot = this.slots.get(user) ?? { running: false, lastStart: Number.NEGATIVE_INFINITY };
    this.slots.set(user, slot);
    if (!slot.running && slot.next === undefined && this.now() - slot.lastStart >= this.windowMs)
      return this.run(user, slot, client);
    return new Promise<void>((resolve) => {
      slot.next ??= { client, waiters: [] };
      slot.next.client = client;
      slot.next.waiters.push(resolve);
      this.schedule(user, slot);
    });
  }

  private async run(user: string, slot: Slot, client: webApi.WebClient): Promise<void> {
    slot.running = true;
    slot.lastStart = this.now();
    try {
      await this.publish(client, user);
    } finally {
      slot.running = false;
      if (slot.next) this.schedule(user, slot);
      else this.forgetLater(user, slot);
    }
  }

  /** The waiting requests' publish, once nothing runs and the window since the last start has passed. */
  private schedule(user: string, slot: Slot): void {
    const next = slot.next;
    if (next === undefined || slot.running || next.timer !== undefined) return;
    const wait = Math.max(0, slot.lastStart + this.windowMs - this.now());
    next.timer = setTimeout(() => {
      slot.next = undefined;
      void this.run(user, slot, next.client).then(() => next.waiters.forEach((resolve) => resolve()));
    }, wait).unref();
  }

  /** A person's slot goes once a window has passed with nothing asked, so the map holds only recent Homes. */
  private forgetLater(user: string, slot: Slot): void {
    setTimeout(() => {
      if (this.slots.get(user) === slot && !slot.running && slot.next === undefined) this.slots.delete(user);
    }, this.windowMs).unref();
  }
}
