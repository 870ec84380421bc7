// The audit webhook (docs/audit.md#the-webhook): one replica at a time, holding a Redis lease, POSTs every audit event
// after the stored delivery position to AUDIT_WEBHOOK_URL, in order, one at a time, signed with AUDIT_WEBHOOK_SECRET;
// it moves the position after each 2xx and retries the same event with backoff on anything else, never skipping one.
// At least once: a replica that dies between the POST and the position's move leaves that event to be sent again.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AuditDeliveryPosition, AuditLog } from '../app/ports/audit-log.js';
import type { AuditEvent } from '../domain/kit/audit/event.js';
import { redactUrl, type Config } from '../config.js';
import { exporterLease, type ExporterLease } from '../http/metric-sources.js';
import type { MetricsSources } from '../http/metrics.js';
import { createLogger, type Logger } from '../log.js';
import { slackAgent } from '../slack-client/proxy.js';
import type { RedisConnection, ReplicaWait } from '../store/connection.js';
import { storeKeys } from '../store/keys.js';

export const SIGNATURE_HEADER = 'x-flink-chatops-signature';
export const EVENT_ID_HEADER = 'x-flink-chatops-event-id';

/** `sha256=` and the hex HMAC-SHA256 of the body with the secret: the signature header's value. */
export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1000, maxMs: 60_000 };

/**
 * The pause before retry `attempt` (1 = the first retry): firstMs doubling, capped at maxMs, then jittered down by
 * up to a fifth (`random` in [0, 1)), so replicas that failed together do not retry together.
 */
export function backoffMs(attempt: number, backoff: Backoff = DEFAULT_BACKOFF, random = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(base * (1 - random() / 5));
}

export interface AuditWebhookOptions {
  redis: RedisConnection;
  prefix: string;
  log: Pick<AuditLog, 'head' | 'readAfter'>;
  position: AuditDeliveryPosition;
  /** config.audit.webhook */
  webhook: { url: string; secret: string };
  /** config.proxy: the same HTTPS_PROXY / HTTP_PROXY / NO_PROXY as Slack calls. */
  proxy?: Config['proxy'];
  logger?: Logger;
  /** How long the lease lasts unrenewed; renewed every third of it. Default 30 s. */
  leaseTtlMs?: number;
  /** How often the head is read while every event is delivered. Default 1 s. */
  pollMs?: number;
  /** How long one POST may take. Default 10 s. */
  timeoutMs?: number;
  /**
   * Waited for before each batch, so no event is delivered that a failover could still lose and give out again under
   * its seq (docs/audit.md#the-webhook).
   */
  replicas?: ReplicaWait;
  backoff?: Backoff;
  now?: () => number;
}

const BATCH = 100;

export class AuditWebhook {
  private readonly opts: AuditWebhookOptions;
  private readonly lease: ExporterLease;
  private readonly logger: Logger;
  private readonly agent: http.Agent | undefined;
  private readonly leaseTtlMs: number;
  private running = false;
  private holding = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(opts: AuditWebhookOptions) {
    const url = new URL(opts.webhook.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error('the audit webhook needs an http(s) URL');
    this.opts = opts;
    this.leaseTtlMs = opts.leaseTtlMs ?? 30_000;
    const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
    this.lease = exporterLease(opts.redis, storeKeys(opts.prefix).auditWebhookLease, token, this.leaseTtlMs);
    this.agent = slackAgent(opts.proxy);
    // The URL redacted; the secret and signatures are never logged.
    this.logger = (opts.logger ?? createLogger('silent')).child({
      component: 'audit-webhook',
      url: redactUrl(opts.webhook.url),
    });
  }

  /** Whether this replica holds the lease (is the one delivering) at the moment. */
  get delivering(): boolean {
    return this.holding;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const renew = () => void this.renew();
    this.renewTimer = setInterval(renew, Math.max(1, Math.floor(this.leaseTtlMs / 3)));
    this.renewTimer.unref();
    this.loop = this.renew().then(() => this.run());
  }

  /** Stops after the POST in flight (if any) and releases the lease, so another replica takes over at once. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.renewTimer);
    this.wake?.();
    await this.loop;
    this.holding = false;
    // Deletes the lease only while it carries this replica's token (a renewal may have raced the stop).
    await this.lease.release().catch((error: unknown) => this.logger.warn({ err: error }, 'lease not released'));
  }

  /** Seconds since the oldest event not yet delivered happened; 0 when every event is delivered. */
  async lagSeconds(): Promise<number> {
    const [oldest] = await this.opts.log.readAfter(await this.opts.position.get(), 1);
    if (oldest === undefined) return 0;
    return Math.max(0, ((this.opts.now ?? Date.now)() - Date.parse(oldest.at)) / 1000);
  }

  private async renew(): Promise<void> {
    try {
      const held = await this.lease.holds();
      if (held !== this.holding) this.logger.info(held ? 'took the delivery lease' : 'lost the delivery lease');
      this.holding = held && this.running;
    } catch (error) {
      if (this.holding) this.logger.warn({ err: error }, 'could not renew the delivery lease');
      this.holding = false;
    }
  }

  private async run(): Promise<void> {
    const pollMs = this.opts.pollMs ?? 1000;
    while (this.running) {
      try {
        if (!this.holding || !(await this.deliverPending())) await this.pause(pollMs);
      } catch (error) {
        this.logger.warn({ err: error }, 'could not read the audit chain');
        await this.pause(pollMs);
      }
    }
  }

  /** Delivers what follows the position; false when nothing did (caught up, or the lease went). */
  private async deliverPending(): Promise<boolean> {
    const at = await this.opts.position.get();
    if ((await this.opts.log.head()).seq <= at) return false;
    const events = await this.opts.log.readAfter(at, BATCH);
    await this.opts.replicas?.afterWrite(storeKeys(this.opts.prefix).auditHead);
    let delivered = false;
    for (const event of events) {
      if (!(await this.deliver(event))) break;
      delivered = true;
    }
    return delivered;
  }

  /** POSTs one event until a 2xx, then moves the position; false when stopped or the lease went first. */
  private async deliver(event: AuditEvent): Promise<boolean> {
    const body = JSON.stringify(event);
    for (let attempt = 1; ; attempt++) {
      if (!this.running || !this.holding) return false;
      const failure = await this.post(event.id, body).then(
        (status) => (status >= 200 && status < 300 ? undefined : `answered ${status}`),
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      if (failure === undefined) {
        await this.opts.position.advance(event.seq);
        return true;
      }
      const waitMs = backoffMs(attempt, this.opts.backoff);
      this.logger.warn({ eventId: event.id, seq: event.seq, attempt, retryInMs: waitMs }, `receiver ${failure}`);
      await this.pause(waitMs);
    }
  }

  private post(id: string, body: string): Promise<number> {
    const target = new URL(this.opts.webhook.url);
    const request = target.protocol === 'https:' ? https.request : http.request;
    const payload = Buffer.from(body, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'content-length': payload.length,
      [SIGNATURE_HEADER]: signature(body, this.opts.webhook.secret),
      [EVENT_ID_HEADER]: id,
    };
    return new Promise((resolve, reject) => {
      const req = request(
        target,
        {
          method: 'POST',
          headers,
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
          ...(this.agent ? { agent: this.agent } : {}),
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Waits `ms`, or less when stop() is called. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/**
 * `flink_chatops_audit_webhook_lag_seconds` for createMetrics: reported by the replica delivering only (the others
 * show 0), so `sum()` or `max()` over every pod's series is the installation's lag.
 */
export function auditWebhookSource(
  hook: Pick<AuditWebhook, 'delivering' | 'lagSeconds'>,
): Required<Pick<MetricsSources, 'collectAuditWebhookLag'>> {
  return { collectAuditWebhookLag: async () => (hook.delivering ? hook.lagSeconds() : undefined) };
}
