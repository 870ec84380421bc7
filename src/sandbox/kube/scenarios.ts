// Failure knobs of the simulated operator: set per resource by annotation or programmatically; persistent.

export const SCENARIOS = ['image-pull-failure', 'savepoint-failure', 'slow-reconcile', 'stuck-upgrading', 'validation-error'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export const SCENARIO_ANNOTATION = 'sim.flink-chatops.io/scenario';
export const SLOW_SECONDS_ANNOTATION = 'sim.flink-chatops.io/slow-reconcile-seconds';
export const DEFAULT_SLOW_RECONCILE_SECONDS = 5;

/** Images that never pull, whatever the knobs say (handy for demos: `upgrade orders --image flink:broken`). */
export function imageFailsToPull(image: unknown): boolean {
  return typeof image === 'string' && (image.includes(':broken') || image.includes('does-not-exist'));
}

export interface ScenarioSettings {
  scenarios: ReadonlySet<Scenario>;
  slowReconcileSeconds: number;
}

export function isScenario(value: string): value is Scenario {
  return (SCENARIOS as readonly string[]).includes(value);
}

/** Parses the annotation: a comma-separated list; unknown names are reported, not silently dropped. */
export function parseScenarioList(text: string | undefined): { scenarios: Scenario[]; unknown: string[] } {
  const scenarios: Scenario[] = [];
  const unknown: string[] = [];
  for (const part of (text ?? '').split(',')) {
    const name = part.trim();
    if (name === '') continue;
    if (isScenario(name)) scenarios.push(name);
    else unknown.push(name);
  }
  return { scenarios, unknown };
}

/**
 * Knobs set programmatically (`operator.setScenario`) for `namespace/name`; they apply to a FlinkDeployment and
 * a FlinkSessionJob of that name alike, and stay until cleared (as an annotation stays until removed).
 */
export class ScenarioRegistry {
  private readonly byTarget = new Map<string, { scenarios: Set<Scenario>; slowReconcileSeconds?: number }>();

  set(namespace: string, name: string, scenario: Scenario | readonly Scenario[], options: { slowReconcileSeconds?: number } = {}): void {
    const list = typeof scenario === 'string' ? [scenario] : scenario;
    for (const s of list) if (!isScenario(s)) throw new Error(`unknown scenario "${String(s)}"; known: ${SCENARIOS.join(', ')}`);
    this.byTarget.set(`${namespace}/${name}`, { scenarios: new Set(list), slowReconcileSeconds: options.slowReconcileSeconds });
  }

  clear(namespace: string, name: string): void {
    this.byTarget.delete(`${namespace}/${name}`);
  }

  /** Programmatic knobs merged with the resource's annotations. */
  settings(namespace: string, name: string, annotations: Record<string, string> | undefined): ScenarioSettings {
    const programmatic = this.byTarget.get(`${namespace}/${name}`);
    const scenarios = new Set<Scenario>(programmatic?.scenarios ?? []);
    for (const s of parseScenarioList(annotations?.[SCENARIO_ANNOTATION]).scenarios) scenarios.add(s);
    const annotated = Number(annotations?.[SLOW_SECONDS_ANNOTATION]);
    const slowReconcileSeconds =
      programmatic?.slowReconcileSeconds ?? (Number.isFinite(annotated) && annotated >= 0 ? annotated : DEFAULT_SLOW_RECONCILE_SECONDS);
    return { scenarios, slowReconcileSeconds };
  }
}
