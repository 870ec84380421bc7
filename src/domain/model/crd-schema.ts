// What the installed Flink CRDs declare (docs/deployment.md#operator-versions): whether a field exists in a CRD's
// openAPIV3Schema (the API server drops any other), which operator release a CRD comes from, and the 1.16 operator's
// fingerprint on a FlinkDeployment. Schemas are read as plain JSON, under the API's names or under those of
// client-node's typed model (`x_kubernetes_preserve_unknown_fields`, `_enum`), whichever the reader got.
import { isRecord } from './merge-patch.js';
import { REQUIREMENTS } from './resource-requirements.js';

/** A schema keyword under the API's name or client-node's. */
function keyword(schema: Record<string, unknown>, name: 'x-kubernetes-preserve-unknown-fields' | 'enum'): unknown {
  return schema[name] ?? schema[name === 'enum' ? '_enum' : name.replace(/-/g, '_')];
}

export type CrdRelease = '1.15' | '1.16';
export type CrdKind = 'FlinkDeployment' | 'FlinkSessionJob' | 'FlinkStateSnapshot' | 'FlinkBlueGreenDeployment';

export const CRD_NAMES: Readonly<Record<CrdKind, string>> = {
  FlinkDeployment: 'flinkdeployments.flink.apache.org',
  FlinkSessionJob: 'flinksessionjobs.flink.apache.org',
  FlinkStateSnapshot: 'flinkstatesnapshots.flink.apache.org',
  FlinkBlueGreenDeployment: 'flinkbluegreendeployments.flink.apache.org',
};

/** What one installed CRD tells: its release, by the probes of docs/deployment.md#operator-versions. */
export interface CrdFacts {
  kind: CrdKind;
  release: CrdRelease;
  /** `jobManager/taskManager.resources` (ResourceRequirements) declared. */
  resources: boolean;
  /** The values `spec.flinkVersion` admits (empty where the CRD has no flinkVersion). */
  flinkVersions: string[];
  /** The v1beta1 openAPIV3Schema, from the object's root. */
  schema: unknown;
}

/** The child schema of `key`: a declared property, the map's value schema, or 'any' below preserve-unknown-fields. */
function child(schema: unknown, key: string): unknown {
  if (!isRecord(schema)) return undefined;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  if (key in properties) return properties[key];
  if (isRecord(schema.additionalProperties)) return schema.additionalProperties;
  if (schema.additionalProperties === true || keyword(schema, 'x-kubernetes-preserve-unknown-fields') === true)
    return 'any';
  return undefined;
}

/** Whether the schema declares the field at `path` (object keys; array elements are stepped through). */
export function declares(schema: unknown, path: readonly string[]): boolean {
  let node: unknown = schema;
  for (const key of path) {
    if (node === 'any') return true;
    while (isRecord(node) && isRecord(node.items)) node = node.items;
    node = child(node, key);
    if (node === undefined) return false;
  }
  return true;
}

/**
 * The fields of a merge patch the schema does not declare, as `spec.a.b` (the first undeclared key of each branch;
 * `null`, a removal, is never refused): what the API server would prune.
 */
export function undeclaredFields(schema: unknown, patch: unknown, path: readonly string[] = []): string[] {
  if (!isRecord(patch)) return [];
  return Object.entries(patch).flatMap(([key, value]) => {
    if (value === null || value === undefined || (path.length === 0 && key === 'metadata')) return [];
    const at = [...path, key];
    if (!declares(schema, at)) return [at.join('.')];
    return isRecord(value) ? undeclaredFields(schema, value, at) : [];
  });
}

/** The schema node at a declared path (array elements stepped through), undefined below preserve-unknown-fields. */
function nodeAt(schema: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = schema;
  for (const key of path) {
    while (isRecord(node) && isRecord(node.items)) node = node.items;
    node = child(node, key);
    if (!isRecord(node)) return undefined;
  }
  return node as Record<string, unknown>;
}

/**
 * The string values of a merge patch outside their field's enum in the schema, as "spec.flinkVersion v2_3"
 * (the API server refuses them with 422): the values the installed CRD admits, never a list of the bot's own.
 */
export function disallowedValues(schema: unknown, patch: unknown, path: readonly string[] = []): string[] {
  if (!isRecord(patch)) return [];
  return Object.entries(patch).flatMap(([key, value]) => {
    if (path.length === 0 && key === 'metadata') return [];
    const at = [...path, key];
    if (isRecord(value)) return disallowedValues(schema, value, at);
    const allowed = typeof value === 'string' ? nodeAt(schema, at) : undefined;
    const values = allowed ? keyword(allowed, 'enum') : undefined;
    return Array.isArray(values) && !values.includes(value) ? [`${at.join('.')} ${String(value)}`] : [];
  });
}

/** The fields of a merge patch whose value the returned object does not hold at all: dropped by the API server. */
export function droppedFields(patch: unknown, object: unknown, path: readonly string[] = []): string[] {
  if (!isRecord(patch)) return [];
  return Object.entries(patch).flatMap(([key, value]) => {
    if (value === null || value === undefined || (path.length === 0 && key === 'metadata')) return [];
    const at = [...path, key];
    const held = isRecord(object) ? object[key] : undefined;
    if (held === undefined) return [at.join('.')];
    return isRecord(value) ? droppedFields(value, held, at) : [];
  });
}

/** Fields that came with an operator release after 1.15 (prefixes of spec paths). */
const INTRODUCED: readonly (readonly [string, CrdRelease])[] = [
  ['spec.jobManager.resources', '1.16'],
  ['spec.taskManager.resources', '1.16'],
  ['spec.template.spec.jobManager.resources', '1.16'],
  ['spec.template.spec.taskManager.resources', '1.16'],
];

/** Values that came with an operator release after 1.15. */
const INTRODUCED_VALUES: Readonly<Record<string, CrdRelease>> = { v2_3: '1.16', v2_4: '1.16' };

/** "spec.taskManager.resources is not in the installed FlinkDeployment CRD (it came with operator 1.16)". */
export function notInCrd(field: string, kind: string): string {
  const came = INTRODUCED.find(([prefix]) => field === prefix || field.startsWith(`${prefix}.`))?.[1];
  return `${field} is not in the installed ${kind} CRD${came ? ` (it came with operator ${came})` : ''}`;
}

/** "spec.flinkVersion v2_3 is not a value the installed FlinkDeployment CRD admits (it came with operator 1.16)". */
export function valueNotInCrd(fieldAndValue: string, kind: string): string {
  const came = INTRODUCED_VALUES[fieldAndValue.split(' ').at(-1) ?? ''];
  return `${fieldAndValue} is not a value the installed ${kind} CRD admits${came ? ` (it came with operator ${came})` : ''}`;
}

/** Everything in a merge patch the installed CRD would drop or refuse, in words; empty when it takes all of it. */
export function crdProblems(schema: unknown, patch: unknown, kind: string): string[] {
  return [
    ...undeclaredFields(schema, patch).map((f) => notInCrd(f, kind)),
    ...disallowedValues(schema, patch).map((v) => valueNotInCrd(v, kind)),
  ];
}

const at = (node: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((n, key) => (isRecord(n) ? n[key] : undefined), node);

/** The facts of a CustomResourceDefinition object, or undefined when it has no v1beta1 schema. */
export function crdFacts(kind: CrdKind, crd: unknown): CrdFacts | undefined {
  const versions = at(crd, 'spec', 'versions');
  const version = Array.isArray(versions) ? versions.find((v) => at(v, 'name') === 'v1beta1') : undefined;
  const schema = at(version, 'schema', 'openAPIV3Schema');
  if (!isRecord(schema)) return undefined;
  const spec = kind === 'FlinkBlueGreenDeployment' ? ['spec', 'template', 'spec'] : ['spec'];
  const resources = declares(schema, [...spec, 'taskManager', REQUIREMENTS]);
  const flinkVersion = at(schema, ...spec.flatMap((k) => ['properties', k]), 'properties', 'flinkVersion');
  const enumValues = isRecord(flinkVersion) ? keyword(flinkVersion, 'enum') : undefined;
  const flinkVersions = Array.isArray(enumValues) ? enumValues.filter((v): v is string => typeof v === 'string') : [];
  const columns = at(version, 'additionalPrinterColumns');
  // The 1.16 CRDs come from a generator that writes no column descriptions (the only sign on the schema-less kinds).
  const described = Array.isArray(columns) && columns.some((c) => typeof at(c, 'description') === 'string');
  const newer = resources || flinkVersions.includes('v2_3') || (kind !== 'FlinkBlueGreenDeployment' && !described);
  return { kind, release: newer ? '1.16' : '1.15', resources, flinkVersions, schema };
}

/**
 * Whether a FlinkDeployment shows the 1.16 operator's fingerprint: its `lastReconciledSpec` carries a `resources` key
 * under jobManager or taskManager (the 1.16 model writes it, null when unset). Absent proves nothing.
 */
export function reconciledBy116(resource: unknown): boolean {
  const text = at(resource, 'status', 'reconciliationStatus', 'lastReconciledSpec');
  if (typeof text !== 'string') return false;
  try {
    const spec = at(JSON.parse(text), 'spec');
    return ['jobManager', 'taskManager'].some((p) => isRecord(at(spec, p)) && REQUIREMENTS in (at(spec, p) as object));
  } catch {
    return false;
  }
}

/**
 * The installed CRDs in one line, for `/flink status` and `/readyz`: their release (one, or each kind's when they
 * differ), whether `resources` exists, how far flinkVersion goes; or why they could not be read.
 */
export function describeCrds(crds: Partial<Record<CrdKind, CrdFacts>>, unreadable?: string): string {
  if (unreadable) return `unknown: ${unreadable}`;
  const kinds = Object.keys(CRD_NAMES) as CrdKind[];
  const found = kinds.flatMap((k) => (crds[k] ? [crds[k]] : []));
  if (found.length === 0) return 'no Flink CRD installed';
  const releases = new Set(found.map((f) => f.release));
  const head =
    releases.size === 1
      ? `operator ${found[0]?.release} CRDs`
      : `mixed CRDs: ${found.map((f) => `${f.kind} ${f.release}`).join(', ')}`;
  const deployment = crds.FlinkDeployment;
  const parts = [head];
  if (deployment) {
    parts.push(
      deployment.resources ? 'with jobManager/taskManager.resources' : 'without jobManager/taskManager.resources',
    );
    const last = deployment.flinkVersions.at(-1);
    if (last) parts.push(`flinkVersion up to ${last}`);
  }
  const missing = kinds.filter((k) => !crds[k]);
  if (missing.length > 0) parts.push(`not installed: ${missing.join(', ')}`);
  return parts.join('; ');
}

/**
 * What a FlinkDeployment tells of the operator beside the CRD: the 1.16 fingerprint on 1.15 CRDs is a mismatch the
 * bot names (the 1.16 operator's `resources` cannot be written there). Its absence on 1.16 CRDs is only a hint,
 * said as one: a 1.15 operator, or a 1.16 one that has not reconciled the resource since its upgrade.
 */
export function operatorOnCrds(
  resource: unknown,
  deployment: CrdFacts | undefined,
): { words: string; mismatch: boolean } | undefined {
  if (!reconciledBy116(resource)) {
    const reconciled = at(resource, 'status', 'reconciliationStatus', 'lastReconciledSpec');
    if (!deployment?.resources || typeof reconciled !== 'string') return undefined;
    const words = 'no sign of operator 1.16 on this resource (a 1.15 operator on 1.16 CRDs would ignore resources)';
    return { words, mismatch: false };
  }
  if (deployment && !deployment.resources) {
    const words =
      'operator 1.16 on 1.15 CRDs: the FlinkDeployment CRD lacks jobManager/taskManager.resources (upgrade the CRDs)';
    return { words, mismatch: true };
  }
  return { words: 'operator 1.16 (its lastReconciledSpec carries resources)', mismatch: false };
}
