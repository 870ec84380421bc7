// Socket Mode's link as readiness sees it (docs/operating.md#health-metrics-and-logs): up from Slack's `hello` until
// the connection closes or is being replaced; a bot whose socket stays down is not ready.

/** What Bolt's SocketModeClient emits about its connection (@slack/socket-mode `State`, plus the socket's `close`). */
const DOWN_EVENTS = ['connecting', 'reconnecting', 'disconnecting', 'disconnected', 'close'] as const;

export interface SocketEvents {
  on(event: string, listener: () => void): unknown;
}

export class SocketLink {
  private state = 'not started';
  private changedAt: number;
  private up = false;
  /** Times the link came up (1 after the first `hello`). */
  connects = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.changedAt = now();
  }

  /** Follows a SocketModeClient (Bolt's `SocketModeReceiver.client`). */
  watch(client: SocketEvents): void {
    client.on('connected', () => {
      this.up = true;
      this.connects += 1;
      this.set('connected');
    });
    for (const event of DOWN_EVENTS) {
      client.on(event, () => {
        this.up = false;
        this.set(event === 'close' ? 'closed' : event);
      });
    }
  }

  get connected(): boolean {
    return this.up;
  }

  /** Why it is not ready, e.g. `Socket Mode link reconnecting for 4.2s`. */
  describe(): string {
    if (this.up) return 'Socket Mode link connected';
    const seconds = ((this.now() - this.changedAt) / 1000).toFixed(1);
    return `Socket Mode link ${this.state} for ${seconds}s`;
  }

  private set(state: string): void {
    // `closed` then `reconnecting` then `connecting`: the down time counts from the first of them.
    if (this.up || this.state === 'connected' || this.state === 'not started') this.changedAt = this.now();
    this.state = state;
  }
}
