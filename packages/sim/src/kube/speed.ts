// How fast simulated operator time runs: every step is written in operator seconds and scaled by the speed.

export const SPEEDS = ['fast', 'realistic'] as const;
export type Speed = (typeof SPEEDS)[number];

/** Real milliseconds per simulated operator second. */
const MS_PER_SECOND = { fast: 10, realistic: 1000 } as const satisfies Record<Speed, number>;

/**
 * Durations of the operator's steps, in operator seconds (realistic speed runs them 1:1, so an image upgrade
 * takes 13–16 s; fast runs 100× faster, so each step is 10–30 ms and an upgrade well under a second).
 */
export const STEP_SECONDS = {
  /** from a spec change to the reconcile that notices it */
  pickup: 1,
  /** stop-with-savepoint / delete of the JobManager deployment */
  suspend: 2,
  savepoint: 3,
  /** asynchronous cancel until the job is observed CANCELED */
  cancel: 2,
  /** JobManager pod scheduled and started (DEPLOYING → DEPLOYED_NOT_READY) */
  jmStart: 2,
  /** REST endpoint answers (DEPLOYED_NOT_READY → READY) */
  jmReady: 3,
  /** job observed CREATED, then RUNNING */
  jobCreated: 1,
  jobRunning: 2,
  /** snapshot trigger → completion */
  snapshotTrigger: 1,
  snapshotComplete: 3,
  /** the operator retries a failed reconcile (e.g. a failed stop-with-savepoint) */
  reconcileRetry: 10,
  /** JOSDK retries a reconcile that threw (every session-job error) after this back-off */
  errorRetry: 5,
  /** kubernetes.operator.reconcile.interval: a resource is looked at again this often without any change */
  reconcileInterval: 60,
  /** between two task failovers the `job-exceptions` knob produces */
  jobException: 2,
  /** how often a stuck reconcile looks again whether its knob was cleared */
  stuckPoll: 1,
} as const;

export function isSpeed(value: string): value is Speed {
  return (SPEEDS as readonly string[]).includes(value);
}

/** Real milliseconds for `seconds` of operator time at `speed` (at least 1 ms, so timers stay ordered). */
export function scaledMs(speed: Speed, seconds: number): number {
  return Math.max(1, Math.round(seconds * MS_PER_SECOND[speed]));
}

const FLINK_DURATION = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/;
const UNIT_SECONDS: Record<string, number> = {
  '': 0.001,
  ms: 0.001,
  milli: 0.001,
  millis: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
};

/**
 * Seconds in a Flink duration string ("5 min", "30s", "300000" = ms, as Flink's TimeUtils reads them), or
 * undefined when it is not one.
 */
export function parseFlinkDurationSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = FLINK_DURATION.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const unit = UNIT_SECONDS[match[2] ?? ''];
  if (unit === undefined) return undefined;
  return Number(match[1]) * unit;
}
