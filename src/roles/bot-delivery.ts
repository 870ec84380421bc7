// The bot role's Slack delivery from Redis streams: the notifier (cards, threads, digests, approver DMs) and the job
// alerts (docs/alerts.md#the-alert-message), with the same client settings, channel pace and lifetime.
import { hostname } from 'node:os';
import type { BotDeps } from '../app/context.js';
import { approverDirectory } from '../app/approvers.js';
import type { Config } from '../config.js';
import { AlertDelivery } from '../notifier/alert-delivery.js';
import { createNotifierClient, Notifier } from '../notifier/notifier.js';
import type { SharedPacer } from '../notifier/pacer.js';
import type { SlackCallObserver } from '../slack-client/instrument.js';
import { RedisAlertStore } from '../store/alerts.js';
import type { RedisConnection } from '../store/connection.js';

export interface DeliveryOptions {
  pacer: SharedPacer;
  consumer?: string;
  onSlackCall?: SlackCallObserver;
  cardEditWindowMs?: number;
  /** Deliveries wait while the acks of a burst go out (docs/operating.md#under-a-burst). */
  giveWay?: () => Promise<void>;
}

/** Starts both; resolves with what stops them (alerts first, then the notifier). */
export async function startDelivery(
  config: Config,
  deps: BotDeps,
  redis: RedisConnection,
  o: DeliveryOptions,
): Promise<() => Promise<void>> {
  const client = () =>
    createNotifierClient(config, { logger: deps.logger, ...(o.onSlackCall ? { onCall: o.onSlackCall } : {}) });
  const common = {
    redis,
    prefix: config.redis.prefix,
    consumer: o.consumer ?? `${hostname()}-${process.pid}`,
    command: config.slack.command,
    logger: deps.logger,
    now: deps.now,
    pacer: o.pacer,
    // A dead process's deliveries are taken over once its per-operation lock and stream claims lapse: a lease too.
    lockTtlMs: config.leaseTtlMs,
    claimIdleMs: config.leaseTtlMs,
    ...(o.giveWay ? { giveWay: o.giveWay } : {}),
  };
  const notifier = new Notifier({
    ...common,
    store: deps.store,
    client: client(),
    retentionMs: config.retention.recordsMs,
    ...(o.cardEditWindowMs === undefined ? {} : { cardEditWindowMs: o.cardEditWindowMs }),
    approvers: approverDirectory(deps.policy, deps.membership),
  });
  await notifier.start();
  const alerts = new AlertDelivery({
    ...common,
    store: new RedisAlertStore(redis, config.redis.prefix),
    client: client(),
    ...(o.cardEditWindowMs === undefined ? {} : { editWindowMs: o.cardEditWindowMs }),
  });
  try {
    await alerts.start();
  } catch (error) {
    await notifier.stop();
    throw error;
  }
  return async () => {
    await alerts.stop();
    await notifier.stop();
  };
}
