// The field tree each operator release's Flink CRDs declare, as the simulator's own compact model: what the API server
// keeps of a custom resource (everything else is pruned, docs/sandbox.md#crd-schemas) and the flinkVersion values it
// admits. Pod templates are kept whole: the real CRDs declare the full Pod schema there, which this model does not.
import type { OperatorVersion } from './versions.js';

export type SchemaNode =
  | { type: 'string'; enum?: readonly string[] }
  | { type: 'integer' | 'number' | 'boolean' }
  | { type: 'array'; items: SchemaNode }
  | {
      type: 'object';
      properties?: Readonly<Record<string, SchemaNode>>;
      /** Any key, each value of this shape (a map such as `logConfiguration`). */
      additionalProperties?: SchemaNode;
      /** `x-kubernetes-preserve-unknown-fields`: nothing below is pruned. */
      preserveUnknownFields?: true;
    };

/** The Flink custom resources (the store's resources but events and configmaps). */
export type FlinkResource =
  'flinkdeployments' | 'flinksessionjobs' | 'flinkstatesnapshots' | 'flinkbluegreendeployments';

const str: SchemaNode = { type: 'string' };
const int: SchemaNode = { type: 'integer' };
const num: SchemaNode = { type: 'number' };
const bool: SchemaNode = { type: 'boolean' };
const obj = (properties: Record<string, SchemaNode>): SchemaNode => ({ type: 'object', properties });
const map = (values: SchemaNode): SchemaNode => ({ type: 'object', additionalProperties: values });
const list = (items: SchemaNode): SchemaNode => ({ type: 'array', items });
const kept: SchemaNode = { type: 'object', preserveUnknownFields: true };
const oneOf = (...values: string[]): SchemaNode => ({ type: 'string', enum: values });

const FLINK_VERSIONS_1_15 = [
  'v1_13',
  'v1_14',
  'v1_15',
  'v1_16',
  'v1_17',
  'v1_18',
  'v1_19',
  'v1_20',
  'v2_0',
  'v2_1',
  'v2_2',
];

/** The flinkVersion values each release's CRD admits (1.16 adds Flink 2.3 and 2.4). */
export const FLINK_VERSIONS: Readonly<Record<OperatorVersion, readonly string[]>> = {
  '1.15': FLINK_VERSIONS_1_15,
  '1.16': [...FLINK_VERSIONS_1_15, 'v2_3', 'v2_4'],
};

const POD_TEMPLATE = obj({ apiVersion: str, kind: str, metadata: kept, spec: kept, status: kept });

const JOB = obj({
  allowNonRestoredState: bool,
  args: list(str),
  autoscalerResetNonce: int,
  checkpointTriggerNonce: int,
  entryClass: str,
  initialSavepointPath: str,
  jarURI: str,
  parallelism: int,
  savepointRedeployNonce: int,
  savepointTriggerNonce: int,
  state: oneOf('running', 'suspended'),
  upgradeMode: oneOf('savepoint', 'last-state', 'stateless'),
});

/** ResourceRequirements, which 1.16 adds beside the deprecated `resource`. */
const RESOURCE_REQUIREMENTS = obj({
  claims: list(obj({ name: str, request: str })),
  limits: map(str),
  requests: map(str),
});

function processSpec(crd: OperatorVersion): SchemaNode {
  const fields: Record<string, SchemaNode> = {
    podTemplate: POD_TEMPLATE,
    replicas: int,
    resource: obj({ cpu: num, ephemeralStorage: str, memory: str }),
  };
  if (crd === '1.16') fields.resources = RESOURCE_REQUIREMENTS;
  return obj(fields);
}

const INGRESS = obj({
  annotations: map(str),
  className: str,
  labels: map(str),
  template: str,
  tls: list(obj({ hosts: list(str), secretName: str })),
});

function deploymentSpec(crd: OperatorVersion): SchemaNode {
  return obj({
    flinkConfiguration: kept,
    flinkVersion: { type: 'string', enum: FLINK_VERSIONS[crd] },
    image: str,
    imagePullPolicy: str,
    ingress: INGRESS,
    job: JOB,
    jobManager: processSpec(crd),
    logConfiguration: map(str),
    mode: oneOf('native', 'standalone'),
    podTemplate: POD_TEMPLATE,
    restartNonce: int,
    serviceAccount: str,
    taskManager: processSpec(crd),
  });
}

const SESSION_JOB_SPEC = obj({ deploymentName: str, flinkConfiguration: kept, job: JOB, restartNonce: int });

const SNAPSHOT_SPEC = obj({
  backoffLimit: int,
  // Declared as an object without properties: whatever is written inside it is pruned.
  checkpoint: { type: 'object' },
  jobReference: obj({ kind: oneOf('FlinkDeployment', 'FlinkSessionJob'), name: str }),
  savepoint: obj({
    alreadyExists: bool,
    disposeOnDelete: bool,
    formatType: oneOf('CANONICAL', 'NATIVE', 'UNKNOWN'),
    path: str,
  }),
});

const TEMPLATE_METADATA = obj({
  annotations: map(str),
  creationTimestamp: str,
  deletionGracePeriodSeconds: int,
  deletionTimestamp: str,
  finalizers: list(str),
  generateName: str,
  generation: int,
  labels: map(str),
  // fieldsV1 is declared without properties, so what a template carries there is pruned, as in the real CRD.
  managedFields: list(
    obj({
      apiVersion: str,
      fieldsType: str,
      fieldsV1: { type: 'object' },
      manager: str,
      operation: str,
      subresource: str,
      time: str,
    }),
  ),
  name: str,
  namespace: str,
  ownerReferences: list(
    obj({ apiVersion: str, blockOwnerDeletion: bool, controller: bool, kind: str, name: str, uid: str }),
  ),
  resourceVersion: str,
  selfLink: str,
  uid: str,
});

function blueGreenSpec(crd: OperatorVersion): SchemaNode {
  return obj({
    configuration: map(str),
    ingress: INGRESS,
    template: obj({ metadata: TEMPLATE_METADATA, spec: deploymentSpec(crd) }),
  });
}

/**
 * The schema of one Flink CRD of a release, from the object's root. `status` is kept whole: the simulated operator
 * writes it through the store, and nothing the bot writes goes there.
 */
export function crdSchema(resource: FlinkResource, crd: OperatorVersion): SchemaNode {
  const key = `${resource}@${crd}`;
  let schema = SCHEMAS.get(key);
  if (!schema) {
    schema = rootSchema(resource, crd);
    SCHEMAS.set(key, schema);
  }
  return schema;
}

const SCHEMAS = new Map<string, SchemaNode>();

function rootSchema(resource: FlinkResource, crd: OperatorVersion): SchemaNode {
  const spec = {
    flinkdeployments: () => deploymentSpec(crd),
    flinksessionjobs: () => SESSION_JOB_SPEC,
    flinkstatesnapshots: () => SNAPSHOT_SPEC,
    flinkbluegreendeployments: () => blueGreenSpec(crd),
  }[resource]();
  return obj({ apiVersion: str, kind: str, metadata: kept, spec, status: kept });
}
