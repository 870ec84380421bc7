// Keeps a target lease alive for a whole run: renews every third of the TTL; losing it aborts the run's signal.
import type { Logger } from '../log.js';
import type { Lease, LockStore } from '../app/ports/index.js';

/** Why a run stopped without finishing: its AbortSignal's reason carries one of these. */
export class RunInterrupted extends Error {
  constructor(
    readonly why: 'lease-lost' | 'shutdown' | 'job-cancelled',
    message: string,
  ) {
    super(message);
    this.name = 'RunInterrupted';
  }
}

export class LeaseKeeper {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private lastRenewed: number;
  private renewing = false;

  constructor(
    private readonly leases: Pick<LockStore, 'extend'>,
    readonly lease: Lease,
    private readonly ttlMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.lastRenewed = now();
  }

  /** Aborted (with a RunInterrupted reason) once the lease is known lost or can no longer be proven held. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Never throws: a timer has nobody to throw to. */
  private async renew(): Promise<void> {
    if (this.renewing || this.controller.signal.aborted) return;
    this.renewing = true;
    try {
      const extended = await this.leases.extend(this.lease, this.ttlMs);
      if (extended) {
        this.lastRenewed = this.now();
        return;
      }
      this.lose('the lease expired or was taken over');
    } catch (error) {
      // A Redis blip: the lease still holds until its TTL runs out since the last renewal.
      const left = this.lastRenewed + this.ttlMs - this.now();
      this.logger.warn({ err: error, leftMs: left }, 'lease renewal failed; retrying');
      if (left <= this.ttlMs / 3) this.lose(`the lease could not be renewed: ${(error as Error).message}`);
    } finally {
      this.renewing = false;
    }
  }

  private lose(why: string): void {
    if (this.controller.signal.aborted) return;
    this.stop();
    this.logger.warn({ target: this.lease.target, why }, 'lease lost; the run stops and the operation is handed back');
    this.controller.abort(
      new RunInterrupted(
        'lease-lost',
        `lease on ${this.lease.target.namespace}/${this.lease.target.name} lost: ${why}`,
      ),
    );
  }
}
