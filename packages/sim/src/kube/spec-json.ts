// Specs as the operator sees them: normalised JSON, lastReconciledSpec strings, config lookup, diff classes.

export const API_VERSION = 'flink.apache.org/v1beta1';
export type SpecKind = 'FlinkDeployment' | 'FlinkSessionJob';
export type Spec = Record<string, unknown>;
export type FlinkConf = Record<string, string>;

export const DIFF_TYPES = ['IGNORE', 'SCALE', 'UPGRADE', 'SAVEPOINT_REDEPLOY'] as const;
export type DiffType = (typeof DIFF_TYPES)[number];

export interface FieldDiff {
  path: string;
  before: unknown;
  after: unknown;
  type: DiffType;
}
export interface SpecDiff {
  type: DiffType;
  diffs: FieldDiff[];
}

/**
 * JobSpec fields in the operator's serialisation order, with their defaults (null = unset). `parallelism` is a
 * Java `int`, so an unset one reads 0 in lastReconciledSpec, never null.
 */
const JOB_DEFAULTS: [string, unknown][] = [
  ['jarURI', null],
  ['parallelism', 0],
  ['entryClass', null],
  ['args', []],
  ['state', 'running'],
  ['savepointTriggerNonce', null],
  ['initialSavepointPath', null],
  ['checkpointTriggerNonce', null],
  ['upgradeMode', 'stateless'],
  ['allowNonRestoredState', null],
  ['savepointRedeployNonce', null],
  ['autoscalerResetNonce', null],
];
const DEPLOYMENT_FIELDS = [
  'job',
  'restartNonce',
  'flinkConfiguration',
  'image',
  'imagePullPolicy',
  'serviceAccount',
  'flinkVersion',
  'ingress',
  'podTemplate',
  'jobManager',
  'taskManager',
  'logConfiguration',
  'mode',
];
const SESSION_JOB_FIELDS = ['job', 'restartNonce', 'flinkConfiguration', 'deploymentName'];

/** The spec as the operator serialises it: every known field present, unset ones null, job defaults filled in. */
export function normalizeSpec(kind: SpecKind, spec: Spec): Spec {
  const out: Spec = {};
  for (const field of kind === 'FlinkDeployment' ? DEPLOYMENT_FIELDS : SESSION_JOB_FIELDS) {
    const value = spec[field];
    if (field === 'job') out.job = value && typeof value === 'object' ? normalizeJob(value as Spec) : null;
    else if (field === 'flinkConfiguration') out.flinkConfiguration = structuredClone(value ?? {});
    else out[field] = value === undefined ? null : structuredClone(value);
  }
  for (const [field, value] of Object.entries(spec)) if (!(field in out)) out[field] = structuredClone(value);
  return out;
}

function normalizeJob(job: Spec): Spec {
  const out: Spec = {};
  for (const [field, fallback] of JOB_DEFAULTS) out[field] = structuredClone(job[field] ?? fallback);
  for (const [field, value] of Object.entries(job)) if (!(field in out)) out[field] = structuredClone(value);
  return out;
}

/** `{"spec":{…},"resource_metadata":{"apiVersion":…,"firstDeployment":…}}`, as status.reconciliationStatus holds it. */
export function serializeReconciledSpec(kind: SpecKind, spec: Spec, firstDeployment: boolean): string {
  return JSON.stringify({
    spec: normalizeSpec(kind, spec),
    resource_metadata: { apiVersion: API_VERSION, firstDeployment },
  });
}

export function parseReconciledSpec(text: unknown): Spec | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const parsed = JSON.parse(text) as { spec?: Spec };
    return parsed.spec;
  } catch {
    return undefined;
  }
}

/** `resource_metadata.firstDeployment` of a lastReconciledSpec string. */
export function isFirstDeploymentSpec(text: unknown): boolean {
  if (typeof text !== 'string' || text === '') return false;
  try {
    return (
      (JSON.parse(text) as { resource_metadata?: { firstDeployment?: boolean } }).resource_metadata?.firstDeployment ===
      true
    );
  } catch {
    return false;
  }
}

/** The job spec of a (normalised or raw) spec, or undefined for a session cluster. */
export function jobOf(spec: Spec | undefined): Spec | undefined {
  const job = spec?.job;
  return job && typeof job === 'object' ? (job as Spec) : undefined;
}

/**
 * Flattens flinkConfiguration as the operator's ConfigObjectNode.asFlatMap does: nested keys joined with `.`, arrays
 * `;`-joined (an empty one sets nothing), a later key overwriting an earlier one. The operator reads the object as the
 * API server serialises it, every map's keys sorted, so among spellings of one key (`a.b.c`, `{a: {b: {c}}}`,
 * `{"a.b": {c}}`) the last in sorted order wins: the flat one, else the one with the longest leading key.
 */
export function flattenConf(conf: unknown, prefix = '', out: FlinkConf = {}): FlinkConf {
  if (!conf || typeof conf !== 'object' || Array.isArray(conf)) return out;
  const map = conf as Record<string, unknown>;
  for (const key of Object.keys(map).sort(byCodeUnit)) {
    const value = map[key];
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value)) flattenConf(value, path, out);
    else if (Array.isArray(value)) {
      if (value.length > 0) out[path] = value.join(';');
    } else if (value !== null && value !== undefined) out[path] = String(value);
  }
  return out;
}

/** Go's sort.Strings order (byte order; the same as UTF-16 code units for the keys Flink uses). */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function specConf(spec: Spec | undefined): FlinkConf {
  return flattenConf(spec?.flinkConfiguration);
}

export function confFlag(conf: FlinkConf, key: string, fallback = false): boolean {
  const value = conf[key];
  return value === undefined ? fallback : value.trim().toLowerCase() === 'true';
}

export function haEnabled(conf: FlinkConf): boolean {
  const type = (conf['high-availability.type'] ?? conf['high-availability'] ?? '').trim().toLowerCase();
  return type !== '' && type !== 'none';
}

export function savepointDir(conf: FlinkConf): string | undefined {
  return nonEmpty(conf['state.savepoints.dir'] ?? conf['execution.checkpointing.savepoint-dir']);
}

export function checkpointDir(conf: FlinkConf): string | undefined {
  return nonEmpty(conf['state.checkpoints.dir'] ?? conf['execution.checkpointing.dir']);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim().replace(/\/+$/, '');
}

/** Parallelism the job really gets: replicas × slots when `taskManager.replicas` is set (parallelism is then ignored). */
export function effectiveParallelism(spec: Spec): number {
  const conf = specConf(spec);
  const slots = Math.max(1, Number(conf['taskmanager.numberOfTaskSlots'] ?? 1) || 1);
  const replicas = (spec.taskManager as Spec | undefined)?.replicas;
  if (typeof replicas === 'number') return replicas * slots;
  const parallelism = jobOf(spec)?.parallelism;
  // 0 is how a reconciled spec says "unset".
  if (typeof parallelism === 'number' && parallelism > 0) return parallelism;
  return Number(conf['parallelism.default'] ?? 1) || 1;
}

/** TaskManager replicas as status.taskManager reports them: the spec's replicas, else ceil(parallelism / slots). */
export function taskManagerReplicas(spec: Spec): number {
  const replicas = (spec.taskManager as Spec | undefined)?.replicas;
  if (typeof replicas === 'number') return replicas;
  const slots = Math.max(1, Number(specConf(spec)['taskmanager.numberOfTaskSlots'] ?? 1) || 1);
  return Math.ceil(effectiveParallelism(spec) / slots);
}

const IGNORED_JOB_FIELDS = new Set([
  'upgradeMode',
  'initialSavepointPath',
  'allowNonRestoredState',
  'savepointTriggerNonce',
  'checkpointTriggerNonce',
  'autoscalerResetNonce',
]);
const IGNORED_CONF_PREFIXES = ['kubernetes.operator', 'job.autoscaler', 'parallelism.default'];
export const PARALLELISM_OVERRIDES = 'pipeline.jobvertex-parallelism-overrides';

/** The class of one changed field (docs/lifecycle.md#operator-traps; the @SpecDiff annotations of release-1.15.0). */
export function classifyField(path: string, after: unknown, standalone: boolean): DiffType {
  if (path.startsWith('job.')) {
    const field = path.slice(4);
    if (IGNORED_JOB_FIELDS.has(field)) return 'IGNORE';
    if (field === 'savepointRedeployNonce') return after === null ? 'IGNORE' : 'SAVEPOINT_REDEPLOY';
    if (field === 'parallelism') return standalone ? 'SCALE' : 'UPGRADE';
    return 'UPGRADE';
  }
  if (path === 'restartNonce') return after === null ? 'IGNORE' : 'UPGRADE';
  if (path === 'taskManager.replicas') return standalone ? 'SCALE' : 'UPGRADE';
  if (path.startsWith('flinkConfiguration.')) {
    const key = path.slice('flinkConfiguration.'.length);
    if (IGNORED_CONF_PREFIXES.some((p) => key.startsWith(p))) return 'IGNORE';
    if (key === PARALLELISM_OVERRIDES) return 'SCALE';
    return 'UPGRADE';
  }
  return 'UPGRADE';
}

/** Diffs the last reconciled spec against the current one, field by field, with the highest class. */
export function diffSpecs(kind: SpecKind, last: Spec, current: Spec): SpecDiff {
  const before = normalizeSpec(kind, last);
  const after = normalizeSpec(kind, current);
  const standalone = after.mode === 'standalone';
  const raw: { path: string; before: unknown; after: unknown }[] = [];
  for (const field of unionKeys(before, after)) {
    if (field === 'flinkConfiguration') {
      const a = flattenConf(before.flinkConfiguration);
      const b = flattenConf(after.flinkConfiguration);
      for (const key of unionKeys(a, b)) {
        if (a[key] !== b[key])
          raw.push({ path: `flinkConfiguration.${key}`, before: a[key] ?? null, after: b[key] ?? null });
      }
    } else {
      leafDiffs(field, before[field] ?? null, after[field] ?? null, raw);
    }
  }
  const diffs = raw.map((d) => ({ ...d, type: classifyField(d.path, d.after, standalone) }));
  const type = diffs.reduce<DiffType>((max, d) => (rank(d.type) > rank(max) ? d.type : max), 'IGNORE');
  return { type, diffs };
}

function leafDiffs(
  path: string,
  a: unknown,
  b: unknown,
  out: { path: string; before: unknown; after: unknown }[],
): void {
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of unionKeys(a, b)) leafDiffs(`${path}.${key}`, a[key] ?? null, b[key] ?? null, out);
    return;
  }
  out.push({ path, before: a, after: b });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unionKeys(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])];
}

function rank(type: DiffType): number {
  return DIFF_TYPES.indexOf(type);
}

/**
 * `Diff: FlinkDeploymentSpec[image : a -> b, ingress : {..} -> null, …]`, as the operator's DiffResult prints (its
 * SpecDiffTest): a value's JSON text, strings unquoted, an object or array as JSON, a removed object as `{..}`.
 */
export function formatDiff(kind: SpecKind, diff: SpecDiff): string {
  const fields = diff.diffs.map((d) => {
    const removedObject = (d.after === null || d.after === undefined) && isPlainObject(d.before);
    return `${d.path} : ${removedObject ? '{..}' : diffText(d.before)} -> ${diffText(d.after)}`;
  });
  return `Diff: ${kind}Spec[${fields.join(', ')}]`;
}

function diffText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The SpecChanged event message. */
export function specChangedMessage(kind: SpecKind, diff: SpecDiff): string {
  return `${diff.type} change(s) detected (${formatDiff(kind, diff)}), starting reconciliation.`;
}
