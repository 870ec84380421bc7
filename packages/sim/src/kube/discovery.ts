// API discovery documents (/version, /api, /apis, …) in both the legacy and the aggregated (apidiscovery v2) forms.
import {
  FLINK_GROUP,
  FLINK_RESOURCES,
  FLINK_VERSION,
  NAMESPACES,
  RESOURCES,
  SUBRESOURCE_VERBS,
  type ResourceDef,
} from './resources.js';
import { PODS } from './pods.js';
import { CRD_GROUP, CRD_PLURAL } from './crds.js';

/** The installed CRDs, read-only here (crds.ts): cluster-scoped, get, list and watch. */
const CRD_RESOURCE = {
  name: CRD_PLURAL,
  singularName: 'customresourcedefinition',
  namespaced: false,
  kind: 'CustomResourceDefinition',
  verbs: ['get', 'list', 'watch'],
  shortNames: ['crd', 'crds'],
};
const CRD_GROUP_VERSION = { groupVersion: `${CRD_GROUP}/v1`, version: 'v1' };
const CRD_GROUP_DOC = { name: CRD_GROUP, versions: [CRD_GROUP_VERSION], preferredVersion: CRD_GROUP_VERSION };

const CRD_AGGREGATED = {
  metadata: { name: CRD_GROUP, creationTimestamp: null },
  versions: [
    {
      version: 'v1',
      resources: [
        {
          resource: CRD_PLURAL,
          responseKind: { group: CRD_GROUP, version: 'v1', kind: CRD_RESOURCE.kind },
          scope: 'Cluster',
          singularResource: CRD_RESOURCE.singularName,
          verbs: CRD_RESOURCE.verbs,
          shortNames: CRD_RESOURCE.shortNames,
        },
      ],
      freshness: 'Current',
    },
  ],
};

/**
 * A v1.31 server: kubectl's version-picking wrapper on these machines warns outside 1.27–1.33
 * (docs/deployment.md#supported-releases).
 */
export const SERVER_VERSION = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.4',
  gitCommit: 'a78aa47129b8539636eb86a9d00e31b2720fe06b',
  gitTreeState: 'clean',
  buildDate: '2024-12-10T11:37:20Z',
  goVersion: 'go1.22.9',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

export interface DiscoveryAnswer {
  body: unknown;
  contentType: string;
}

const JSON_TYPE = 'application/json';

function legacyResource(def: ResourceDef): unknown[] {
  const main = {
    name: def.plural,
    singularName: def.singular,
    namespaced: true,
    kind: def.kind,
    verbs: def.verbs,
    shortNames: def.shortNames,
  };
  const subs = def.subresources.map((sub) => ({
    name: `${def.plural}/${sub}`,
    singularName: '',
    namespaced: true,
    kind: def.kind,
    verbs: SUBRESOURCE_VERBS,
  }));
  return [main, ...subs];
}

const PODS_LEGACY = [
  {
    name: PODS.plural,
    singularName: PODS.singular,
    namespaced: true,
    kind: PODS.kind,
    verbs: PODS.verbs,
    shortNames: PODS.shortNames,
  },
  ...PODS.subresources.map((s) => ({
    name: `${PODS.plural}/${s.name}`,
    singularName: '',
    namespaced: true,
    kind: PODS.kind,
    verbs: s.verbs,
  })),
];

const PODS_AGGREGATED = {
  resource: PODS.plural,
  responseKind: { group: '', version: 'v1', kind: PODS.kind },
  scope: 'Namespaced',
  singularResource: PODS.singular,
  verbs: PODS.verbs,
  shortNames: PODS.shortNames,
  subresources: PODS.subresources.map((s) => ({
    subresource: s.name,
    responseKind: { group: '', version: 'v1', kind: PODS.kind },
    verbs: s.verbs,
  })),
};

const NAMESPACE_LEGACY = {
  name: NAMESPACES.plural,
  singularName: NAMESPACES.singular,
  namespaced: false,
  kind: NAMESPACES.kind,
  verbs: NAMESPACES.verbs,
  shortNames: NAMESPACES.shortNames,
};

function aggregatedResource(def: ResourceDef): Record<string, unknown> {
  const responseKind = { group: def.group, version: def.version, kind: def.kind };
  return {
    resource: def.plural,
    responseKind,
    scope: 'Namespaced',
    singularResource: def.singular,
    verbs: def.verbs,
    shortNames: def.shortNames,
    subresources: def.subresources.map((sub) => ({ subresource: sub, responseKind, verbs: SUBRESOURCE_VERBS })),
  };
}

function aggregatedList(version: 'v2' | 'v2beta1', core: boolean, crds: boolean): unknown {
  const item = core
    ? {
        metadata: { creationTimestamp: null },
        versions: [
          {
            version: 'v1',
            resources: [
              aggregatedResource(RESOURCES.events),
              aggregatedResource(RESOURCES.configmaps),
              PODS_AGGREGATED,
              {
                resource: NAMESPACES.plural,
                responseKind: { group: '', version: 'v1', kind: NAMESPACES.kind },
                scope: 'Cluster',
                singularResource: NAMESPACES.singular,
                verbs: NAMESPACES.verbs,
                shortNames: NAMESPACES.shortNames,
              },
            ],
            freshness: 'Current',
          },
        ],
      }
    : {
        metadata: { name: FLINK_GROUP, creationTimestamp: null },
        versions: [
          { version: FLINK_VERSION, resources: FLINK_RESOURCES.map(aggregatedResource), freshness: 'Current' },
        ],
      };
  const items = core || !crds ? [item] : [CRD_AGGREGATED, item];
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** Which aggregated discovery version the Accept header asks for first, if any. */
export function wantsAggregated(accept: string): 'v2' | 'v2beta1' | undefined {
  for (const part of accept.split(',')) {
    const params = part.split(';').map((p) => p.trim());
    if (!params.includes('as=APIGroupDiscoveryList') || !params.includes('g=apidiscovery.k8s.io')) continue;
    if (params.includes('v=v2')) return 'v2';
    if (params.includes('v=v2beta1')) return 'v2beta1';
  }
  return undefined;
}

const GROUP_VERSION = { groupVersion: `${FLINK_GROUP}/${FLINK_VERSION}`, version: FLINK_VERSION };
const FLINK_GROUP_DOC = { name: FLINK_GROUP, versions: [GROUP_VERSION], preferredVersion: GROUP_VERSION };

/**
 * The discovery document at `path`, or undefined when the path is not a discovery path; `crds`: this server serves
 * the installed CRDs (crds.ts), so the apiextensions.k8s.io group is listed.
 */
export function discovery(
  path: string,
  accept: string,
  serverAddress: string,
  crds = false,
): DiscoveryAnswer | undefined {
  const aggregated = wantsAggregated(accept);
  const json = (body: unknown): DiscoveryAnswer => ({ body, contentType: JSON_TYPE });
  switch (path) {
    case '/version':
      return json(SERVER_VERSION);
    case '/api':
      if (aggregated) return { body: aggregatedList(aggregated, true, crds), contentType: aggregatedType(aggregated) };
      return json({
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
      });
    case '/api/v1':
      return json({
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          ...legacyResource(RESOURCES.events),
          ...legacyResource(RESOURCES.configmaps),
          ...PODS_LEGACY,
          NAMESPACE_LEGACY,
        ],
      });
    case '/apis':
      if (aggregated) return { body: aggregatedList(aggregated, false, crds), contentType: aggregatedType(aggregated) };
      return json({
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...(crds ? [CRD_GROUP_DOC] : []), FLINK_GROUP_DOC],
      });
    case `/apis/${CRD_GROUP}`:
      return crds ? json({ kind: 'APIGroup', apiVersion: 'v1', ...CRD_GROUP_DOC }) : undefined;
    case `/apis/${CRD_GROUP}/v1`:
      if (!crds) return undefined;
      return json({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: CRD_GROUP_VERSION.groupVersion,
        resources: [CRD_RESOURCE],
      });
    case `/apis/${FLINK_GROUP}`:
      return json({ kind: 'APIGroup', apiVersion: 'v1', ...FLINK_GROUP_DOC });
    case `/apis/${FLINK_GROUP}/${FLINK_VERSION}`:
      return json({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: GROUP_VERSION.groupVersion,
        resources: FLINK_RESOURCES.flatMap(legacyResource),
      });
    default:
      return undefined;
  }
}

function aggregatedType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}
