// The notifier's blocking reads of the event stream, on a socket of their own, with a deadline: after a failover
// ioredis resends a read that was cut, and that resent read can stay unanswered for good while the socket looks alive
// (docs/configuration.md#redis-modes). A read past its deadline gets a fresh socket, and the entries the lost read
// may have been handed (pending for this consumer) are read again.
import type { Logger } from '../log.js';
import { blockingReadDeadline, duplicateConnection, type RedisConnection } from '../store/connection.js';
import type { NotifierStream, RawEntry } from '../store/notifier-stream.js';

export interface StreamReaderOptions {
  /** The notifier's command connection: duplicated for the blocking reads, and used for the re-read. */
  redis: RedisConnection;
  stream: NotifierStream;
  /** XREADGROUP BLOCK, ms. */
  blockMs: number;
  /** A read unanswered this long after its BLOCK ran out is taken as lost. */
  graceMs: number;
  log: Logger;
}

/** How many of this consumer's pending entries are read at start and after a lost read. */
const PENDING_COUNT = 10_000;

export class StreamReader {
  private blocking: RedisConnection | undefined;

  constructor(private readonly opts: StreamReaderOptions) {}

  /** This consumer's entries delivered before and never acknowledged (a restart under the same name). */
  pending(): Promise<RawEntry[]> {
    return this.opts.stream.read(this.opts.redis, '0', PENDING_COUNT);
  }

  /** New entries (`>`), waiting up to BLOCK; after a lost read, this consumer's pending ones. */
  async next(count: number): Promise<RawEntry[]> {
    const { stream, blockMs, graceMs, log } = this.opts;
    this.blocking ??= this.connect();
    const startedAt = Date.now();
    const entries = await stream.read(this.blocking, '>', count, blockMs);
    if (entries.length > 0 || Date.now() - startedAt < blockMs + graceMs) return entries;
    log.warn({ deadlineMs: blockMs + graceMs }, 'an event stream read went unanswered; reading again on a new socket');
    this.close();
    this.blocking = this.connect();
    return this.pending();
  }

  close(): void {
    this.blocking?.disconnect();
    this.blocking = undefined;
  }

  /** Waits through a reconnect or failover like the worker's connections (store/connection.ts), up to the deadline. */
  private connect(): RedisConnection {
    const connection = duplicateConnection(this.opts.redis, 'worker', blockingReadDeadline(this.opts.graceMs));
    connection.on('error', (error: Error) =>
      this.opts.log.warn({ err: error }, 'Redis connection error (event stream reads); reconnecting'),
    );
    return connection;
  }
}
