// False job alerts of a healthy fleet (docs/alerts.md#how-a-stall-is-judged): many healthy jobs, checkpoint intervals
// from 5 s to 10 min, checkpoints now and then slower than their interval, now and then a task failover (one every
// few hours at most, back within half a minute: what Flink calls a healthy job), Flink REST read once a minute and
// every job judged every 5 s as the worker does, all in virtual time. Prints the false alerts per healthy job-hour
// (goal: 0) and the job-hours simulated. Numbers only; nothing is asserted.
// Usage: npm run bench:alerts-soak [-- --jobs 240 --hours 3 --seed 1]
import type { AlertKind, AlertSignal } from '../src/app/ports/alerts.js';
import type { AlertRule } from '../src/domain/engines/policy/alerts.js';
import { JobAlertState, signalsOf } from '../src/worker/job-alert-signals.js';
import { HealthyCheckpointingJob } from '../test/support/flink-checkpoint-model.js';

const S = 1_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2030, 0, 1);
const TICK = 5 * S;
const READ = MIN;
const INTERVALS = ['5s', '10s', '15s', '30s', '1m', '2m', '5m', '10m'];
/** Task failovers per job-hour: one every four hours on average. */
const FAILOVERS_PER_HOUR = 0.25;
const RULE: AlertRule = {
  name: 'soak',
  channel: 'C0SOAK',
  restarts: { count: 3, window: '10m', windowMs: 10 * MIN },
  checkpoints: { failures: 3 },
};

interface Params {
  jobs: number;
  hours: number;
  seed: number;
}

function parseParams(argv: string[]): Params {
  const p: Params = { jobs: 240, hours: 3, seed: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Params;
    const value = Number(argv[i + 1]);
    if (!(key in p) || !(value > 0))
      throw new Error(`usage: bench/alerts-soak.ts [--jobs N] [--hours N] [--seed N]; bad "${argv[i]} ${argv[i + 1]}"`);
    p[key] = value;
  }
  return p;
}

function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const ms = (interval: string): number => Number(interval.slice(0, -1)) * (interval.endsWith('m') ? MIN : S);

/** One healthy job: its resource, its JobManager, its failovers (each also a JobException warning). */
function healthyJob(i: number, hours: number, random: () => number) {
  const interval = INTERVALS[i % INTERVALS.length] as string;
  const intervalMs = ms(interval);
  const failovers: { at: number; recoveryMs: number }[] = [];
  for (let at = T0 + random() * HOUR; at < T0 + hours * HOUR; at += (random() * 2 * HOUR) / FAILOVERS_PER_HOUR)
    failovers.push({ at: Math.round(at), recoveryMs: Math.round(3 * S + random() * 27 * S) });
  const durationMs = () =>
    random() < 0.05 ? Math.min(2.5 * intervalMs, 5 * MIN) : 100 + random() * Math.min(intervalMs, 8 * S);
  const jobId = i.toString(16).padStart(32, '0');
  const resource = {
    kind: 'FlinkDeployment',
    metadata: { name: `job-${i}`, namespace: 'soak', uid: `u${i}` },
    spec: { flinkConfiguration: { 'execution.checkpointing.interval': interval }, job: { jarURI: 'local:///x.jar' } },
    status: { jobManagerDeploymentStatus: 'READY', jobStatus: { state: 'RUNNING', jobId } },
  };
  // The JobManager's clock runs up to a minute off the worker's.
  const skew = Math.round((random() - 0.5) * 2 * MIN);
  const model = new HealthyCheckpointingJob({ start: T0 - 10 * MIN + skew, intervalMs, durationMs, failovers, random });
  return { resource, jobId, model, failovers, skew, phase: Math.floor(random() * 12) * TICK };
}

/** Watches one job for `hours` as the worker does; returns the alerts it raised (an incident opened or grown). */
function soakOne(i: number, hours: number, random: () => number): { alerts: number; failovers: number } {
  const job = healthyJob(i, hours, random);
  const state = new JobAlertState(T0);
  state.onResource(job.resource, T0);
  const since = new Map<AlertKind, number>();
  let open: AlertSignal[] = [];
  let alerts = 0;
  let warned = 0;
  for (let now = T0; now <= T0 + hours * HOUR; now += TICK) {
    for (; warned < job.failovers.length && (job.failovers[warned]?.at ?? Infinity) - job.skew <= now; warned++)
      state.onEvent(warning(job.resource.metadata.name, warned, now), now);
    if (now - T0 >= job.phase && (now - T0 - job.phase) % READ === 0)
      state.onRest({ at: now, jobId: job.jobId, ...job.model.reading(now + job.skew) });
    const signals = signalsOf(state.judge(RULE, now, 2 * MIN), open, since, now);
    if (signals.some((s) => !open.some((o) => o.kind === s.kind))) alerts += 1;
    open = signals;
  }
  return { alerts, failovers: job.failovers.length };
}

function warning(name: string, n: number, at: number): unknown {
  return {
    metadata: { name: `${name}.${n}`, namespace: 'soak' },
    involvedObject: { kind: 'FlinkDeployment', name },
    type: 'Warning',
    reason: 'JobException',
    count: 1,
    lastTimestamp: new Date(at).toISOString(),
  };
}

function main(): void {
  const params = parseParams(process.argv.slice(2));
  const random = seeded(params.seed);
  const started = process.hrtime.bigint();
  let alerts = 0;
  let failovers = 0;
  const byInterval = new Map<string, number>();
  for (let i = 0; i < params.jobs; i++) {
    const soaked = soakOne(i, params.hours, random);
    const raised = soaked.alerts;
    alerts += raised;
    failovers += soaked.failovers;
    const interval = INTERVALS[i % INTERVALS.length] as string;
    byInterval.set(interval, (byInterval.get(interval) ?? 0) + raised);
  }
  const jobHours = params.jobs * params.hours;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`alerts soak: ${params.jobs} healthy jobs × ${params.hours} h, reads once a minute, judged every 5 s`);
  console.log(`  healthy job-hours simulated: ${jobHours}`);
  console.log(`  task failovers in them: ${failovers}`);
  console.log(`  false alerts: ${alerts}`);
  console.log(`  false alerts per healthy job-hour: ${(alerts / jobHours).toFixed(3)} (goal 0)`);
  console.log(`  by interval: ${[...byInterval].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  wall time: ${seconds.toFixed(1)} s`);
}

main();
