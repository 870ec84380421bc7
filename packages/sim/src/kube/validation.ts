// Admission-time validation of the spec fields the bot writes, with kube-apiserver's wording for schema errors. The
// CRDs set no minimum on parallelism or replicas: a 0 is admitted and refused later by the operator
// (operator-validation.ts); the flinkVersion values come from the installed CRD's release (crd-schema.ts).
import { FLINK_VERSIONS } from './crd-schema.js';
import type { KubeObject, SimResource, Validator } from './store.js';
import { JOB_GRAPH_ANNOTATION, jobGraphProblem } from './job-graph.js';
import type { OperatorVersion } from './versions.js';

type Cause = { field: string; message: string };

const RFC1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** kube-apiserver's object-name rule (a lowercase RFC 1123 subdomain of at most 253 characters), in its words. */
function nameProblem(name: string): string | undefined {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (RFC1123_SUBDOMAIN.test(name)) return undefined;
  return `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (regex used for validation is '${RFC1123_SUBDOMAIN.source.slice(1, -1)}')`;
}
type Check = (value: unknown, field: string) => string | undefined;

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const integer = (): Check => (value, field) =>
  typeof value === 'number' && Number.isInteger(value)
    ? undefined
    : `Invalid value: ${show(value)}: ${field} in body must be of type integer: "${typeName(value)}"`;

const ofType =
  (type: 'string' | 'boolean' | 'object'): Check =>
  (value, field) =>
    typeName(value) === type
      ? undefined
      : `Invalid value: ${show(value)}: ${field} in body must be of type ${type}: "${typeName(value)}"`;

const oneOf =
  (...allowed: string[]): Check =>
  (value) =>
    typeof value === 'string' && allowed.includes(value)
      ? undefined
      : `Unsupported value: ${show(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`;

/** Field path (dot separated, under the object) → check; absent fields are not checked. */
const JOB_FIELDS: Record<string, Check> = {
  'spec.job': ofType('object'),
  'spec.job.state': oneOf('running', 'suspended'),
  'spec.job.upgradeMode': oneOf('stateless', 'savepoint', 'last-state'),
  'spec.job.parallelism': integer(),
  'spec.job.savepointRedeployNonce': integer(),
  'spec.job.savepointTriggerNonce': integer(),
  'spec.job.checkpointTriggerNonce': integer(),
  'spec.job.allowNonRestoredState': ofType('boolean'),
  'spec.job.initialSavepointPath': ofType('string'),
  'spec.restartNonce': integer(),
};

const FIELDS: Record<Exclude<SimResource, 'events' | 'configmaps'>, Record<string, Check>> = {
  flinkdeployments: {
    ...JOB_FIELDS,
    'spec.image': ofType('string'),
    'spec.taskManager': ofType('object'),
    'spec.taskManager.replicas': integer(),
  },
  flinksessionjobs: { ...JOB_FIELDS, 'spec.deploymentName': ofType('string') },
  flinkbluegreendeployments: { 'spec.template': ofType('object') },
  flinkstatesnapshots: {
    'spec.jobReference': ofType('object'),
    'spec.jobReference.kind': oneOf('FlinkDeployment', 'FlinkSessionJob'),
    'spec.jobReference.name': ofType('string'),
    'spec.backoffLimit': integer(),
    'spec.savepoint': ofType('object'),
    'spec.savepoint.disposeOnDelete': ofType('boolean'),
    'spec.savepoint.alreadyExists': ofType('boolean'),
    'spec.savepoint.path': ofType('string'),
    'spec.savepoint.formatType': oneOf('CANONICAL', 'NATIVE', 'UNKNOWN'),
    'spec.checkpoint': ofType('object'),
  },
};

function at(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function snapshotShape(object: KubeObject): Cause[] {
  const spec = object.spec ?? {};
  const hasSavepoint = spec.savepoint !== undefined && spec.savepoint !== null;
  const hasCheckpoint = spec.checkpoint !== undefined && spec.checkpoint !== null;
  if (hasSavepoint === hasCheckpoint) {
    return [
      {
        field: 'spec',
        message: `Invalid value: "object": exactly one of spec.savepoint or spec.checkpoint must be set`,
      },
    ];
  }
  return [];
}

/** The flinkVersion enum of the installed CRD (FlinkDeployment, and the Blue/Green template). */
function flinkVersionChecks(resource: SimResource, crd: OperatorVersion): Record<string, Check> {
  const check = oneOf(...FLINK_VERSIONS[crd]);
  if (resource === 'flinkdeployments') return { 'spec.flinkVersion': check };
  if (resource === 'flinkbluegreendeployments') return { 'spec.template.spec.flinkVersion': check };
  return {};
}

/** Validation against the CRDs of the release `crd()` names at the time of each write. */
export function validatorFor(crd: () => OperatorVersion): Validator {
  return (resource, object) => {
    const causes = validateSpec(resource, object);
    if (resource === 'events' || resource === 'configmaps' || causes.some((c) => c.field === 'spec')) return causes;
    for (const [field, check] of Object.entries(flinkVersionChecks(resource, crd()))) {
      const value = at(object, field);
      const message = value === undefined ? undefined : check(value, field);
      if (message) causes.push({ field, message });
    }
    return causes;
  };
}

/** Validates what admission would: the object name and the schema of the fields the bot touches. */
export const validateSpec: Validator = (resource, object) => {
  if (resource === 'events' || resource === 'configmaps') return [];
  const causes: Cause[] = [];
  const problem = nameProblem(object.metadata.name);
  if (problem)
    causes.push({ field: 'metadata.name', message: `Invalid value: ${show(object.metadata.name)}: ${problem}` });
  if (object.spec === undefined || typeName(object.spec) !== 'object') {
    causes.push({ field: 'spec', message: `Required value: ${object.kind} needs a spec object` });
    return causes;
  }
  for (const [field, check] of Object.entries(FIELDS[resource])) {
    const value = at(object, field);
    if (value === undefined) continue;
    const message = check(value, field);
    if (message) causes.push({ field, message });
  }
  if (resource === 'flinkstatesnapshots') causes.push(...snapshotShape(object));
  const graph = resource === 'flinkstatesnapshots' ? undefined : jobGraphProblem(object);
  if (graph)
    causes.push({
      field: `metadata.annotations[${JOB_GRAPH_ANNOTATION}]`,
      message: `Invalid value: the simulated job graph cannot be read: ${graph}`,
    });
  return causes;
};
