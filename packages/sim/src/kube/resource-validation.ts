// The operator's rules about a FlinkDeployment's memory and CPU (DefaultValidator.validateJmSpec/validateTmSpec,
// validateResourceRequirements; AutoscalerValidator for its memory thresholds), per operator release.
import { quantityValue, resourceMemoryBytes, type Role } from './resource-requirements.js';
import type { FlinkConf, Spec } from './spec-json.js';
import { parseFlinkDurationSeconds } from './speed.js';
import type { OperatorVersion } from './versions.js';

const NAMES: Record<Role, string> = { jobManager: 'JobManager', taskManager: 'TaskManager' };

/** flinkConfiguration keys from which Flink can size the process itself (its process-spec utilities). */
const CONF_MEMORY: Record<Role, readonly (readonly string[])[]> = {
  jobManager: [
    ['jobmanager.memory.process.size'],
    ['jobmanager.memory.flink.size'],
    ['jobmanager.memory.heap.size'],
    ['jobmanager.heap.size'],
  ],
  taskManager: [
    ['taskmanager.memory.process.size'],
    ['taskmanager.memory.flink.size'],
    ['taskmanager.memory.task.heap.size', 'taskmanager.memory.managed.size'],
  ],
};

type RoleSpec = { resource?: { memory?: unknown }; resources?: { requests?: Spec; limits?: Spec } | null };

/** isMemoryDefined of either field (the spec is the release's model: on 1.15 it has no `resources`). */
function memoryDefined(roleSpec: RoleSpec | undefined): boolean {
  const resources = roleSpec?.resources;
  return [roleSpec?.resource?.memory, resources?.requests?.memory, resources?.limits?.memory].some(
    (value) => value !== undefined && value !== null,
  );
}

/** The memory-missing message: 1.16 names `resources` too. */
function memoryMissing(role: Role, version: OperatorVersion): string {
  const text = `${NAMES[role]} resource memory must be defined using \`spec.${role}.resource.memory\``;
  return version === '1.15' ? text : `${text} or \`spec.${role}.resources.requests.memory\``;
}

/** validateQuantities + validateRequestNotAboveLimit (1.16): every problem of one `resources`, joined with "; ". */
function requirementsProblems(role: Role, resources: { requests?: Spec; limits?: Spec }): string[] {
  const name = NAMES[role];
  const problems: string[] = [];
  for (const section of ['requests', 'limits'] as const) {
    for (const [key, value] of Object.entries(resources[section] ?? {})) {
      if (value === null || value === undefined) continue;
      const amount = key === 'memory' ? resourceMemoryBytes(value) : quantityValue(value);
      if (amount === undefined)
        problems.push(`${name} resource requirements ${section} ${key} parse error: ${String(value)}`);
      else if ((key === 'memory' || key === 'cpu') && amount <= 0)
        problems.push(`${name} resource requirements ${section} ${key} must be positive: ${String(value)}`);
      else if (amount < 0)
        problems.push(`${name} resource requirements ${section} ${key} must not be negative: ${String(value)}`);
    }
  }
  for (const key of ['cpu', 'memory']) {
    const parse = key === 'memory' ? resourceMemoryBytes : quantityValue;
    const request = resources.requests?.[key];
    const limit = resources.limits?.[key];
    const [r, l] = [parse(request), parse(limit)];
    if (r !== undefined && l !== undefined && r > l)
      problems.push(
        `${name} resource requirements ${key} request (${String(request)}) must not exceed its limit (${String(limit)})`,
      );
  }
  return problems;
}

/** The first resource problem of a FlinkDeployment spec for this operator release, or undefined. */
export function resourceProblem(spec: Spec, conf: FlinkConf, version: OperatorVersion): string | undefined {
  for (const role of ['jobManager', 'taskManager'] as const) {
    const roleSpec = spec[role] as RoleSpec | undefined;
    const fromConf = CONF_MEMORY[role].some((keys) => keys.every((key) => conf[key] !== undefined));
    if (!memoryDefined(roleSpec) && !fromConf) return memoryMissing(role, version);
    const resources = roleSpec?.resources;
    if (version === '1.16' && resources) {
      const problems = requirementsProblems(role, resources);
      if (problems.length > 0) return problems.join('; ');
    }
  }
  return version === '1.16' ? autoscalerProblem(conf) : undefined;
}

/**
 * AutoscalerValidator (1.16): the memory thresholds are fractions; DefaultValidator.validateMetricsWindow: a window
 * shorter than the reconcile interval keeps fewer than two samples. Both checked while the autoscaler is enabled.
 */
function autoscalerProblem(conf: FlinkConf): string | undefined {
  if ((conf['job.autoscaler.enabled'] ?? '').trim().toLowerCase() !== 'true') return undefined;
  for (const key of ['job.autoscaler.memory.gc-pressure.threshold', 'job.autoscaler.memory.heap-usage.threshold']) {
    const value = conf[key] === undefined ? undefined : Number(conf[key]);
    if (value !== undefined && (Number.isNaN(value) || value < 0 || value > 1))
      return `The AutoScalerOption ${key} is invalid, it should be a value within the range [0.0, 1.0]`;
  }
  const window = parseFlinkDurationSeconds(conf[WINDOW]) ?? 15 * 60;
  const interval = parseFlinkDurationSeconds(conf[INTERVAL]) ?? 60;
  if (window >= interval) return undefined;
  return `The autoscaler metric window (${WINDOW}=${javaDuration(window)}) must not be smaller than the operator reconcile interval (${INTERVAL}=${javaDuration(interval)}), otherwise fewer than two metric samples are retained and autoscaling is never applied.`;
}

const WINDOW = 'job.autoscaler.metrics.window';
const INTERVAL = 'kubernetes.operator.reconcile.interval';

/** java.time.Duration#toString: `PT15M`, `PT1M30S`, `PT0.5S`. */
function javaDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = Math.round((seconds % 60) * 1000) / 1000;
  const text = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${rest ? `${rest}S` : ''}`;
  return `PT${text || '0S'}`;
}
