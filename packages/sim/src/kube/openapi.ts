// A minimal OpenAPI v3 surface: enough for kubectl to see that the server validates fields itself (create/apply -f).
// kubectl 1.27+ looks for a `fieldValidation` query parameter on the resource's PATCH operation; without any OpenAPI
// it refuses `create -f` unless --validate=false. Schemas are deliberately absent (`kubectl explain` stays unsupported).
import { SERVER_VERSION } from './discovery.js';
import { FLINK_GROUP, FLINK_RESOURCES, FLINK_VERSION, RESOURCES, type ResourceDef } from './resources.js';

const GROUPS = {
  [`apis/${FLINK_GROUP}/${FLINK_VERSION}`]: { prefix: `/apis/${FLINK_GROUP}/${FLINK_VERSION}`, defs: FLINK_RESOURCES },
  'api/v1': { prefix: '/api/v1', defs: [RESOURCES.events] },
} as const;

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
}));

function operations(def: ResourceDef): Record<string, unknown> {
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const op = (action: string) => ({
    operationId: `${action}${def.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    parameters: QUERY_PARAMS,
    responses: { '200': { description: 'OK' } },
  });
  return { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
}

function groupDocument(prefix: string, defs: readonly ResourceDef[]): unknown {
  const paths: Record<string, unknown> = {};
  for (const def of defs) {
    paths[`${prefix}/namespaces/{namespace}/${def.plural}/{name}`] = operations(def);
    for (const sub of def.subresources)
      paths[`${prefix}/namespaces/{namespace}/${def.plural}/{name}/${sub}`] = operations(def);
  }
  if (prefix === '/api/v1') Object.assign(paths, podPaths());
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas: {} },
  };
}

/** The pods are read-only (pods.ts): GET on a pod and on its log. */
function podPaths(): Record<string, unknown> {
  const gvk = { group: '', version: 'v1', kind: 'Pod' };
  const get = (operationId: string) => ({
    get: {
      operationId,
      'x-kubernetes-action': 'get',
      'x-kubernetes-group-version-kind': gvk,
      responses: { '200': { description: 'OK' } },
    },
  });
  return {
    '/api/v1/namespaces/{namespace}/pods/{name}': get('readCoreV1NamespacedPod'),
    '/api/v1/namespaces/{namespace}/pods/{name}/log': get('readCoreV1NamespacedPodLog'),
  };
}

/** The OpenAPI v3 document at `path` (root index or one group-version), or undefined. */
export function openApiV3(path: string): unknown {
  if (path === '/openapi/v3') {
    return {
      paths: Object.fromEntries(
        Object.keys(GROUPS).map((gv) => [
          gv,
          { serverRelativeURL: `/openapi/v3/${gv}?hash=sim-${SERVER_VERSION.gitVersion}` },
        ]),
      ),
    };
  }
  const gv = path.replace(/^\/openapi\/v3\//, '');
  const group = GROUPS[gv as keyof typeof GROUPS];
  return group ? groupDocument(group.prefix, group.defs) : undefined;
}
