// ioredis' Sentinel client, made to outlive a race of its own (docs/configuration.md#redis-modes): the failover
// detector (`failoverDetector`, subscribed to the sentinels' +switch-master) closes the connector when a promotion is
// announced. If the client is just then reconnecting (the old primary died, the sentinels are being asked again), the
// connect in progress fails with "Connection is closed." and the client ends for good: from then on every command
// fails at once, and nothing reconnects it. Nobody asked for that end, so this client connects again.
import { Redis, type RedisOptions } from 'ioredis';

/** How long after an end nobody asked for the client connects again. */
export const RECONNECT_AFTER_END_MS = 100;

const STATUSES = ['connecting', 'connect', 'ready', 'close', 'reconnecting'] as const;
type Status = (typeof STATUSES)[number];

export class SentinelRedis extends Redis {
  /** How many ends nobody asked for this client healed (the tests read it). */
  healedEnds = 0;

  constructor(options: RedisOptions) {
    super(options);
    let last: Status | undefined;
    for (const status of STATUSES) this.on(status, () => (last = status));
    this.on('end', () => {
      // An end we asked for (disconnect or QUIT) leaves ioredis' `manuallyClosing` set when it came straight from a
      // connect in progress, and passes through 'close' otherwise. Only the connect the detector cut ends from
      // 'connecting' without it.
      const asked = (this as unknown as { manuallyClosing?: boolean }).manuallyClosing !== false;
      if (last !== 'connecting' || asked) return;
      this.healedEnds += 1;
      setTimeout(() => {
        if (this.status === 'end') this.connect().catch(() => undefined);
      }, RECONNECT_AFTER_END_MS).unref();
    });
  }

  /** A copy (BullMQ makes its blocking connections so) heals itself too. */
  override duplicate(override?: Partial<RedisOptions>): SentinelRedis {
    return new SentinelRedis({ ...this.options, ...override });
  }
}
