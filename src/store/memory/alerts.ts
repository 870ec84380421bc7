// The in-memory twin of the job-alert incidents (store/alerts.ts, lua/observeIncident.lua), with the alert stream
// kept as a list the tests read.
import { randomBytes } from 'node:crypto';
import type {
  AlertSignal,
  AlertStore,
  Incident,
  IncidentMessage,
  ObserveInput,
  ObserveResult,
} from '../../app/ports/alerts.js';
import { targetKey, type Target } from '../../domain/model/target.js';
import {
  checkedAlertRetention,
  checkedObservation,
  checkMessage,
  newIncidentId,
  targetField,
  type AlertStoreOptions,
} from '../alerts.js';
import { viaJson } from './sorted.js';

/** One entry of the alert stream, as the notifier reads it (fields of store/keys.ts `alertEvents`). */
export interface AlertEvent {
  incident: string;
  version: number;
  cluster: string;
  target: string;
}

export class MemoryAlertStore implements AlertStore {
  private readonly incidents = new Map<string, Incident>();
  /** target field → current incident id. */
  private readonly current = new Map<string, string>();
  /** incident id → ms it goes; absent while open. */
  private readonly goes = new Map<string, number>();
  private readonly messages = new Map<string, IncidentMessage>();
  private readonly retentionMs: number;
  private readonly random: (size: number) => Uint8Array;
  /** Every change, in order: what the Redis store appends to its stream. */
  readonly events: AlertEvent[] = [];

  constructor(opts: AlertStoreOptions = {}) {
    this.retentionMs = checkedAlertRetention(opts.retentionMs);
    this.random = opts.random ?? ((size) => randomBytes(size));
  }

  async observe(input: ObserveInput): Promise<ObserveResult> {
    const seen = checkedObservation(input);
    this.purge(input.now);
    const field = targetField(input.cluster, input.target);
    const id = this.current.get(field);
    const current = id === undefined ? undefined : this.incidents.get(id);
    if (current === undefined || current.recoveredAt !== undefined) {
      if (seen.signals.length === 0) return { changed: false };
      return this.record(field, this.opened(seen, input.now));
    }
    if (seen.signals.length === 0) {
      this.goes.set(current.id, input.now + this.retentionMs);
      return this.record(field, {
        ...current,
        signals: [],
        recoveredAt: input.now,
        updatedAt: input.now,
        version: current.version + 1,
      });
    }
    const since = new Map(current.signals.map((s) => [s.kind, s.since]));
    const signals = seen.signals.map((s) => ({ ...s, since: since.get(s.kind) ?? s.since }));
    if (sameSignals(current.signals, signals)) return { changed: false, incident: viaJson(current) };
    const kinds = [...current.seen, ...signals.map((s) => s.kind).filter((k) => !current.seen.includes(k))];
    return this.record(field, { ...current, signals, seen: kinds, updatedAt: input.now, version: current.version + 1 });
  }

  async get(cluster: string, target: Target): Promise<Incident | undefined> {
    const id = this.current.get(targetField(cluster, target));
    const incident = id === undefined ? undefined : this.incidents.get(id);
    return incident === undefined ? undefined : viaJson(incident);
  }

  async listOpen(): Promise<Incident[]> {
    return [...this.incidents.values()]
      .filter((i) => i.recoveredAt === undefined)
      .sort((a, b) => a.openedAt - b.openedAt || a.id.localeCompare(b.id))
      .map((i) => viaJson(i));
  }

  async message(incidentId: string): Promise<IncidentMessage | undefined> {
    const message = this.messages.get(incidentId);
    return message === undefined ? undefined : viaJson(message);
  }

  async setMessage(incidentId: string, message: IncidentMessage): Promise<boolean> {
    checkMessage(incidentId, message);
    if (this.messages.has(incidentId)) return false;
    this.messages.set(incidentId, { channel: message.channel, ts: message.ts });
    return true;
  }

  private opened(seen: ReturnType<typeof checkedObservation>, now: number): Incident {
    let id = newIncidentId(this.random);
    while (this.incidents.has(id)) id = newIncidentId(this.random);
    return {
      id,
      cluster: seen.cluster,
      target: seen.target,
      rule: seen.rule,
      channel: seen.channel,
      ...(seen.mention === undefined ? {} : { mention: seen.mention }),
      openedAt: now,
      updatedAt: now,
      signals: seen.signals,
      seen: seen.signals.map((s) => s.kind),
      version: 1,
    };
  }

  private record(field: string, incident: Incident): ObserveResult {
    this.incidents.set(incident.id, viaJson(incident));
    this.current.set(field, incident.id);
    const target = targetKey(incident.target);
    this.events.push({ incident: incident.id, version: incident.version, cluster: incident.cluster, target });
    return { changed: true, incident: viaJson(incident) };
  }

  private purge(now: number): void {
    for (const [id, at] of this.goes) {
      if (at > now) continue;
      const incident = this.incidents.get(id);
      if (incident !== undefined) {
        const field = targetField(incident.cluster, incident.target);
        if (this.current.get(field) === id) this.current.delete(field);
      }
      this.incidents.delete(id);
      this.messages.delete(id);
      this.goes.delete(id);
    }
  }
}

function sameSignals(a: AlertSignal[], b: AlertSignal[]): boolean {
  return (
    a.length === b.length &&
    a.every((s, i) => s.kind === b[i]?.kind && s.summary === b[i]?.summary && s.source === b[i]?.source)
  );
}
