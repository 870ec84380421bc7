// Read verbs of the simulated API server: get, list (selectors, Table output) and watch setup; namespaces.
import { apiVersionOf, type ResourceDef } from './resources.js';
import type { Route } from './routes.js';
import {
  byKey,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelRequirement,
} from './selectors.js';
import { errors } from './status.js';
import { ApiError, type KubeObject, type SimStore } from './store.js';
import { namespaceTable, toTable, type IncludeObject, type NamespaceObject, type TableOptions } from './table.js';
import type { WatchSpec } from './watch.js';

export type ResourceRoute = Extract<Route, { kind: 'resource' }>;

export interface RequestContext {
  store: SimStore;
  query: URLSearchParams;
  accept: string;
  /** The request's User-Agent: writes without `fieldManager` are attributed to its program name. */
  userAgent?: string;
}

export type Answer =
  /** `warnings`: `Warning` response headers (unknown fields a write dropped, field-validation.ts). */
  { kind: 'json'; status: number; body: unknown; warnings?: string[] } | { kind: 'watch'; spec: WatchSpec };

export const ok = (body: unknown, status = 200): Answer => ({ kind: 'json', status, body });

/** The Table version the client asked for ahead of plain JSON, if any (kubectl get asks for v1, then v1beta1). */
export function tableVersion(accept: string): string | undefined {
  for (const part of accept.split(',')) {
    const params = part.split(';').map((p) => p.trim());
    const [type] = params;
    if (params.includes('as=Table') && params.includes('g=meta.k8s.io')) {
      if (params.includes('v=v1')) return 'meta.k8s.io/v1';
      if (params.includes('v=v1beta1')) return 'meta.k8s.io/v1beta1';
      continue;
    }
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return undefined;
  }
  return undefined;
}

function tableOptions(ctx: RequestContext): TableOptions | undefined {
  const apiVersion = tableVersion(ctx.accept);
  if (!apiVersion) return undefined;
  const raw = ctx.query.get('includeObject') ?? 'Metadata';
  if (raw !== 'None' && raw !== 'Metadata' && raw !== 'Object') {
    throw errors.badRequest(`includeObject must be one of None, Metadata, Object: "${raw}"`);
  }
  return { apiVersion, includeObject: raw as IncludeObject, now: ctx.store.now() };
}

interface Selectors {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

function selectors(def: ResourceDef, query: URLSearchParams): Selectors {
  const labels = parseLabelSelector(query.get('labelSelector') ?? '');
  if (!labels.ok) throw errors.badRequest(labels.message);
  const supported = ['metadata.name', 'metadata.namespace', ...def.extraFieldSelectors];
  const fields = parseFieldSelector(query.get('fieldSelector') ?? '', supported, def.group === '');
  if (!fields.ok) throw errors.badRequest(fields.message);
  return { labels: labels.value, fields: fields.value };
}

export function selectObjects(ctx: RequestContext, route: ResourceRoute): KubeObject[] {
  const { labels, fields } = selectors(route.def, ctx.query);
  return ctx.store
    .list(route.def.plural, route.namespace)
    .filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o))
    .sort(byKey);
}

export function getObject(ctx: RequestContext, route: ResourceRoute & { name: string }): Answer {
  const namespace = requireNamespace(route);
  const object = ctx.store.get(route.def.plural, namespace, route.name);
  if (!object) throw notFound(route.def, route.name);
  const table = tableOptions(ctx);
  if (table) return ok(toTable(route.def.plural, [object], object.metadata.resourceVersion ?? '', table));
  return ok(object);
}

export function listObjects(ctx: RequestContext, route: ResourceRoute): Answer {
  const items = selectObjects(ctx, route);
  const resourceVersion = ctx.store.resourceVersion;
  const table = tableOptions(ctx);
  if (table) return ok(toTable(route.def.plural, items, resourceVersion, table));
  return ok({ apiVersion: apiVersionOf(route.def), kind: route.def.listKind, metadata: { resourceVersion }, items });
}

function optionalInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw errors.badRequest(`${name}: invalid value "${raw}": must be a non-negative integer`);
  return Number(raw);
}

export function watchObjects(ctx: RequestContext, route: ResourceRoute, expire: () => boolean): Answer {
  const { labels, fields } = selectors(route.def, ctx.query);
  const rv = ctx.query.get('resourceVersion') ?? undefined;
  if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv)) throw errors.badRequest(`invalid resource version: "${rv}"`);
  const table = tableOptions(ctx);
  const def = route.def;
  const resuming = rv !== undefined && rv !== '' && rv !== '0';
  const spec: WatchSpec = {
    resource: def.plural,
    labels,
    fields,
    sendInitialEvents: ctx.query.get('sendInitialEvents') === 'true',
    allowBookmarks: ctx.query.get('allowWatchBookmarks') === 'true' || ctx.query.get('allowWatchBookmarks') === '1',
    expire: resuming && expire(),
    format: table ? `table:${table.apiVersion}:${table.includeObject}` : 'json',
    render: table
      ? (object) =>
          toTable(def.plural, [object], object.metadata.resourceVersion ?? '', { ...table, now: ctx.store.now() })
      : (object) => object,
    kind: def.kind,
    apiVersion: apiVersionOf(def),
  };
  if (route.namespace !== undefined) spec.namespace = route.namespace;
  if (rv !== undefined) spec.resourceVersion = rv;
  const timeoutSeconds = optionalInt(ctx.query, 'timeoutSeconds');
  if (timeoutSeconds !== undefined) spec.timeoutSeconds = timeoutSeconds;
  return { kind: 'watch', spec };
}

export function requireNamespace(route: ResourceRoute): string {
  if (route.namespace === undefined) throw errors.notFoundPath();
  return route.namespace;
}

export function notFound(def: ResourceDef, name: string): ApiError {
  const qualified = def.group === '' ? def.plural : `${def.plural}.${def.group}`;
  const details: Record<string, unknown> = { name, kind: def.plural };
  if (def.group !== '') details.group = def.group;
  return new ApiError(404, 'NotFound', `${qualified} "${name}" not found`, details);
}

function namespaceObject(ns: ReturnType<SimStore['namespaces']>[number]): NamespaceObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: ns.name,
      uid: ns.uid,
      resourceVersion: ns.resourceVersion,
      creationTimestamp: ns.creationTimestamp,
      labels: { 'kubernetes.io/metadata.name': ns.name },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function namespaces(ctx: RequestContext, name: string | undefined, verb: string): Answer {
  if (verb !== 'get' && verb !== 'list') throw errors.methodNotAllowed(verb, 'namespaces');
  const table = tableOptions(ctx);
  if (name !== undefined) {
    const ns = ctx.store.namespace(name);
    if (!ns) throw new ApiError(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' });
    const object = namespaceObject(ns);
    return ok(table ? namespaceTable([object], ns.resourceVersion, table) : object);
  }
  const items = ctx.store.namespaces().map(namespaceObject);
  const resourceVersion = ctx.store.resourceVersion;
  if (table) return ok(namespaceTable(items, resourceVersion, table));
  return ok({ apiVersion: 'v1', kind: 'NamespaceList', metadata: { resourceVersion }, items });
}
