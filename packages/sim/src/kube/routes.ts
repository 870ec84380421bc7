// URL → what is being asked for: resource, namespace, name, subresource and the Kubernetes verb.
import { CRD_GROUP, CRD_PLURAL } from './crds.js';
import { FLINK_GROUP, FLINK_VERSION, RESOURCES, type ResourceDef } from './resources.js';
import { SIM_RESOURCES, type SimResource } from './store.js';

export type Route =
  | {
      kind: 'resource';
      def: ResourceDef;
      namespace?: string;
      name?: string;
      subresource?: 'status';
      /** The deprecated `/watch/` path prefix, which means watch=true. */
      watchPrefix: boolean;
    }
  | { kind: 'namespaces'; name?: string }
  /** `apiextensions.k8s.io/v1` `customresourcedefinitions[/<name>]`: the installed Flink CRDs, read-only (crds.ts). */
  | { kind: 'crds'; name?: string }
  /** `services/<name>[:<port>]/proxy/<path>`: the API server forwarding a GET to a Service (the Flink REST API). */
  | { kind: 'proxy'; namespace: string; service: string; path: string }
  /** Pods of the simulated Flink clusters and their `log` subresource (pods.ts, pod-logs.ts): read-only. */
  | { kind: 'pods'; namespace?: string; name?: string; log: boolean }
  | { kind: 'other' };

/** What a request does, for fault matching, RBAC denials and request counting. */
export interface RequestInfo {
  method: string;
  /** get, list, watch, create, update, patch, delete, deletecollection; `get` for non-resource paths. */
  verb: string;
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  path: string;
  /** Pods requests only: the query (`labelSelector`, `container`, `tailLines`), so tests can see what was asked. */
  query?: Record<string, string>;
  /** The Impersonate-User / Impersonate-Group headers, when the request carried any (docs/sandbox.md#impersonation). */
  impersonate?: { user?: string; groups: string[] };
}

const FLINK_PREFIX = ['apis', FLINK_GROUP, FLINK_VERSION];
const CORE_PREFIX = ['api', 'v1'];
const CRD_PREFIX = ['apis', CRD_GROUP, 'v1', CRD_PLURAL];

function startsWith(parts: string[], prefix: string[]): boolean {
  return prefix.every((p, i) => parts[i] === p);
}

function resourceRoute(rest: string[], group: 'core' | 'flink', watchPrefix: boolean): Route {
  let namespace: string | undefined;
  let tail = rest;
  if (tail[0] === 'namespaces' && tail.length >= 3) {
    namespace = tail[1];
    tail = tail.slice(2);
  }
  const [plural, name, subresource, ...extra] = tail;
  if (!plural || extra.length > 0 || !(SIM_RESOURCES as readonly string[]).includes(plural)) return { kind: 'other' };
  const def = RESOURCES[plural as SimResource];
  if ((def.group === '') !== (group === 'core')) return { kind: 'other' };
  if (subresource !== undefined && !(def.subresources as readonly string[]).includes(subresource))
    return { kind: 'other' };
  if (name === '') return { kind: 'other' };
  const route: Route = { kind: 'resource', def, watchPrefix };
  if (namespace !== undefined) route.namespace = namespace;
  if (name !== undefined) route.name = name;
  if (subresource === 'status') route.subresource = 'status';
  return route;
}

export function parseRoute(pathname: string): Route {
  let parts: string[];
  try {
    parts = pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return { kind: 'other' };
  }
  if (parts[parts.length - 1] === '') parts.pop();
  if (startsWith(parts, CRD_PREFIX) && parts.length <= CRD_PREFIX.length + 1) {
    const name = parts[CRD_PREFIX.length];
    return name === undefined ? { kind: 'crds' } : { kind: 'crds', name };
  }
  const group = startsWith(parts, FLINK_PREFIX) ? 'flink' : startsWith(parts, CORE_PREFIX) ? 'core' : undefined;
  if (!group) return { kind: 'other' };
  let rest = parts.slice(group === 'flink' ? FLINK_PREFIX.length : CORE_PREFIX.length);
  const watchPrefix = rest[0] === 'watch';
  if (watchPrefix) rest = rest.slice(1);
  if (group === 'core' && rest[0] === 'namespaces' && rest[2] === 'services' && rest[4] === 'proxy' && rest[3]) {
    return { kind: 'proxy', namespace: rest[1] as string, service: rest[3], path: `/${rest.slice(5).join('/')}` };
  }
  const pods = group === 'core' && !watchPrefix ? podsRoute(rest) : undefined;
  if (pods) return pods;
  if (group === 'core' && !watchPrefix && rest[0] === 'namespaces' && rest.length <= 2) {
    return rest.length === 2 ? { kind: 'namespaces', name: rest[1] as string } : { kind: 'namespaces' };
  }
  return resourceRoute(rest, group, watchPrefix);
}

/** `pods`, `namespaces/<ns>/pods[/<name>[/log]]`; undefined for any other path. */
function podsRoute(rest: string[]): Route | undefined {
  const namespaced = rest[0] === 'namespaces' && rest[2] === 'pods' && rest[1] !== undefined;
  const tail = namespaced ? rest.slice(3) : rest[0] === 'pods' ? rest.slice(1) : undefined;
  if (tail === undefined || tail.length > 2 || (tail.length === 2 && tail[1] !== 'log') || tail[0] === '')
    return undefined;
  if (!namespaced && tail.length > 0) return { kind: 'other' };
  const route: Route = { kind: 'pods', log: tail[1] === 'log' };
  if (namespaced) route.namespace = rest[1] as string;
  if (tail[0] !== undefined) route.name = tail[0];
  return route;
}

function isWatch(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1';
}

/** The Kubernetes verb of a request, as RBAC and audit logs name it. */
export function verbOf(method: string, route: Route, query: URLSearchParams): string {
  if (route.kind === 'proxy') return method === 'GET' || method === 'HEAD' ? 'get' : method.toLowerCase();
  const named = route.kind !== 'other' && route.name !== undefined;
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (route.kind === 'other') return 'get';
      if (named) return 'get';
      return isWatch(query) || (route.kind === 'resource' && route.watchPrefix) ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

export function requestInfo(method: string, pathname: string, route: Route, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = { method, verb: verbOf(method, route, query), path: pathname };
  if (route.kind === 'resource') {
    info.resource = route.def.plural;
    if (route.namespace !== undefined) info.namespace = route.namespace;
    if (route.name !== undefined) info.name = route.name;
    if (route.subresource !== undefined) info.subresource = route.subresource;
  } else if (route.kind === 'namespaces' || route.kind === 'crds') {
    info.resource = route.kind === 'crds' ? CRD_PLURAL : 'namespaces';
    if (route.name !== undefined) info.name = route.name;
  } else if (route.kind === 'pods') {
    info.resource = 'pods';
    if (route.log) info.subresource = 'log';
    info.query = Object.fromEntries(query);
    if (route.namespace !== undefined) info.namespace = route.namespace;
    if (route.name !== undefined) info.name = route.name;
  } else if (route.kind === 'proxy') {
    info.resource = 'services';
    info.subresource = 'proxy';
    info.namespace = route.namespace;
    info.name = route.service;
  }
  return info;
}
