// The job-alert watch of one cluster's worker (docs/alerts.md): the jobs a policy `alerts:` entry matches, seen through
// the process's shared watches (status and JobException warnings) and Flink REST at most once a minute per running
// job, whichever replica reads it; what is wrong is recorded in the alert store, which the notifier renders. The
// worker never calls Slack.
import type { AlertKind, AlertSignal, AlertStore, Incident } from '../app/ports/alerts.js';
import type { PolicyProvider } from '../app/policy-source.js';
import type { SharedReadings } from '../app/ports/shared-readings.js';
import { alertNamespaces, alertRuleFor, type AlertRule } from '../domain/engines/policy/alerts.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { isSessionCluster } from '../domain/model/resource.js';
import type { Target, TargetKind } from '../domain/model/target.js';
import type { KubeObject } from '../kube/flink-client.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import type { Lister, WatchEventType, WatchHub } from '../kube/watch-hub.js';
import type { Logger } from '../log.js';
import { JobAlertRestReads, type RestReadable } from './job-alert-rest.js';
import { JobAlertState, signalsOf } from './job-alert-signals.js';

export interface JobAlertTiming {
  /** How often every job is judged again and due REST reads start (default 5 s). */
  tickMs: number;
  /** How often every watched job is observed even without a change, so a restarted worker re-syncs (default 60 s). */
  resyncMs: number;
  /** At most one REST read (numRestarts and checkpoints) per job this often (default 60 s). */
  restIntervalMs: number;
}

export const DEFAULT_JOB_ALERT_TIMING: JobAlertTiming = { tickMs: 5_000, resyncMs: 60_000, restIntervalMs: 60_000 };
const JOB_KINDS = ['FlinkDeployment', 'FlinkSessionJob'] as const satisfies readonly TargetKind[];

export interface JobAlertDeps {
  store: AlertStore;
  hub: Pick<WatchHub, 'subscribe' | 'stats'>;
  /** Lists a namespace once when its shared watch was already running (its first list went to others). */
  list: Lister;
  rest: FlinkRest | undefined;
  /** Where the worker replicas share their REST readings (one read per job and interval); absent: each reads. */
  readings?: SharedReadings;
  policy: PolicyProvider;
  /** The cluster this worker executes, and whether targets carry it (several clusters). */
  cluster: string;
  several: boolean;
  logger: Logger;
  now: () => number;
  /** FAILURE_GRACE: how long a JobManager ERROR lasts before it is an alert. */
  failureGraceMs: number;
  timing?: Partial<JobAlertTiming>;
  random?: () => number;
}

interface WatchedJob extends RestReadable {
  target: Target;
  rule: AlertRule | undefined;
  state: JobAlertState;
  /** When this worker first saw each kind firing (the store keeps the incident's own). */
  since: Map<AlertKind, number>;
  /** The open incident's signals as the store last answered. */
  open: AlertSignal[];
  /** What was last told to the store; undefined: tell it at the next judgement. */
  sent: string | undefined;
  chain: Promise<void>;
  restDueAt: number;
  reading: boolean;
}

export class JobAlertWatcher {
  private readonly timing: JobAlertTiming;
  private readonly jobs = new Map<string, WatchedJob>();
  private readonly namespaces = new Map<string, Promise<void>>();
  /** Namespaces whose jobs have all been seen once. */
  private readonly listed = new Set<string>();
  /** Open incidents of this cluster read at start, by local key, for jobs not seen yet. */
  private seeded = new Map<string, Incident>();
  private policy: Policy | undefined;
  private policyHash: string | undefined;
  private unsubscribers: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastResync = 0;
  private readonly reads: JobAlertRestReads<WatchedJob>;
  private closed = false;

  constructor(private readonly deps: JobAlertDeps) {
    this.timing = { ...DEFAULT_JOB_ALERT_TIMING, ...deps.timing };
    this.reads = new JobAlertRestReads({
      rest: deps.rest,
      ...(deps.readings ? { readings: deps.readings } : {}),
      cluster: deps.cluster,
      intervalMs: this.timing.restIntervalMs,
      now: deps.now,
      logger: deps.logger,
      onRead: (job) => this.judge(job),
    });
  }

  /** Reads the open incidents and the policy, subscribes to the namespaces it names, then keeps ticking. */
  async start(): Promise<void> {
    try {
      const open = await this.deps.store.listOpen();
      const mine = open.filter((i) => i.cluster === this.incidentCluster);
      this.seeded = new Map(mine.map((i) => [localKey(i.target), i]));
    } catch (error) {
      this.deps.logger.warn({ err: error, cluster: this.deps.cluster }, 'could not read the open job alerts');
    }
    this.lastResync = this.deps.now();
    await this.tick();
    this.settleSeeded();
    const loop = (): void => {
      this.timer = setTimeout(() => void this.tick().finally(() => this.closed || loop()), this.timing.tickMs);
      this.timer.unref();
    };
    loop();
  }

  /**
   * An incident read at start whose job was not seen in its (listed) namespace, or that no entry matches any more:
   * the job is gone or no longer watched, so the incident is over.
   */
  private settleSeeded(): void {
    for (const [key, incident] of this.seeded) {
      const matched = this.policy !== undefined && alertRuleFor(this.policy, this.deps.cluster, incident.target);
      if (matched && !this.listed.has(incident.target.namespace)) continue;
      this.seeded.delete(key);
      const input = {
        cluster: incident.cluster,
        target: incident.target,
        rule: incident.rule,
        channel: incident.channel,
      };
      void this.deps.store
        .observe({ ...input, signals: [], now: this.deps.now() })
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, incident: incident.id }, 'could not end a job alert'),
        );
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const off of this.unsubscribers) off();
    this.unsubscribers = [];
    this.reads.close();
    this.jobs.clear();
  }

  /** Every job this worker watches for alerts now (tests, bench). */
  watched(): Target[] {
    return [...this.jobs.values()].filter((j) => j.rule !== undefined).map((j) => j.target);
  }

  private get incidentCluster(): string {
    return this.deps.several ? this.deps.cluster : '';
  }

  private async tick(): Promise<void> {
    try {
      await this.refreshPolicy();
      const now = this.deps.now();
      const resync = now - this.lastResync >= this.timing.resyncMs;
      if (resync) this.lastResync = now;
      for (const job of this.jobs.values()) {
        if (job.rule === undefined) continue;
        if (resync) job.sent = undefined;
        this.judge(job);
        this.reads.due(job, now);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error, cluster: this.deps.cluster }, 'the job-alert watch could not look again');
    }
  }

  private async refreshPolicy(): Promise<void> {
    const state = await this.deps.policy.current();
    if (!state.ok) return;
    // By content: a provider may hand out a new object for the same file.
    const changed = state.hash !== this.policyHash;
    this.policy = state.policy;
    this.policyHash = state.hash;
    if (changed) for (const job of this.jobs.values()) this.setRule(job);
    const wanted = alertNamespaces(state.policy, this.deps.cluster);
    await Promise.all(wanted.map((ns) => this.watchNamespace(ns)));
  }

  private watchNamespace(namespace: string): Promise<void> {
    let pending = this.namespaces.get(namespace);
    if (pending === undefined) {
      pending = this.subscribe(namespace).catch((error: unknown) => {
        this.namespaces.delete(namespace);
        this.deps.logger.warn({ err: error, namespace }, 'could not watch a namespace for job alerts');
      });
      this.namespaces.set(namespace, pending);
    }
    return pending;
  }

  /** Jobs first, then their events (a warning needs its job known); a watch others started is listed once. */
  private async subscribe(namespace: string): Promise<void> {
    const running = new Set(this.deps.hub.stats().map((s) => s.key));
    for (const kind of [...JOB_KINDS, 'Event'] as const) {
      const listener = (type: WatchEventType, object: KubeObject): void => {
        if (this.closed) return;
        if (kind === 'Event') this.onEvent(type, object);
        else this.onJob(kind, type, object);
      };
      this.unsubscribers.push(await this.deps.hub.subscribe(kind, namespace, listener));
      if (running.has(`${kind}/${namespace}`)) {
        const { items } = await this.deps.list(kind, namespace);
        for (const item of items) listener('RELISTED', item);
      }
    }
    this.listed.add(namespace);
  }

  private onJob(kind: TargetKind, type: WatchEventType, object: KubeObject): void {
    const { namespace, name } = object.metadata ?? {};
    if (namespace === undefined || name === undefined) return;
    const key = localKey({ kind, namespace, name });
    if (type === 'DELETED') {
      const job = this.jobs.get(key);
      if (job) this.forget(key, job);
      return;
    }
    if (kind === 'FlinkDeployment' && isSessionCluster(object)) return;
    let job = this.jobs.get(key);
    if (job === undefined) {
      job = this.track(key, { kind, namespace, name });
      if (job === undefined) return;
    }
    job.state.onResource(object, this.deps.now());
    this.judge(job);
  }

  private onEvent(type: WatchEventType, object: KubeObject): void {
    const involved = (object as { involvedObject?: { kind?: string; name?: string } }).involvedObject;
    const namespace = object.metadata?.namespace;
    if (involved?.kind === undefined || involved.name === undefined || namespace === undefined) return;
    const job = this.jobs.get(localKey({ kind: involved.kind, namespace, name: involved.name }));
    if (job?.rule === undefined) return;
    if (type === 'DELETED') return job.state.onEventGone(object);
    job.state.onEvent(object, this.deps.now());
    this.judge(job);
  }

  private track(key: string, local: Omit<Target, 'cluster'>): WatchedJob | undefined {
    const target: Target = this.deps.several ? { ...local, cluster: this.deps.cluster } : local;
    const now = this.deps.now();
    const seeded = this.seeded.get(key);
    this.seeded.delete(key);
    const job: WatchedJob = {
      target,
      rule: undefined,
      state: new JobAlertState(now),
      since: new Map(),
      open: seeded?.signals ?? [],
      sent: undefined,
      chain: Promise.resolve(),
      // The first reads of many jobs spread over one interval.
      restDueAt: now + Math.floor((this.deps.random ?? Math.random)() * this.timing.restIntervalMs),
      reading: false,
    };
    this.jobs.set(key, job);
    this.setRule(job);
    return job;
  }

  private setRule(job: WatchedJob): void {
    const rule = this.policy === undefined ? undefined : alertRuleFor(this.policy, this.deps.cluster, job.target);
    const had = job.rule !== undefined;
    job.rule = rule;
    job.sent = undefined;
    // A job no entry watches any more: its incident is over.
    if (had && rule === undefined && job.open.length > 0) this.observe(job, []);
  }

  private forget(key: string, job: WatchedJob): void {
    this.jobs.delete(key);
    if (job.rule !== undefined && job.open.length > 0) this.observe(job, []);
  }

  /** Judges the job and tells the store when what it shows differs from what it was last told. */
  private judge(job: WatchedJob): void {
    if (job.rule === undefined) return;
    const now = this.deps.now();
    const judgements = job.state.judge(job.rule, now, this.deps.failureGraceMs);
    const signals = signalsOf(judgements, job.open, job.since, now);
    const digest = JSON.stringify(signals.map((s) => [s.kind, s.summary, s.source]));
    if (digest === job.sent) return;
    job.sent = digest;
    this.observe(job, signals);
  }

  private observe(job: WatchedJob, signals: AlertSignal[]): void {
    const rule = job.rule;
    if (rule === undefined && signals.length > 0) return;
    const input = {
      cluster: this.incidentCluster,
      target: job.target,
      rule: rule?.name ?? 'none',
      channel: rule?.channel ?? 'none',
      ...(rule?.mention === undefined ? {} : { mention: rule.mention }),
      signals,
      now: this.deps.now(),
    };
    job.chain = job.chain.then(async () => {
      try {
        const result = await this.deps.store.observe(input);
        const incident = result.incident;
        job.open = incident !== undefined && incident.recoveredAt === undefined ? incident.signals : [];
        if (result.changed)
          this.deps.logger.info(
            {
              incident: incident?.id,
              target: `${job.target.namespace}/${job.target.name}`,
              version: incident?.version,
            },
            incident?.recoveredAt === undefined ? 'job alert raised or changed' : 'job alert recovered',
          );
      } catch (error) {
        job.sent = undefined;
        this.deps.logger.warn({ err: error, target: job.target }, 'could not record a job alert');
      }
    });
  }
}

/** One worker watches one cluster: kind, namespace and name tell its jobs apart (an event names no cluster). */
function localKey(target: { kind: string; namespace: string; name: string }): string {
  return `${target.kind}/${target.namespace}/${target.name}`;
}
