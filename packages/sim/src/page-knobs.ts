// The failure knobs behind the cluster panel's buttons, and the board that turns them on and off for one
// simulated cluster: operator scenarios (some of them held back with `incidents-after`, so a job goes wrong
// minutes later on its own) and one lost API response (docs/sandbox.md#what-the-simulated-operator-does-on-real-jobs).
import type { SimCluster } from './kube/cluster.js';
import type { ScenarioSpec } from './kube/scenarios.js';
import { scaledMs, STEP_SECONDS, type Speed } from './kube/speed.js';

/**
 * How long the "image pull recovers" knob keeps the pull failing (operator seconds, scaled by --speed): with the
 * steps to a RUNNING job, well inside the sandbox's FAILURE_GRACE, so the change ends COMPLETED
 * (docs/sandbox.md#knob-timings).
 */
const IMAGE_PULL_RECOVERY_SECONDS = 5;
const IMAGE_PULL_RECOVERY = `${IMAGE_PULL_RECOVERY_SECONDS}s`;
/** Task failovers the "task failovers" knobs produce after each start of the job. */
const TASK_FAILOVERS = 3;
/** Operator seconds the "later" knobs hold their incidents back (`incidents-after`). */
const FAILS_AFTER = 60;
const RESTARTS_AFTER = 120;
const CHECKPOINTS_FAIL_AFTER = 60;
export const SLOW_RECONCILE_SECONDS = 20;

/** The knobs the page offers: operator scenarios, plus one lost API response on the next patch of the target. */
export const KNOBS = {
  'image-pull-failure': 'image pulls fail for good (one ErrImagePull; the JobManager stays in ERROR)',
  'image-pull-recovers': `image pulls fail, then succeed after ${IMAGE_PULL_RECOVERY_SECONDS} s of operator time (ERROR → READY)`,
  'savepoint-failure': 'savepoints fail (stop-with-savepoint and snapshots, on every attempt)',
  'stop-fails-once': 'stop-with-savepoint times out once; the next reconcile succeeds',
  'task-failovers': `task failovers: ${TASK_FAILOVERS} JobException warnings after each start of the job`,
  'upgrade-failed': 'redeploys fail with UpgradeFailed ("Manual restore required.") until turned off',
  'slow-reconcile': 'slow reconcile (20 s of operator time per upgrade)',
  'tasks-waiting':
    'one slot short: a subtask of each vertex waits SCHEDULED while Flink REST shows the vertex RUNNING; the job FAILS at slot.request.timeout',
  'checkpoints-failing': 'checkpoints fail (Flink REST counts them; the operator does not say)',
  'restored-elsewhere': 'the job restores from another path than the operator recorded (only Flink REST shows it)',
  'rest-unreachable': "the JobManager's REST service does not answer (503 through the proxy)",
  'bounded-source': 'a bounded bootstrap source in front of the job (Flink REST shows it FINISHED while the job runs)',
  'checkpointing-in-code':
    "checkpointing on in the job's code, every 10 s (Flink REST shows checkpoints; the configuration has no interval)",
  'autoscaler-on':
    "the operator's defaults switch the autoscaler on: after its first decision it holds every vertex's parallelism",
  'job-restarting':
    'the job keeps failing over (RESTARTING) until it is redeployed; a savepoint-mode restart then falls back to last-state',
  'savepoint-abandoned':
    'the job looks not running for a moment during a savepoint: the operator abandons it, Flink completes it',
  'fails-in-1-min': `the job FAILS on its own ${FAILS_AFTER} s of operator time after it reaches RUNNING (a running job: from now); with kubernetes.operator.job.restart.failed the operator resubmits it`,
  'restarts-later': `${TASK_FAILOVERS} task failovers (JobException, numRestarts) ${RESTARTS_AFTER} s of operator time after each start of the job: after the next change (a running job: from now)`,
  'checkpoints-fail-later': `checkpoints complete for ${CHECKPOINTS_FAIL_AFTER} s of operator time after the job reaches RUNNING (a running job: from now), then fail (Flink REST)`,
  'random-failovers':
    'random task failovers now and then while the job runs (off by default, so the walkthrough is the same on every run)',
  'lose-response': "lose the API server's answer to the next patch",
} as const;
export type Knob = keyof typeof KNOBS;

/**
 * Each knob's short name, its button's text on the page (docs/sandbox.md#the-knobs); KNOBS says what it does. A knob
 * without a name does not compile.
 */
export const KNOB_NAMES = {
  'image-pull-failure': 'Image pull fails',
  'image-pull-recovers': 'Image pull recovers',
  'savepoint-failure': 'Savepoints fail',
  'stop-fails-once': 'Stop fails once',
  'task-failovers': 'Task failovers',
  'upgrade-failed': 'Upgrade failed',
  'slow-reconcile': 'Slow reconcile',
  'tasks-waiting': 'One slot short',
  'checkpoints-failing': 'Checkpoints fail',
  'restored-elsewhere': 'Restored elsewhere',
  'rest-unreachable': 'REST unreachable',
  'bounded-source': 'Bounded source',
  'checkpointing-in-code': 'Checkpoints in code',
  'autoscaler-on': 'Autoscaler on',
  'job-restarting': 'Job restarting',
  'savepoint-abandoned': 'Savepoint abandoned',
  'fails-in-1-min': 'Fails in 1 min',
  'restarts-later': 'Restarts 3× later',
  'checkpoints-fail-later': 'Checkpoints fail later',
  'random-failovers': 'Random failovers',
  'lose-response': 'Lose next API response',
} as const satisfies Record<Knob, string>;

/**
 * Knobs whose failure the operator recovers by itself, and how long the failure lasts (operator seconds, from the
 * failure to a RUNNING job). The worker waits FAILURE_GRACE before it calls such a failure FAILED, so each stays
 * well inside the sandbox's grace at every speed (docs/sandbox.md#knob-timings).
 */
export const RECOVERING_KNOBS = {
  'image-pull-recovers': IMAGE_PULL_RECOVERY_SECONDS + STEP_SECONDS.jmReady + STEP_SECONDS.jobRunning,
} as const satisfies Partial<Record<Knob, number>>;

/** Page knobs that are simulated-operator scenarios, and the scenario (or scenarios) each one sets. */
const SCENARIO_KNOBS = {
  'image-pull-failure': 'image-pull-failure',
  'image-pull-recovers': `image-pull-failure=${IMAGE_PULL_RECOVERY}`,
  'savepoint-failure': 'savepoint-failure',
  'stop-fails-once': 'savepoint-failure=once',
  'task-failovers': `job-exceptions=${TASK_FAILOVERS}`,
  'upgrade-failed': 'upgrade-failed',
  'slow-reconcile': 'slow-reconcile',
  'tasks-waiting': 'tasks-waiting',
  'checkpoints-failing': 'checkpoints-failing',
  'restored-elsewhere': 'restored-elsewhere',
  'rest-unreachable': 'rest-unreachable',
  'bounded-source': 'bounded-source',
  'checkpointing-in-code': 'checkpointing-in-code',
  'autoscaler-on': 'autoscaler-default-on',
  'job-restarting': 'job-restarting',
  'savepoint-abandoned': 'savepoint-abandoned',
  'fails-in-1-min': ['job-failure', `incidents-after=${FAILS_AFTER}`],
  'restarts-later': [`job-exceptions=${TASK_FAILOVERS}`, `incidents-after=${RESTARTS_AFTER}`],
  'checkpoints-fail-later': ['checkpoints-failing', `incidents-after=${CHECKPOINTS_FAIL_AFTER}`],
  'random-failovers': 'random-failovers',
} as const satisfies Partial<Record<Knob, ScenarioSpec | readonly ScenarioSpec[]>>;
type ScenarioKnob = keyof typeof SCENARIO_KNOBS;

/**
 * `incidents-after` holds back every knob incident of the job: a "later" knob leaves no room for another one
 * (whose delay would differ) nor for a knob whose incidents come right away (they would come later too).
 */
const LATER: readonly Knob[] = ['fails-in-1-min', 'restarts-later', 'checkpoints-fail-later'];
const RIGHT_AWAY: readonly Knob[] = ['task-failovers', 'checkpoints-failing', 'job-restarting'];

/** Knobs that cannot be on together: turning one on turns the others of its group off. */
const EXCLUSIVE: readonly (readonly Knob[])[] = [
  ['image-pull-failure', 'image-pull-recovers'],
  ['savepoint-failure', 'stop-fails-once'],
  LATER,
  ...LATER.flatMap((later) => RIGHT_AWAY.map((now) => [later, now])),
];

export function isKnob(value: unknown): value is Knob {
  return typeof value === 'string' && Object.hasOwn(KNOBS, value);
}

function isScenarioKnob(knob: Knob): knob is ScenarioKnob {
  return Object.hasOwn(SCENARIO_KNOBS, knob);
}

/**
 * How long the sandbox's "later" knobs hold their incidents back at least, in real time (docs/sandbox.md#knob-timings):
 * at `fast` speed the operator runs 100× faster but the worker's own waits (FAILURE_GRACE, the checkpoint after the
 * change) do not, and 120 operator seconds (1.2 s) would land before the change's evidence is in.
 */
export const SANDBOX_LATER_FLOOR_MS = 10_000;

/** The floor in operator seconds at `speed`: what the sandbox gives its knob boards. */
export function laterFloorSeconds(speed: Speed): number {
  return Math.ceil(SANDBOX_LATER_FLOOR_MS / scaledMs(speed, 1));
}

const INCIDENTS_AFTER = /^incidents-after=(\d+)$/;

/** Which knobs are set, per `namespace/name`; scenario knobs are applied to the simulated operator as a set. */
export class KnobBoard {
  private readonly scenarios = new Map<string, Set<ScenarioKnob>>();

  /** `laterFloor`: operator seconds the "later" knobs hold back at least (the sandbox's `laterFloorSeconds`); 0: none. */
  constructor(
    private readonly cluster: Pick<SimCluster, 'operator' | 'server'>,
    private readonly laterFloor = 0,
  ) {}

  /** Turns a knob on or off (`on` omitted: toggles it); returns the knobs now set on the target. */
  set(namespace: string, name: string, knob: Knob, on?: boolean): Knob[] {
    const active = this.active(namespace, name).includes(knob);
    const want = on ?? !active;
    if (isScenarioKnob(knob)) this.setScenario(namespace, name, knob, want);
    else this.setLostResponse(namespace, name, want);
    return this.active(namespace, name);
  }

  active(namespace: string, name: string): Knob[] {
    const knobs: Knob[] = [...(this.scenarios.get(`${namespace}/${name}`) ?? [])];
    if (this.lostResponseFault(namespace, name) !== undefined) knobs.push('lose-response');
    return knobs;
  }

  private setScenario(namespace: string, name: string, knob: ScenarioKnob, on: boolean): void {
    const key = `${namespace}/${name}`;
    const set = this.scenarios.get(key) ?? new Set<ScenarioKnob>();
    if (on) {
      for (const group of EXCLUSIVE)
        if (group.includes(knob))
          for (const other of group) if (other !== knob && isScenarioKnob(other)) set.delete(other);
      set.add(knob);
    } else {
      set.delete(knob);
    }
    this.scenarios.set(key, set);
    if (set.size === 0) this.cluster.operator.clearScenario(namespace, name);
    else
      this.cluster.operator.setScenario(
        namespace,
        name,
        [...set].flatMap((k): readonly ScenarioSpec[] => {
          const specs: ScenarioSpec | readonly ScenarioSpec[] = SCENARIO_KNOBS[k];
          return (typeof specs === 'string' ? [specs] : specs).map((spec) => this.held(spec));
        }),
        { slowReconcileSeconds: SLOW_RECONCILE_SECONDS },
      );
  }

  /** `incidents-after=N`, never shorter than the board's floor. */
  private held(spec: ScenarioSpec): ScenarioSpec {
    const seconds = INCIDENTS_AFTER.exec(spec)?.[1];
    return seconds === undefined ? spec : `incidents-after=${Math.max(Number(seconds), this.laterFloor)}`;
  }

  private setLostResponse(namespace: string, name: string, on: boolean): void {
    const { faults } = this.cluster.server;
    const existing = this.lostResponseFault(namespace, name);
    if (on && existing === undefined)
      faults.inject({ kind: 'lose-response', verb: 'patch', namespace, name, times: 1 });
    if (!on && existing !== undefined) {
      // The injector removes faults only all at once: put back every other one.
      const others = faults.list().filter((f) => f.id !== existing);
      faults.clear();
      for (const { id: _id, remaining, ...spec } of others) faults.inject({ ...spec, times: remaining });
    }
  }

  private lostResponseFault(namespace: string, name: string): number | undefined {
    return this.cluster.server.faults
      .list()
      .find((f) => f.kind === 'lose-response' && f.verb === 'patch' && f.namespace === namespace && f.name === name)
      ?.id;
  }
}
