// Job-alert incidents on Redis (docs/alerts.md#one-incident-per-job): one hash of incidents, the target → incident
// pointers and the posted messages, an index of open and recovered incidents, and the stream the notifier reads.
// Every observation runs as one Lua script (lua/observeIncident.lua), so replicas change an incident once.
import { randomBytes } from 'node:crypto';
import type {
  AlertKind,
  AlertSignal,
  AlertStore,
  Incident,
  IncidentMessage,
  ObserveInput,
  ObserveResult,
} from '../app/ports/alerts.js';
import { newOperationId } from '../domain/engines/operation.js';
import { TargetSchema, targetKey, type Target } from '../domain/model/target.js';
import type { RedisConnection } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { defineScripts, runScript } from './scripts.js';

/** How long a recovered incident stays readable (and its message editable) before it goes. */
export const DEFAULT_ALERT_RETENTION_MS = 7 * 24 * 3_600_000;
/**
 * The order signals are stored in (the port's kinds; the store may import only its types). The check below fails to
 * compile when the port gains a kind this list lacks.
 */
const KIND_ORDER = ['job-failed', 'restarting', 'checkpoints-failing', 'jobmanager-error'] as const;
const COVERS_EVERY_KIND: Exclude<AlertKind, (typeof KIND_ORDER)[number]> extends never ? true : never = true;
void COVERS_EVERY_KIND;
const KINDS: readonly string[] = KIND_ORDER;
/** A new id is drawn this often at most when the drawn one is taken (~52 bits: practically never). */
const ID_ATTEMPTS = 5;

export interface AlertStoreOptions {
  /** Default 7 days. */
  retentionMs?: number;
  /** `crypto.randomBytes` by default; incident ids come from it. */
  random?: (size: number) => Uint8Array;
}

type ObserveReply = ['changed', string] | ['same', string] | ['none'] | ['taken'];

export class RedisAlertStore implements AlertStore {
  private readonly keys: StoreKeys;
  private readonly retentionMs: number;
  private readonly random: (size: number) => Uint8Array;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    opts: AlertStoreOptions = {},
  ) {
    this.keys = storeKeys(prefix);
    this.retentionMs = checkedAlertRetention(opts.retentionMs);
    this.random = opts.random ?? ((size) => randomBytes(size));
    defineScripts(redis);
  }

  async observe(input: ObserveInput): Promise<ObserveResult> {
    const observation = checkedObservation(input);
    const keys = [this.keys.alerts, this.keys.alertsIndex, this.keys.alertEvents];
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
      const args = [
        targetField(input.cluster, input.target),
        newIncidentId(this.random),
        JSON.stringify(observation),
        String(input.now),
        String(this.retentionMs),
        targetKey(input.target),
        String(Math.max(0, input.now - this.retentionMs)),
      ];
      const reply = (await runScript(this.redis, 'observeIncident', keys, args)) as ObserveReply;
      if (reply[0] === 'none') return { changed: false };
      if (reply[0] !== 'taken') return { changed: reply[0] === 'changed', incident: parseIncident(reply[1]) };
    }
    throw new Error(`no free incident id after ${ID_ATTEMPTS} attempts: the random source repeats itself`);
  }

  async get(cluster: string, target: Target): Promise<Incident | undefined> {
    const id = await this.redis.hget(this.keys.alerts, targetField(cluster, target));
    if (id === null) return undefined;
    const json = await this.redis.hget(this.keys.alerts, id);
    return json === null ? undefined : parseIncident(json);
  }

  async listOpen(): Promise<Incident[]> {
    const ids = await this.redis.zrangebyscore(this.keys.alertsIndex, '+inf', '+inf');
    if (ids.length === 0) return [];
    const all = await this.redis.hmget(this.keys.alerts, ...ids);
    return all
      .filter((json): json is string => json !== null)
      .map(parseIncident)
      .sort((a, b) => a.openedAt - b.openedAt || a.id.localeCompare(b.id));
  }

  async message(incidentId: string): Promise<IncidentMessage | undefined> {
    const json = await this.redis.hget(this.keys.alerts, messageField(incidentId));
    return json === null ? undefined : (JSON.parse(json) as IncidentMessage);
  }

  async setMessage(incidentId: string, message: IncidentMessage): Promise<boolean> {
    checkMessage(incidentId, message);
    const json = JSON.stringify({ channel: message.channel, ts: message.ts });
    return (await this.redis.hsetnx(this.keys.alerts, messageField(incidentId), json)) === 1;
  }
}

/** The hash field pointing at a target's current incident; the cluster is part of it ('' for a single cluster). */
export function targetField(cluster: string, target: Target): string {
  return `target:${cluster}:${targetKey(target)}`;
}

function messageField(incidentId: string): string {
  return `message:${incidentId}`;
}

/** `inc-` + 10 lowercase base-36 characters. */
export function newIncidentId(random: (size: number) => Uint8Array): string {
  return `inc-${newOperationId(() => random(16)).slice('op-'.length)}`;
}

export function checkedAlertRetention(retentionMs: number = DEFAULT_ALERT_RETENTION_MS): number {
  if (!(Number.isFinite(retentionMs) && retentionMs > 0)) {
    throw new Error(`the alert retention must be a positive number of ms, got ${retentionMs}`);
  }
  return retentionMs;
}

/** What both stores accept, its signals one per kind in the port's kind order; anything else throws. */
export function checkedObservation(input: ObserveInput): Omit<ObserveInput, 'now'> {
  if (!Number.isFinite(input.now)) throw new Error('an alert observation needs its time (ms)');
  if (!TargetSchema.safeParse(input.target).success) throw new Error('an alert observation needs a valid target');
  if (input.rule.trim() === '') throw new Error('an alert observation needs the name of its alerts entry');
  if (input.channel.trim() === '') throw new Error('an alert observation needs the channel to post in');
  const kinds = new Set<string>();
  for (const s of input.signals) checkSignal(s, kinds);
  const signals = [...input.signals]
    .sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind))
    .map((s) => ({ kind: s.kind, since: s.since, summary: s.summary, source: s.source }));
  return {
    cluster: input.cluster,
    target: input.target,
    rule: input.rule,
    channel: input.channel,
    ...(input.mention === undefined ? {} : { mention: input.mention }),
    signals,
  };
}

function checkSignal(s: AlertSignal, kinds: Set<string>): void {
  if (!KINDS.includes(s.kind)) throw new Error(`"${s.kind}" is not an alert kind`);
  if (kinds.has(s.kind)) throw new Error(`an alert observation lists "${s.kind}" twice`);
  kinds.add(s.kind);
  if (!Number.isFinite(s.since)) throw new Error(`the "${s.kind}" signal needs the time it was first seen`);
  if (s.summary.trim() === '') throw new Error(`the "${s.kind}" signal needs a summary`);
}

export function checkMessage(incidentId: string, message: IncidentMessage): void {
  if (!incidentId.startsWith('inc-')) throw new Error(`"${incidentId}" is not an incident id`);
  if (message.channel.trim() === '' || message.ts.trim() === '') throw new Error('a message needs its channel and ts');
}

/** An incident as the script stored it: cjson writes an empty list as `{}`, and the pointer key stays inside. */
export function parseIncident(json: string): Incident {
  const { targetKey: _pointer, ...stored } = JSON.parse(json) as Incident & { targetKey?: string };
  return {
    ...stored,
    signals: Array.isArray(stored.signals) ? stored.signals : [],
    seen: Array.isArray(stored.seen) ? stored.seen : [],
  };
}
