// Defensive typed readers over live Flink resource JSON (FlinkDeployment, FlinkSessionJob, FlinkStateSnapshot).
import { isUpgradeMode, type UpgradeMode } from './upgrade-mode.js';
import { getPath, isRecord, type JsonRecord } from './merge-patch.js';
import type { Target } from './target.js';

// Everything here takes `unknown`: the API, the watch cache and the simulator all hand over plain JSON,
// and a field of an unexpected type reads as absent rather than throwing in the middle of a plan.

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Integers arrive as numbers, occasionally as numeric strings (nonces written by other tools). */
function int(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,16}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

function record(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

// --- metadata ---------------------------------------------------------------------------------------

export function kindOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['kind']));
}
export function nameOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['metadata', 'name']));
}
export function namespaceOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['metadata', 'namespace']));
}
export function uidOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['metadata', 'uid']));
}
export function generationOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['metadata', 'generation']));
}
export function resourceVersionOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['metadata', 'resourceVersion']));
}
export function annotationsOf(resource: unknown): Record<string, string> {
  return stringMap(getPath(resource, ['metadata', 'annotations']));
}
export function labelsOf(resource: unknown): Record<string, string> {
  return stringMap(getPath(resource, ['metadata', 'labels']));
}

// --- spec ---------------------------------------------------------------------------------------------

export function specOf(resource: unknown): JsonRecord | undefined {
  return record(getPath(resource, ['spec']));
}
export function jobSpecOf(resource: unknown): JsonRecord | undefined {
  return record(getPath(resource, ['spec', 'job']));
}
/** `spec.job.state` as written; the operator treats an unset state as `running`. */
export function jobStateOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['spec', 'job', 'state']));
}
/** `spec.job.upgradeMode` when it is one of the three modes; the operator treats unset as `stateless`. */
export function upgradeModeOf(resource: unknown): UpgradeMode | undefined {
  const mode = getPath(resource, ['spec', 'job', 'upgradeMode']);
  return isUpgradeMode(mode) ? mode : undefined;
}
export function parallelismOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['spec', 'job', 'parallelism']));
}
export function imageOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['spec', 'image']));
}
export function restartNonceOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['spec', 'restartNonce']));
}
export function savepointRedeployNonceOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['spec', 'job', 'savepointRedeployNonce']));
}
export function taskManagerReplicasOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['spec', 'taskManager', 'replicas']));
}
/** `spec.deploymentName` of a FlinkSessionJob: the session cluster it runs on. */
export function deploymentNameOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['spec', 'deploymentName']));
}

/** A FlinkDeployment without `spec.job`: a session cluster, which runs session jobs but is no job itself. */
export function isSessionCluster(resource: unknown): boolean {
  const kind = kindOf(resource);
  if (kind !== undefined && kind !== 'FlinkDeployment') return false;
  return specOf(resource) !== undefined && jobSpecOf(resource) === undefined;
}

// --- status -------------------------------------------------------------------------------------------

/** True once the operator has written its status (a CR nobody reconciles has none, or an empty one). */
export function hasOperatorStatus(resource: unknown): boolean {
  const status = record(getPath(resource, ['status']));
  if (!status) return false;
  return [
    'lifecycleState',
    'reconciliationStatus',
    'jobStatus',
    'jobManagerDeploymentStatus',
    'observedGeneration',
  ].some((key) => status[key] !== undefined && status[key] !== null);
}
export function lifecycleStateOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'lifecycleState']));
}
export function reconciliationStateOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'reconciliationStatus', 'state']));
}
export function jobStatusStateOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'jobStatus', 'state']));
}
export function jobIdOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'jobStatus', 'jobId']));
}
export function upgradeSavepointPathOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'jobStatus', 'upgradeSavepointPath']));
}
export function jobManagerStatusOf(resource: unknown): string | undefined {
  return str(getPath(resource, ['status', 'jobManagerDeploymentStatus']));
}
export function observedGenerationOf(resource: unknown): number | undefined {
  return int(getPath(resource, ['status', 'observedGeneration']));
}
/** `status.error`: usually a JSON string with a `message`, sometimes plain text; the message either way. */
export function statusErrorOf(resource: unknown): string | undefined {
  const error = getPath(resource, ['status', 'error']);
  if (typeof error !== 'string' || error.length === 0) return undefined;
  return errorText(error);
}

/** The operator writes errors as JSON (`{"type":…,"message":…}`); people should read the message, not the JSON. */
export function errorText(error: string): string {
  if (!error.trimStart().startsWith('{')) return error;
  try {
    const parsed: unknown = JSON.parse(error);
    const message = getPath(parsed, ['message']);
    return typeof message === 'string' && message.length > 0 ? message : error;
  } catch {
    return error;
  }
}

/**
 * status.error of a FAILED job, with the failure under Flink's wrapper: the operator records the job's failure as
 * `{message, throwableList}`, the message often only "Recovery is suppressed by …", the cause (a slot request timed
 * out, a restore refused) in `throwableList[0]`.
 */
export function jobFailureOf(resource: unknown): string | undefined {
  const text = statusErrorOf(resource);
  const error = getPath(resource, ['status', 'error']);
  let first: unknown;
  try {
    const list = typeof error === 'string' ? getPath(JSON.parse(error), ['throwableList']) : undefined;
    first = Array.isArray(list) ? list[0] : undefined;
  } catch {
    return text;
  }
  const type = getPath(first, ['type']);
  const message = getPath(first, ['message']);
  if (typeof type !== 'string' || text === undefined || (typeof message === 'string' && text.includes(message)))
    return text;
  const name = type.slice(type.lastIndexOf('.') + 1);
  return `${text}, caused by ${name}${typeof message === 'string' ? `: ${message}` : ''}`;
}

/** The `spec` inside a `lastReconciledSpec`/`lastStableSpec` JSON string, or undefined when unparsable. */
export function parseReconciledSpec(text: unknown): JsonRecord | undefined {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  // Releases before 1.x stored the bare spec; every supported one wraps it as {spec, resource_metadata}.
  if (isRecord(parsed.spec)) return parsed.spec;
  return 'resource_metadata' in parsed ? undefined : parsed;
}
export function lastReconciledSpecOf(resource: unknown): JsonRecord | undefined {
  return parseReconciledSpec(getPath(resource, ['status', 'reconciliationStatus', 'lastReconciledSpec']));
}
export function lastStableSpecOf(resource: unknown): JsonRecord | undefined {
  return parseReconciledSpec(getPath(resource, ['status', 'reconciliationStatus', 'lastStableSpec']));
}

// --- last savepoint (docs/lifecycle.md#savepoints) -------------------------------------------------------

export interface LastSavepoint {
  location: string;
  /** Epoch ms when it completed, when known. */
  at?: number;
  source: 'snapshot' | 'savepointInfo';
  /** Name of the FlinkStateSnapshot it came from. */
  snapshot?: string;
}

/** The snapshot names the target by kind and name (labels, else spec.jobReference) and lives in its namespace. */
export function referencesTarget(snapshot: unknown, target: Target): boolean {
  const ns = namespaceOf(snapshot);
  if (ns !== undefined && ns !== target.namespace) return false;
  const labels = labelsOf(snapshot);
  const kind = labels['job-reference.kind'] ?? str(getPath(snapshot, ['spec', 'jobReference', 'kind']));
  const name = labels['job-reference.name'] ?? str(getPath(snapshot, ['spec', 'jobReference', 'name']));
  return kind === target.kind && name === target.name;
}

export function isSavepointSnapshot(snapshot: unknown): boolean {
  const type = labelsOf(snapshot)['snapshot.type'];
  if (type !== undefined) return type === 'SAVEPOINT';
  return getPath(snapshot, ['spec', 'checkpoint']) === undefined;
}

/**
 * The newest COMPLETED savepoint FlinkStateSnapshot referencing the target (by `resultTimestamp`), else the
 * legacy `status.jobStatus.savepointInfo.lastSavepoint.location`, else undefined.
 */
export function lastSavepoint(
  target: Target,
  snapshots: readonly unknown[],
  resource: unknown,
): LastSavepoint | undefined {
  let best: LastSavepoint | undefined;
  for (const snapshot of snapshots) {
    if (str(getPath(snapshot, ['status', 'state'])) !== 'COMPLETED') continue;
    if (!referencesTarget(snapshot, target) || !isSavepointSnapshot(snapshot)) continue;
    const location = str(getPath(snapshot, ['status', 'path']));
    if (!location) continue;
    const parsed = Date.parse(str(getPath(snapshot, ['status', 'resultTimestamp'])) ?? '');
    const at = Number.isNaN(parsed) ? undefined : parsed;
    if (best === undefined || (at ?? -Infinity) > (best.at ?? -Infinity)) {
      best = { location, source: 'snapshot', snapshot: nameOf(snapshot), ...(at === undefined ? {} : { at }) };
    }
  }
  if (best) return best;
  const legacy = getPath(resource, ['status', 'jobStatus', 'savepointInfo', 'lastSavepoint']);
  const location = str(getPath(legacy, ['location']));
  if (!location) return undefined;
  const at = int(getPath(legacy, ['timeStamp']));
  return { location, source: 'savepointInfo', ...(at === undefined ? {} : { at }) };
}

/**
 * Every savepoint of the target on record, for `restore --from` (docs/policy.md#restore-sources): the paths of its
 * COMPLETED FlinkStateSnapshots, the legacy `savepointInfo` history and last savepoint, and the savepoint of its last
 * upgrade.
 */
export function ownSavepointPaths(target: Target, snapshots: readonly unknown[], resource: unknown): string[] {
  const paths = snapshots
    .filter((s) => str(getPath(s, ['status', 'state'])) === 'COMPLETED' && referencesTarget(s, target))
    .map((s) => str(getPath(s, ['status', 'path'])));
  const info = getPath(resource, ['status', 'jobStatus', 'savepointInfo']);
  const history = getPath(info, ['savepointHistory']);
  if (Array.isArray(history)) paths.push(...history.map((h) => str(getPath(h, ['location']))));
  paths.push(str(getPath(info, ['lastSavepoint', 'location'])), upgradeSavepointPathOf(resource));
  return [...new Set(paths.filter((p): p is string => p !== undefined && p !== ''))];
}
