// The resource types the simulated API server serves: names, kinds, verbs and printer columns, as the CRDs declare them.
import type { SimResource } from './store.js';

export const FLINK_GROUP = 'flink.apache.org';
export const FLINK_VERSION = 'v1beta1';
export const FLINK_API_VERSION = `${FLINK_GROUP}/${FLINK_VERSION}`;

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
  description: string;
  priority: number;
}

export interface ResourceDef {
  plural: SimResource;
  singular: string;
  kind: string;
  listKind: string;
  /** '' is the core group. */
  group: string;
  version: string;
  shortNames: readonly string[];
  verbs: readonly string[];
  subresources: readonly 'status'[];
  /** Field selectors the server accepts besides metadata.name and metadata.namespace. */
  extraFieldSelectors: readonly string[];
}

const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'] as const;
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

function flink(plural: SimResource, kind: string, shortName: string): ResourceDef {
  return {
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    group: FLINK_GROUP,
    version: FLINK_VERSION,
    shortNames: [shortName],
    verbs: CR_VERBS,
    subresources: ['status'],
    extraFieldSelectors: [],
  };
}

export const RESOURCES: Readonly<Record<SimResource, ResourceDef>> = {
  flinkdeployments: flink('flinkdeployments', 'FlinkDeployment', 'flinkdep'),
  flinksessionjobs: flink('flinksessionjobs', 'FlinkSessionJob', 'sessionjob'),
  flinkstatesnapshots: flink('flinkstatesnapshots', 'FlinkStateSnapshot', 'flinksnp'),
  flinkbluegreendeployments: flink('flinkbluegreendeployments', 'FlinkBlueGreenDeployment', 'flinkbgdep'),
  events: {
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    listKind: 'EventList',
    group: '',
    version: 'v1',
    shortNames: ['ev'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    extraFieldSelectors: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  // The operator's autoscaler keeps its state in `autoscaler-<name>` ConfigMaps.
  configmaps: {
    plural: 'configmaps',
    singular: 'configmap',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    group: '',
    version: 'v1',
    shortNames: ['cm'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    extraFieldSelectors: [],
  },
};

export const SUBRESOURCE_VERBS = STATUS_VERBS;

/** The Namespace resource: listed and read, never written through this server. */
export const NAMESPACES = {
  plural: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  shortNames: ['ns'],
  verbs: ['get', 'list'],
} as const;

export const FLINK_RESOURCES: readonly ResourceDef[] = [
  RESOURCES.flinkdeployments,
  RESOURCES.flinksessionjobs,
  RESOURCES.flinkstatesnapshots,
  RESOURCES.flinkbluegreendeployments,
];

export function apiVersionOf(def: ResourceDef): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}

const JOB_COLUMNS: readonly PrinterColumn[] = [
  {
    name: 'Job Status',
    type: 'string',
    jsonPath: '.status.jobStatus.state',
    description: 'Last observed state of the job.',
    priority: 0,
  },
  {
    name: 'Lifecycle State',
    type: 'string',
    jsonPath: '.status.lifecycleState',
    description: 'Lifecycle state of the Flink resource (including being rolled back, failed etc.).',
    priority: 0,
  },
];

/** additionalPrinterColumns of the CRDs (release-1.15.0); the server adds NAME itself, as for any CRD. */
export const PRINTER_COLUMNS: Readonly<
  Record<Exclude<SimResource, 'events' | 'configmaps'>, readonly PrinterColumn[]>
> = {
  flinkdeployments: JOB_COLUMNS,
  flinksessionjobs: JOB_COLUMNS,
  flinkbluegreendeployments: [JOB_COLUMNS[0] as PrinterColumn],
  flinkstatesnapshots: [
    { name: 'Path', type: 'string', jsonPath: '.status.path', description: 'Final path of the snapshot.', priority: 0 },
    {
      name: 'Result Timestamp',
      type: 'string',
      jsonPath: '.status.resultTimestamp',
      description: 'Timestamp when the snapshot was last created/failed.',
      priority: 0,
    },
    {
      name: 'Snapshot State',
      type: 'string',
      jsonPath: '.status.state',
      description: 'Current state of the snapshot.',
      priority: 0,
    },
  ],
};
