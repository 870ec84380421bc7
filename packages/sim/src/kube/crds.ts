// The installed Flink CRDs as CustomResourceDefinition objects (apiextensions.k8s.io/v1), served read-only: their
// openAPIV3Schema from crd-schema.ts and printer columns as each release declares them, listed, read and watched
// (docs/sandbox.md#crd-schemas).
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { crdSchema, type FlinkResource, type SchemaNode } from './crd-schema.js';
import { FLINK_RESOURCES, PRINTER_COLUMNS, type ResourceDef } from './resources.js';
import { errors } from './status.js';
import { ApiError, rfc3339, type SimResource } from './store.js';
import type { OperatorVersion, SimVersions } from './versions.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_PLURAL = 'customresourcedefinitions';
export const CRD_API_VERSION = `${CRD_GROUP}/v1`;

export function isFlinkResource(resource: SimResource): resource is FlinkResource {
  return resource !== 'events' && resource !== 'configmaps';
}

/** The node as a CRD's openAPIV3Schema writes it. */
function openApiSchema(node: SchemaNode): Record<string, unknown> {
  switch (node.type) {
    case 'array':
      return { type: 'array', items: openApiSchema(node.items) };
    case 'object': {
      const out: Record<string, unknown> = { type: 'object' };
      if (node.properties)
        out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, openApiSchema(v)]));
      if (node.additionalProperties) out.additionalProperties = openApiSchema(node.additionalProperties);
      if (node.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
      return out;
    }
    default:
      return { ...node };
  }
}

/**
 * Printer columns: the 1.16 CRDs come from a new generator that writes no column descriptions (the only schema-side
 * sign of a 1.16 FlinkSessionJob or FlinkStateSnapshot CRD).
 */
function printerColumns(plural: FlinkResource, crd: OperatorVersion): Record<string, unknown>[] {
  return PRINTER_COLUMNS[plural].map(({ priority: _p, description, ...column }) =>
    crd === '1.15' && plural !== 'flinkbluegreendeployments' ? { ...column, description } : column,
  );
}

/** The CRDs a simulated cluster has installed, from the release `versions.crd` names when they are read. */
export class SimCrds {
  private readonly uids = new Map<string, string>();
  private readonly created: string;
  private readonly watchers = new Set<ServerResponse>();

  constructor(
    private readonly versions: SimVersions,
    now: Date,
  ) {
    this.created = rfc3339(now);
  }

  list(): Record<string, unknown> {
    return {
      apiVersion: CRD_API_VERSION,
      kind: 'CustomResourceDefinitionList',
      metadata: { resourceVersion: this.resourceVersion() },
      items: FLINK_RESOURCES.map((def) => this.object(def)),
    };
  }

  get(name: string): Record<string, unknown> {
    const def = FLINK_RESOURCES.find((d) => `${d.plural}.${d.group}` === name);
    if (!def)
      throw new ApiError(404, 'NotFound', `${CRD_PLURAL}.${CRD_GROUP} "${name}" not found`, {
        name,
        group: CRD_GROUP,
        kind: CRD_PLURAL,
      });
    return this.object(def);
  }

  /**
   * Installs the CRDs of another release (someone applying them by hand, as Helm does not): later writes are pruned
   * and admitted by them, and open watches hear a MODIFIED per CRD.
   */
  install(release: OperatorVersion): void {
    if (this.versions.crd === release) return;
    this.versions.crd = release;
    for (const res of this.watchers) for (const def of FLINK_RESOURCES) event(res, 'MODIFIED', this.object(def));
  }

  /**
   * A watch on the CRDs: ADDED for each unless resuming from a resourceVersion, then their changes, until
   * `timeoutSeconds` or the client leaves.
   */
  watch(res: ServerResponse, query: URLSearchParams): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const rv = query.get('resourceVersion') ?? '';
    if (rv === '' || rv === '0') for (const def of FLINK_RESOURCES) event(res, 'ADDED', this.object(def));
    this.watchers.add(res);
    const seconds = Number(query.get('timeoutSeconds') ?? '');
    const timer = seconds > 0 ? setTimeout(() => res.end(), seconds * 1000) : undefined;
    res.on('close', () => {
      clearTimeout(timer);
      this.watchers.delete(res);
    });
  }

  /** One resourceVersion per installed release, so a client that compares them sees a CRD upgrade. */
  private resourceVersion(): string {
    return this.versions.crd === '1.15' ? '115' : '116';
  }

  private object(def: ResourceDef): Record<string, unknown> {
    const plural = def.plural as FlinkResource;
    const name = `${def.plural}.${def.group}`;
    if (!this.uids.has(name)) this.uids.set(name, randomUUID());
    const names = { kind: def.kind, listKind: def.listKind, plural: def.plural, singular: def.singular };
    return {
      apiVersion: CRD_API_VERSION,
      kind: 'CustomResourceDefinition',
      metadata: {
        name,
        uid: this.uids.get(name),
        resourceVersion: this.resourceVersion(),
        generation: 1,
        creationTimestamp: this.created,
      },
      spec: {
        group: def.group,
        names: { ...names, shortNames: def.shortNames },
        scope: 'Namespaced',
        versions: [
          {
            name: def.version,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: openApiSchema(crdSchema(plural, this.versions.crd)) },
            subresources: { status: {} },
            additionalPrinterColumns: printerColumns(plural, this.versions.crd),
          },
        ],
      },
      status: {
        acceptedNames: { ...names, shortNames: def.shortNames },
        storedVersions: [def.version],
        conditions: [
          { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', lastTransitionTime: this.created },
          { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', lastTransitionTime: this.created },
        ],
      },
    };
  }
}

function event(res: ServerResponse, type: 'ADDED' | 'MODIFIED', object: unknown): void {
  if (!res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`);
}

/** `GET` on the CRD collection or one CRD; they are installed by Helm or kubectl, never written through the sim. */
export function answerCrds(crds: SimCrds, verb: string, name: string | undefined): unknown {
  if (verb === 'get' && name !== undefined) return crds.get(name);
  if (verb === 'list') return crds.list();
  throw errors.methodNotAllowed(verb.toUpperCase(), CRD_PLURAL);
}
