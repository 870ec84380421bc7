// Every Redis key of the project, built in one place; each carries the hash tag `{<prefix>}` (one Cluster slot).
import type { Target } from '../domain/model/target.js';
import { targetKey } from '../domain/model/target.js';

/** Same rule as REDIS_PREFIX in config.ts: no braces, so the hash tag is exactly `{<prefix>}`. */
const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** `{<prefix>}`: the hash tag every key starts with. Throws on a prefix that would break the tag. */
export function hashTag(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new Error(
      `Redis prefix "${prefix}" is not usable: 1-64 letters, digits, _, . or - (it becomes the hash tag {${prefix}})`,
    );
  }
  return `{${prefix}}`;
}

/** BullMQ's `prefix` option: the same hash tag, so BullMQ's keys share the slot with ours. */
export function bullmqPrefix(prefix: string): string {
  return hashTag(prefix);
}

export interface StoreKeys {
  readonly tag: string;
  /** JSON record of one operation. */
  operation(id: string): string;
  /** Every history entry of every operation (docs/lifecycle.md#records-and-the-event-stream), trimmed by age. */
  readonly events: string;
  /** zset createdAt → op id. */
  readonly recent: string;
  /** zset createdAt → op id, per target. */
  recentByTarget(target: Target): string;
  /** hash op id → state, non-terminal operations only (the sweep's worklist). */
  readonly active: string;
  /** zset expiresAt → op id, AWAITING_APPROVAL only. */
  readonly expiry: string;
  /** zset last write → namespace (for `list`). */
  readonly namespaces: string;
  /** zset order ticket → op id: the target's FIFO order (docs/lifecycle.md#queue-order-and-leases). */
  order(target: Target): string;
  /** Counter handing out order tickets. */
  readonly orderTickets: string;
  /** The target's execution lease. */
  lease(target: Target): string;
  /** set of lease keys that may be live (for `locks`). */
  readonly leases: string;
  /** hash target key → freeze JSON. */
  readonly freezes: string;
  /** stream of freeze/unfreeze commands. */
  readonly audit: string;
  /**
   * The audit trail (docs/audit.md): stream of sealed audit events (field `event`, entry id `<at ms>-<seq>`), the
   * chain's head (hash: `seq`, `hash`), the webhook's delivery position (string: last acknowledged seq) and the
   * lease of the one replica delivering it.
   */
  readonly auditChain: string;
  readonly auditHead: string;
  readonly auditWebhookPosition: string;
  readonly auditWebhookLease: string;
  /** Token of the process exporting the store-wide gauges (src/http/metric-sources.ts). */
  readonly metricsExporter: string;
  /** Present while some worker executes the cluster's queue (store/workers.ts). */
  workers(cluster: string): string;
  /**
   * zset createdAt → op id: break-glass operations not yet reviewed (store/break-glass.ts, docs/policy.md#break-glass).
   */
  readonly breakGlassUnreviewed: string;
  /**
   * hash target key → the after-COMPLETED watch of the target's last completed operation, per cluster
   * (store/after-completed.ts, docs/lifecycle.md#after-completed).
   */
  afterCompleted(cluster: string): string;
  /**
   * hash incident id → incident JSON, `target:<cluster>:<target key>` → current incident id, `message:<id>` → the
   * posted message JSON (store/alerts.ts, docs/alerts.md).
   */
  readonly alerts: string;
  /** zset incident id → when it goes (recoveredAt + retention), `+inf` while open (store/lua/observeIncident.lua). */
  readonly alertsIndex: string;
  /**
   * stream of incident changes for the notifier (consumer group `alerts`): fields `incident` (id), `version`,
   * `cluster`, `target` (target key).
   */
  readonly alertEvents: string;
  /** The turn to read a job's Flink REST, and the last reading (store/shared-readings.ts, docs/alerts.md#cost). */
  readingTurn(key: string): string;
  reading(key: string): string;
  /** Counter of one user's slash commands in one minute (store/command-rate.ts, docs/configuration.md#rate-limit). */
  commandRate(user: string, minute: number): string;
}

export function storeKeys(prefix: string): StoreKeys {
  const tag = hashTag(prefix);
  return {
    tag,
    operation: (id) => `${tag}:op:${id}`,
    events: `${tag}:events`,
    recent: `${tag}:ops:recent`,
    recentByTarget: (target) => `${tag}:ops:target:${targetKey(target)}`,
    active: `${tag}:ops:active`,
    expiry: `${tag}:ops:expiry`,
    namespaces: `${tag}:ops:namespaces`,
    order: (target) => `${tag}:order:${targetKey(target)}`,
    orderTickets: `${tag}:order-tickets`,
    lease: (target) => `${tag}:lease:${targetKey(target)}`,
    leases: `${tag}:leases`,
    freezes: `${tag}:freezes`,
    audit: `${tag}:audit`,
    auditChain: `${tag}:audit:chain`,
    auditHead: `${tag}:audit:head`,
    auditWebhookPosition: `${tag}:audit:webhook:position`,
    auditWebhookLease: `${tag}:audit:webhook:lease`,
    metricsExporter: `${tag}:metrics:exporter`,
    workers: (cluster) => `${tag}:workers:${cluster}`,
    breakGlassUnreviewed: `${tag}:break-glass:unreviewed`,
    afterCompleted: (cluster) => `${tag}:after-completed:${cluster}`,
    alerts: `${tag}:alerts`,
    alertsIndex: `${tag}:alerts:index`,
    alertEvents: `${tag}:alerts:events`,
    readingTurn: (key) => `${tag}:readings:turn:${key}`,
    reading: (key) => `${tag}:readings:value:${key}`,
    commandRate: (user, minute) => `${tag}:rate:commands:${user}:${minute}`,
  };
}

/** Keys of the Slack notifier's delivery state (src/store/delivery.ts). */
export interface NotifierKeys {
  /**
   * hash of one operation's Slack deliveries: `card` (last rendered seq), `post:<seq>` and
   * `digest:<start|end>:<channel>` (idempotency marks), `permalink` (the card thread's link).
   */
  delivery(opId: string): string;
  /** One replica at a time makes an operation's Slack calls; value = the holder's token. */
  lock(opId: string): string;
  /** The card claim: held (SET NX, renewed, token-checked) by the one poster of the operation's card (docs/lifecycle.md#the-sweep). */
  cardInFlight(opId: string): string;
  /** A Slack delivery (a `trigger_id` or `event_id`) already handled: a Socket Mode redelivery is dropped. */
  slackDelivery(id: string): string;
  /**
   * A signed HTTP request already admitted, by its `X-Slack-Signature` (src/store/seen-signatures.ts): a replay within
   * its window is refused (docs/deployment.md#request-limits).
   */
  seenSignature(signature: string): string;
  /** hash: the installation-wide post pace of one channel (src/store/pacing.ts, lua/paceChannel.lua). */
  pace(channel: string): string;
  /** hash: the coalescing window of one operation's card edits, shared by every replica (same script). */
  cardEdit(opId: string): string;
  /**
   * hash of one operation's approver DMs (src/store/dm-copies.ts): `copy:<seq>:<user>` → `{channel, ts, …}` of each
   * DM sent (so a decision can update every copy), `round:<seq>` once every DM of that round is settled.
   */
  dmCopies(opId: string): string;
}

export function notifierKeys(prefix: string): NotifierKeys {
  const tag = hashTag(prefix);
  return {
    delivery: (opId) => `${tag}:notifier:op:${opId}`,
    lock: (opId) => `${tag}:notifier:lock:${opId}`,
    cardInFlight: (opId) => `${tag}:notifier:card:${opId}`,
    slackDelivery: (id) => `${tag}:slack:delivery:${id}`,
    seenSignature: (signature) => `${tag}:slack:signature:${signature}`,
    pace: (channel) => `${tag}:notifier:pace:${channel}`,
    cardEdit: (opId) => `${tag}:notifier:card-edit:${opId}`,
    dmCopies: (opId) => `${tag}:notifier:dm:${opId}`,
  };
}
