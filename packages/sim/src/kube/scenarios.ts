// Failure knobs of the simulated operator: set per resource by annotation or programmatically; persistent.
import { parseFlinkDurationSeconds } from './speed.js';

export const SCENARIOS = [
  'autoscaler-default-on',
  'bounded-source',
  'checkpointing-in-code',
  'checkpoints-failing',
  'image-pull-failure',
  'incidents-after',
  'job-exceptions',
  'job-failure',
  'job-restarting',
  'random-failovers',
  'restored-elsewhere',
  'rest-unreachable',
  'savepoint-abandoned',
  'savepoint-failure',
  'slow-reconcile',
  'stuck-upgrading',
  'tasks-waiting',
  'upgrade-failed',
  'validation-error',
] as const;
export type Scenario = (typeof SCENARIOS)[number];
/** A knob as written in the annotation or passed to `setScenario`: a name, or `name=value` (e.g. `job-exceptions=2`). */
export type ScenarioSpec = Scenario | `${Scenario}=${string}`;

export const SCENARIO_ANNOTATION = 'sim.flink-chatops.io/scenario';
export const SLOW_SECONDS_ANNOTATION = 'sim.flink-chatops.io/slow-reconcile-seconds';
export const DEFAULT_SLOW_RECONCILE_SECONDS = 5;
/** Task failovers after each start of the job when `job-exceptions` is given without a count. */
export const DEFAULT_JOB_EXCEPTIONS = 3;
/** Knobs that mean nothing without a value: the bare name is refused, not taken as some default. */
const VALUE_REQUIRED: ReadonlySet<Scenario> = new Set(['incidents-after']);

/** Images that never pull, whatever the knobs say (handy for demos: `upgrade orders --image flink:broken`). */
export function imageFailsToPull(image: unknown): boolean {
  return typeof image === 'string' && (image.includes(':broken') || image.includes('does-not-exist'));
}

export interface ScenarioSettings {
  scenarios: ReadonlySet<Scenario>;
  /** The `=value` part of each knob that has one. */
  values: ReadonlyMap<Scenario, string>;
  slowReconcileSeconds: number;
}

export function isScenario(value: string): value is Scenario {
  return (SCENARIOS as readonly string[]).includes(value);
}

/** Which values a knob accepts; a knob with an unreadable value is reported as unknown, not half-applied. */
function validValue(scenario: Scenario, value: string): boolean {
  switch (scenario) {
    case 'savepoint-failure':
      return value === 'once' || value === 'always';
    case 'job-exceptions':
      return /^\d+$/.test(value);
    case 'tasks-waiting':
      return /^\d+$/.test(value) && Number(value) >= 1;
    case 'image-pull-failure':
    case 'incidents-after':
    case 'slow-reconcile':
    case 'checkpointing-in-code':
      return durationSeconds(value) !== undefined;
    default:
      return false;
  }
}

/** Knob durations are operator seconds: "2s", "1 min", or a bare number of seconds (not Flink's milliseconds). */
export function durationSeconds(value: string): number | undefined {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  return parseFlinkDurationSeconds(text);
}

export interface ScenarioEntry {
  scenario: Scenario;
  value?: string;
}

/** Parses the annotation: a comma-separated list of `name` or `name=value`; unknown entries are reported, not silently dropped. */
export function parseScenarioList(text: string | undefined): {
  scenarios: Scenario[];
  entries: ScenarioEntry[];
  unknown: string[];
} {
  const entries: ScenarioEntry[] = [];
  const unknown: string[] = [];
  for (const part of (text ?? '').split(',')) {
    const entry = parseEntry(part.trim());
    if (entry === 'empty') continue;
    if (entry) entries.push(entry);
    else unknown.push(part.trim());
  }
  return { scenarios: entries.map((e) => e.scenario), entries, unknown };
}

function parseEntry(text: string): ScenarioEntry | undefined | 'empty' {
  if (text === '') return 'empty';
  const at = text.indexOf('=');
  const name = (at < 0 ? text : text.slice(0, at)).trim();
  if (!isScenario(name)) return undefined;
  if (at < 0) return VALUE_REQUIRED.has(name) ? undefined : { scenario: name };
  const value = text.slice(at + 1).trim();
  return validValue(name, value) ? { scenario: name, value } : undefined;
}

/** How a stop-with-savepoint (and a triggered savepoint) fails: every time, or only the first attempt. */
export function savepointFailureMode(settings: ScenarioSettings): 'always' | 'once' | undefined {
  if (!settings.scenarios.has('savepoint-failure')) return undefined;
  return settings.values.get('savepoint-failure') === 'once' ? 'once' : 'always';
}

/** JobException events to emit after each start of the job (0 without the knob). */
export function jobExceptionCount(settings: ScenarioSettings): number {
  if (!settings.scenarios.has('job-exceptions')) return 0;
  const value = settings.values.get('job-exceptions');
  return value === undefined ? DEFAULT_JOB_EXCEPTIONS : Number(value);
}

/**
 * The `incidents-after=<duration>` knob: operator seconds from the moment a run is seen RUNNING (or the knob
 * is set on a run already RUNNING) to its first knob incident — failovers, the failure, `job-restarting`,
 * failing checkpoints. Undefined without the knob: they start right away.
 */
export function incidentsAfterSeconds(settings: ScenarioSettings): number | undefined {
  const value = settings.values.get('incidents-after');
  return settings.scenarios.has('incidents-after') && value !== undefined ? durationSeconds(value) : undefined;
}

/** Operator seconds after which a failing image pull succeeds; undefined = it never does. */
export function imagePullRecoverySeconds(settings: ScenarioSettings): number | undefined {
  const value = settings.values.get('image-pull-failure');
  return settings.scenarios.has('image-pull-failure') && value !== undefined ? durationSeconds(value) : undefined;
}

/** Why entries were refused: an unknown name, or a knob's value missing or unreadable. */
function unknownMessage(unknown: readonly string[]): string {
  const needValue = unknown.filter((u) => VALUE_REQUIRED.has(u.split('=')[0]?.trim() as Scenario));
  const hint =
    needValue.length > 0
      ? ` (${needValue.map((u) => u.split('=')[0]?.trim()).join(', ')} needs a duration: name=90s)`
      : '';
  return `unknown scenario "${unknown.join('", "')}"${hint}; known: ${SCENARIOS.join(', ')}`;
}

interface Programmatic {
  entries: ScenarioEntry[];
  slowReconcileSeconds?: number;
}

/**
 * Knobs set programmatically (`operator.setScenario`) for `namespace/name`; they apply to a FlinkDeployment and
 * a FlinkSessionJob of that name alike, and stay until cleared (as an annotation stays until removed).
 */
export class ScenarioRegistry {
  private readonly byTarget = new Map<string, Programmatic>();

  set(
    namespace: string,
    name: string,
    scenario: ScenarioSpec | readonly ScenarioSpec[],
    options: { slowReconcileSeconds?: number } = {},
  ): void {
    const list: readonly string[] = typeof scenario === 'string' ? [scenario] : scenario;
    const parsed = parseScenarioList(list.join(','));
    if (parsed.unknown.length > 0) throw new Error(unknownMessage(parsed.unknown));
    this.byTarget.set(`${namespace}/${name}`, {
      entries: parsed.entries,
      slowReconcileSeconds: options.slowReconcileSeconds,
    });
  }

  clear(namespace: string, name: string): void {
    this.byTarget.delete(`${namespace}/${name}`);
  }

  /** Programmatic knobs merged with the resource's annotations (an annotated value wins over a programmatic one). */
  settings(namespace: string, name: string, annotations: Record<string, string> | undefined): ScenarioSettings {
    const programmatic = this.byTarget.get(`${namespace}/${name}`);
    const entries = [
      ...(programmatic?.entries ?? []),
      ...parseScenarioList(annotations?.[SCENARIO_ANNOTATION]).entries,
    ];
    const scenarios = new Set<Scenario>(entries.map((e) => e.scenario));
    const values = new Map<Scenario, string>();
    for (const e of entries) if (e.value !== undefined) values.set(e.scenario, e.value);
    const annotated = Number(annotations?.[SLOW_SECONDS_ANNOTATION]);
    const fromValue = values.has('slow-reconcile')
      ? durationSeconds(values.get('slow-reconcile') as string)
      : undefined;
    const slowReconcileSeconds =
      programmatic?.slowReconcileSeconds ??
      fromValue ??
      (Number.isFinite(annotated) && annotated >= 0 ? annotated : DEFAULT_SLOW_RECONCILE_SECONDS);
    return { scenarios, values, slowReconcileSeconds };
  }
}
