// In-memory object store of the simulated API server: one resourceVersion counter, generations, watch history.
import { randomUUID } from 'node:crypto';
import type { SchemaNode } from './crd-schema.js';
import type { ManagedFieldsEntry } from './fields-v1.js';
import { pruneUnknownFields } from './pruning.js';

export const SIM_RESOURCES = [
  'flinkdeployments',
  'flinksessionjobs',
  'flinkstatesnapshots',
  'flinkbluegreendeployments',
  'events',
  'configmaps',
] as const;
export type SimResource = (typeof SIM_RESOURCES)[number];

export type { FieldsV1, ManagedFieldsEntry } from './fields-v1.js';

/** A Kubernetes object as plain JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: ManagedFieldsEntry[];
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface StoreChange {
  type: WatchEventType;
  resource: SimResource;
  object: KubeObject;
  /** Numeric resourceVersion of the change. */
  rv: number;
}

/** An API error the HTTP layer renders as a Kubernetes `Status`. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A namespace as the simulated API lists it. */
export interface SimNamespace {
  name: string;
  uid: string;
  creationTimestamp: string;
  resourceVersion: string;
}

export type Validator = (resource: SimResource, object: KubeObject) => { field: string; message: string }[];
export type Listener = (change: StoreChange) => void;

const HAS_GENERATION: ReadonlySet<SimResource> = new Set([
  'flinkdeployments',
  'flinksessionjobs',
  'flinkstatesnapshots',
  'flinkbluegreendeployments',
]);

/** How a write meets the installed CRD: unknown fields and dry runs (docs/sandbox.md#crd-schemas). */
export interface AdmissionOptions {
  /**
   * Called with the paths of the fields pruned from the written object (before pruning, `written`), only when some
   * were: it refuses the write by throwing (`fieldValidation=Strict`) or notes a warning (`Warn`).
   */
  unknownFields?: (paths: string[], written: KubeObject) => void;
  /** `dryRun=All`: validated and answered as if written; nothing is stored, no resourceVersion, no watch event. */
  dryRun?: boolean;
}

export interface UpdateOptions extends AdmissionOptions {
  subresource?: 'status';
  expectedResourceVersion?: string;
  /** The new `metadata.managedFields`, from the stored object and the write's result. */
  managedFields?: (before: KubeObject, after: KubeObject) => ManagedFieldsEntry[];
}

export interface StoreOptions {
  now?: () => Date;
  /** How many changes are kept for watches that resume from a resourceVersion. */
  historySize?: number;
  validate?: Validator;
  /** The installed CRD's schema of a resource, read at each write; absent: nothing is pruned. */
  schema?: (resource: SimResource) => SchemaNode | undefined;
}

export class SimStore {
  private rv = 0;
  private readonly objects = new Map<string, KubeObject>();
  private history: StoreChange[] = [];
  /** Changes at or below this resourceVersion are gone: watching from there gets 410 Gone. */
  private compactedThrough = 0;
  private readonly listeners = new Set<Listener>();
  /** Namespaces declared explicitly; the others exist because objects live in them. */
  private readonly declaredNamespaces = new Map<string, SimNamespace>();
  private readonly implicitNamespaces = new Map<string, SimNamespace>();
  readonly now: () => Date;
  private readonly historySize: number;
  private readonly validate: Validator | undefined;
  private readonly schema: StoreOptions['schema'];

  constructor(options: StoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.historySize = options.historySize ?? 10_000;
    this.validate = options.validate;
    this.schema = options.schema;
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  get(resource: SimResource, namespace: string, name: string): KubeObject | undefined {
    const found = this.objects.get(key(resource, namespace, name));
    return found ? clone(found) : undefined;
  }

  list(resource: SimResource, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const [k, obj] of this.objects) {
      if (!k.startsWith(`${resource}/`)) continue;
      if (namespace !== undefined && obj.metadata.namespace !== namespace) continue;
      out.push(clone(obj));
    }
    return out.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  }

  create(resource: SimResource, object: KubeObject, options: AdmissionOptions = {}): KubeObject {
    const { namespace, name } = object.metadata;
    const k = key(resource, namespace, name);
    const stored = this.pruned(resource, object, options);
    if (this.objects.has(k)) {
      throw new ApiError(
        409,
        'AlreadyExists',
        `${qualified(resource)} "${name}" already exists`,
        details(resource, name),
      );
    }
    stored.metadata.uid = randomUUID();
    stored.metadata.creationTimestamp = rfc3339(this.now());
    if (HAS_GENERATION.has(resource)) stored.metadata.generation = 1;
    this.check(resource, stored);
    if (options.dryRun) return clone(stored);
    return this.commit('ADDED', resource, k, stored);
  }

  /**
   * A copy of `object` without the fields the installed CRD does not declare (apiextensions-apiserver
   * pkg/apiserver/schema/pruning/algorithm.go), after `options.unknownFields` has seen them.
   */
  pruned(resource: SimResource, object: KubeObject, options: AdmissionOptions = {}): KubeObject {
    const copy = clone(object);
    const schema = this.schema?.(resource);
    if (!schema) return copy;
    const paths = pruneUnknownFields(copy, schema);
    if (paths.length > 0) options.unknownFields?.(paths, clone(object));
    return copy;
  }

  /**
   * Replaces an object through `mutate`. With `subresource: 'status'` only status may change (as the operator
   * writes it); otherwise status changes are dropped (as with a status subresource). `generation` moves only
   * when `spec` changes; a write that changes nothing keeps the resourceVersion. `managedFields`, when given,
   * computes the object's new `metadata.managedFields` from the stored object and the result (HTTP writes and the
   * simulated GitOps controllers pass it; the operator's own writes leave the entries as they are).
   */
  update(
    resource: SimResource,
    namespace: string,
    name: string,
    mutate: (current: KubeObject) => KubeObject,
    options: UpdateOptions = {},
  ): KubeObject {
    const k = key(resource, namespace, name);
    const current = this.objects.get(k);
    if (!current) throw notFound(resource, name);
    const expected = options.expectedResourceVersion;
    if (expected !== undefined && expected !== current.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualified(resource)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details(resource, name),
      );
    }
    const next = mutate(clone(current));
    const merged: KubeObject =
      options.subresource === 'status'
        ? { ...clone(current), status: next.status }
        : this.pruned(
            resource,
            { ...next, status: current.status, metadata: { ...next.metadata, ...immutableMeta(current) } },
            options,
          );
    if (merged.status === undefined) delete merged.status;
    if (options.managedFields) {
      const entries = options.managedFields(clone(current), clone(merged));
      if (entries.length > 0) merged.metadata.managedFields = entries;
      else delete merged.metadata.managedFields;
    }
    if (JSON.stringify(merged) === JSON.stringify(current)) return clone(current);
    if (HAS_GENERATION.has(resource) && JSON.stringify(merged.spec) !== JSON.stringify(current.spec)) {
      merged.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    if (options.subresource !== 'status') this.check(resource, merged);
    if (options.dryRun) return clone(merged);
    return this.commit('MODIFIED', resource, k, merged);
  }

  delete(resource: SimResource, namespace: string, name: string): KubeObject {
    const k = key(resource, namespace, name);
    const current = this.objects.get(k);
    if (!current) throw notFound(resource, name);
    this.objects.delete(k);
    this.rv += 1;
    const gone = clone(current);
    gone.metadata.resourceVersion = String(this.rv);
    this.record({ type: 'DELETED', resource, object: gone, rv: this.rv });
    return clone(gone);
  }

  /** Subscribes to every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Changes after `fromRv` for a watch that resumes; throws 410 Gone when they were compacted away.
   */
  changesSince(fromRv: number): StoreChange[] {
    if (fromRv < this.compactedThrough) {
      throw new ApiError(410, 'Expired', `too old resource version: ${fromRv} (${this.compactedThrough})`);
    }
    return this.history.filter((c) => c.rv > fromRv).map((c) => ({ ...c, object: clone(c.object) }));
  }

  /** Forgets the watch history, so any watch resuming from an older resourceVersion gets 410 Gone. */
  compact(): void {
    this.history = [];
    this.compactedThrough = this.rv;
  }

  /** Declares a namespace that exists even while it holds no object. Idempotent. */
  ensureNamespace(namespace: string): SimNamespace {
    const existing = this.namespace(namespace);
    if (existing) return existing;
    const declared: SimNamespace = {
      name: namespace,
      uid: randomUUID(),
      creationTimestamp: rfc3339(this.now()),
      resourceVersion: String(this.rv),
    };
    this.declaredNamespaces.set(namespace, declared);
    return { ...declared };
  }

  /** Declared namespaces plus those of stored objects, sorted by name. */
  namespaces(): SimNamespace[] {
    const found = new Map<string, SimNamespace>();
    for (const [name, ns] of this.declaredNamespaces) found.set(name, { ...ns });
    for (const obj of this.objects.values()) {
      const name = obj.metadata.namespace;
      if (found.has(name)) continue;
      // Remembered so that the namespace keeps one uid and creation time for as long as it is listed.
      found.set(name, this.implicitNamespace(name, obj));
    }
    return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  namespace(name: string): SimNamespace | undefined {
    return this.namespaces().find((ns) => ns.name === name);
  }

  /** The oldest resourceVersion a watch may resume from without 410 Gone. */
  get oldestResumableResourceVersion(): number {
    return this.compactedThrough;
  }

  private implicitNamespace(name: string, first: KubeObject): SimNamespace {
    let ns = this.implicitNamespaces.get(name);
    if (!ns) {
      ns = {
        name,
        uid: randomUUID(),
        creationTimestamp: first.metadata.creationTimestamp ?? rfc3339(this.now()),
        resourceVersion: first.metadata.resourceVersion ?? String(this.rv),
      };
      this.implicitNamespaces.set(name, ns);
    }
    return { ...ns };
  }

  private check(resource: SimResource, object: KubeObject): void {
    const causes = this.validate?.(resource, object) ?? [];
    if (causes.length === 0) return;
    const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
    throw new ApiError(
      422,
      'Invalid',
      `${object.kind}.flink.apache.org "${object.metadata.name}" is invalid: ${summary}`,
      {
        name: object.metadata.name,
        kind: object.kind,
        causes: causes.map((c) => ({ reason: 'FieldValueInvalid', message: c.message, field: c.field })),
      },
    );
  }

  private commit(type: WatchEventType, resource: SimResource, k: string, object: KubeObject): KubeObject {
    this.rv += 1;
    object.metadata.resourceVersion = String(this.rv);
    this.objects.set(k, object);
    this.record({ type, resource, object: clone(object), rv: this.rv });
    return clone(object);
  }

  private record(change: StoreChange): void {
    this.history.push(change);
    if (this.history.length > this.historySize) {
      const dropped = this.history.splice(0, this.history.length - this.historySize);
      this.compactedThrough = dropped[dropped.length - 1]?.rv ?? this.compactedThrough;
    }
    for (const listener of this.listeners) listener({ ...change, object: clone(change.object) });
  }
}

function immutableMeta(current: KubeObject): Partial<KubeObject['metadata']> {
  const { uid, creationTimestamp, generation, resourceVersion, name, namespace } = current.metadata;
  return { uid, creationTimestamp, generation, resourceVersion, name, namespace };
}

function key(resource: SimResource, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

function notFound(resource: SimResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(resource)} "${name}" not found`, details(resource, name));
}

/** The resource as Kubernetes names it in messages: `flinkdeployments.flink.apache.org`, but core `events`, `configmaps`. */
export function qualified(resource: SimResource): string {
  return isCore(resource) ? resource : `${resource}.flink.apache.org`;
}

function isCore(resource: SimResource): boolean {
  return resource === 'events' || resource === 'configmaps';
}

function details(resource: SimResource, name: string): Record<string, unknown> {
  return isCore(resource) ? { name, kind: resource } : { name, group: 'flink.apache.org', kind: resource };
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Kubernetes timestamps: RFC 3339 with second resolution. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
