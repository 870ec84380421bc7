// Write verbs of the simulated API server: create, update (PUT), patch (merge / JSON), delete, deletecollection.
import { randomInt } from 'node:crypto';
import { requestManager, type WriteOptionsKind } from './field-manager.js';
import { admissionOf, type Admission } from './field-validation.js';
import { createEntries, diffFields, managedContent, recordWrite, type Writer } from './managed-fields.js';
import { jsonPatch, mergePatch, PATCH_TYPES } from './patch.js';
import {
  ok,
  notFound,
  requireNamespace,
  selectObjects,
  type Answer,
  type RequestContext,
  type ResourceRoute,
} from './reads.js';
import { apiVersionOf, type ResourceDef } from './resources.js';
import { errors, success } from './status.js';
import { clone, rfc3339, type KubeObject, type ManagedFieldsEntry, type UpdateOptions } from './store.js';

type Named = ResourceRoute & { name: string };

/** The stored (or, with dryRun, would-be) object, with the warnings of the write. */
function written(object: KubeObject, admission: Admission, status = 200): Answer {
  const answer = ok(object, status);
  return admission.warnings.length > 0 && answer.kind === 'json' ? { ...answer, warnings: admission.warnings } : answer;
}

const qualifiedKind = (def: ResourceDef): string => (def.group === '' ? def.kind : `${def.kind}.${def.group}`);

/** The manager of this write (an Update, as every non-apply write is) and where it writes. */
function writerOf(ctx: RequestContext, route: ResourceRoute, kind: WriteOptionsKind): Writer {
  const writer: Writer = {
    manager: requestManager(ctx.query, ctx.userAgent ?? '', kind),
    operation: 'Update',
    apiVersion: apiVersionOf(route.def),
    time: rfc3339(ctx.store.now()),
  };
  if (route.subresource) writer.subresource = route.subresource;
  return writer;
}

/** What managers of writes on this route can own: status only through the status subresource, where there is one. */
function scopeOf(route: ResourceRoute): Parameters<typeof managedContent>[1] {
  const scope: Parameters<typeof managedContent>[1] = { statusSubresource: route.def.subresources.includes('status') };
  if (route.subresource) scope.subresource = route.subresource;
  return scope;
}

/** The new managedFields of an update: what the write changed becomes the writer's (docs/sandbox.md#managed-fields). */
function entriesAfter(route: ResourceRoute, writer: Writer): NonNullable<UpdateOptions['managedFields']> {
  const scope = scopeOf(route);
  return (before: KubeObject, after: KubeObject): ManagedFieldsEntry[] =>
    recordWrite(
      before.metadata.managedFields ?? [],
      writer,
      diffFields(managedContent(before, scope), managedContent(after, scope)),
    );
}

function asObject(body: unknown, what: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest(`the body of the ${what} must be a JSON object`);
  }
  return body as Record<string, unknown>;
}

function metadataOf(body: Record<string, unknown>): Record<string, unknown> {
  const metadata = body.metadata ?? {};
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
    throw errors.badRequest('metadata must be an object');
  return metadata as Record<string, unknown>;
}

function checkTypeMeta(def: ResourceDef, body: Record<string, unknown>): void {
  const expected = apiVersionOf(def);
  if (body.apiVersion !== undefined && body.apiVersion !== expected) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (body.kind !== undefined && body.kind !== def.kind) {
    throw errors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${def.kind})`,
    );
  }
}

function checkNamespace(namespace: string, metadata: Record<string, unknown>): void {
  if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName: the prefix plus five characters from the alphabet kube-apiserver uses. */
function generatedName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return `${prefix}${suffix}`;
}

export function createObject(ctx: RequestContext, route: ResourceRoute, body: unknown): Answer {
  if (route.name !== undefined || route.subresource !== undefined)
    throw errors.methodNotAllowed('POST', route.def.plural);
  if (route.namespace === undefined) throw errors.methodNotAllowed('POST', route.def.plural);
  const namespace = route.namespace;
  const writer = writerOf(ctx, route, 'CreateOptions');
  const input = asObject(body, 'create request');
  checkTypeMeta(route.def, input);
  const metadata = metadataOf(input);
  checkNamespace(namespace, metadata);
  let name = typeof metadata.name === 'string' ? metadata.name : '';
  if (name === '' && typeof metadata.generateName === 'string' && metadata.generateName !== '') {
    name = generatedName(metadata.generateName);
  }
  if (name === '')
    throw errors.invalid(qualifiedKind(route.def), '', [
      { field: 'metadata.name', message: 'Required value: name or generateName is required' },
    ]);
  // Clients cannot write managedFields: what they send is ignored and the server's entries stand.
  const {
    uid: _u,
    resourceVersion: _rv,
    generation: _g,
    creationTimestamp: _c,
    managedFields: _m,
    ...keptMeta
  } = metadata;
  const object = {
    ...input,
    apiVersion: apiVersionOf(route.def),
    kind: route.def.kind,
    metadata: { ...keptMeta, name, namespace },
  } as KubeObject;
  // With a status subresource, status cannot be set at creation (the CRD strategy drops it).
  if (route.def.subresources.includes('status')) delete object.status;
  const admission = admissionOf(ctx.query, route.def, 'create');
  // Pruned fields are never stored, so they are nobody's (docs/sandbox.md#crd-schemas).
  const kept = ctx.store.pruned(route.def.plural, object, admission.options);
  const entries = createEntries(writer, managedContent(kept, scopeOf(route)));
  if (entries.length > 0) kept.metadata.managedFields = entries;
  const { dryRun } = admission.options;
  return written(ctx.store.create(route.def.plural, kept, dryRun ? { dryRun } : {}), admission, 201);
}

/** A precondition carried in the body: a resourceVersion other than the current one is a conflict. */
function expectedVersion(metadata: Record<string, unknown>): string | undefined {
  const rv = metadata.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

function current(ctx: RequestContext, route: Named): KubeObject {
  const object = ctx.store.get(route.def.plural, requireNamespace(route), route.name);
  if (!object) throw notFound(route.def, route.name);
  return object;
}

function store(
  ctx: RequestContext,
  route: Named,
  next: KubeObject,
  expected: string | undefined,
  writer: Writer,
  admission: Admission,
): Answer {
  const options: UpdateOptions = { ...admission.options, managedFields: entriesAfter(route, writer) };
  if (route.subresource) options.subresource = route.subresource;
  if (expected !== undefined) options.expectedResourceVersion = expected;
  const stored = ctx.store.update(route.def.plural, requireNamespace(route), route.name, () => next, options);
  return written(stored, admission);
}

export function replaceObject(ctx: RequestContext, route: Named, body: unknown): Answer {
  const writer = writerOf(ctx, route, 'UpdateOptions');
  const input = asObject(body, 'update request');
  checkTypeMeta(route.def, input);
  const metadata = metadataOf(input);
  checkNamespace(requireNamespace(route), metadata);
  if (metadata.name !== route.name) {
    throw errors.badRequest(
      `the name of the object (${String(metadata.name ?? '')}) does not match the name on the URL (${route.name})`,
    );
  }
  const existing = current(ctx, route);
  if (metadata.uid !== undefined && metadata.uid !== existing.metadata.uid) {
    throw errors.conflict(
      route.def.plural,
      route.name,
      `Precondition failed: UID in precondition: ${String(metadata.uid)}, UID in object meta: ${existing.metadata.uid}`,
    );
  }
  const next = { ...input, apiVersion: existing.apiVersion, kind: existing.kind } as KubeObject;
  return store(ctx, route, next, expectedVersion(metadata), writer, admissionOf(ctx.query, route.def, 'update'));
}

export function patchObject(ctx: RequestContext, route: Named, body: unknown, contentType: string): Answer {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== PATCH_TYPES.merge && type !== PATCH_TYPES.json) throw errors.unsupportedPatch(type);
  const writer = writerOf(ctx, route, 'PatchOptions');
  const existing = current(ctx, route);
  const patched = (
    type === PATCH_TYPES.merge ? mergePatch(existing, asObject(body, 'merge patch')) : jsonPatch(existing, body)
  ) as KubeObject;
  if (
    patched === null ||
    typeof patched !== 'object' ||
    typeof patched.metadata !== 'object' ||
    patched.metadata === null
  ) {
    throw errors.badRequest('the patch removed the object metadata');
  }
  for (const field of ['name', 'namespace', 'uid'] as const) {
    if (patched.metadata[field] !== existing.metadata[field]) {
      throw errors.invalid(qualifiedKind(route.def), route.name, [
        {
          field: `metadata.${field}`,
          message: `Invalid value: ${JSON.stringify(patched.metadata[field] ?? null)}: field is immutable`,
        },
      ]);
    }
  }
  const rv = patched.metadata.resourceVersion;
  // kube-apiserver uses the patched object's resourceVersion as the precondition, so a stale one in the patch conflicts.
  const expected = typeof rv === 'string' && rv !== '' ? rv : (existing.metadata.resourceVersion ?? undefined);
  return store(ctx, route, patched, expected, writer, admissionOf(ctx.query, route.def, 'patch'));
}

interface DeleteOptions {
  preconditions?: { resourceVersion?: string; uid?: string };
}

export function deleteObject(ctx: RequestContext, route: Named, body: unknown): Answer {
  if (route.subresource) throw errors.methodNotAllowed('DELETE', `${route.def.plural}/${route.subresource}`);
  const existing = current(ctx, route);
  const options = (body && typeof body === 'object' ? body : {}) as DeleteOptions;
  const pre = options.preconditions;
  if (pre?.uid !== undefined && pre.uid !== existing.metadata.uid) {
    throw errors.conflict(
      route.def.plural,
      route.name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`,
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== existing.metadata.resourceVersion) {
    throw errors.conflict(
      route.def.plural,
      route.name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
    );
  }
  const gone = ctx.store.delete(route.def.plural, requireNamespace(route), route.name);
  // Custom resources answer with the deleted object; core types without finalizers with a Success Status.
  if (route.def.group !== '') return ok(gone);
  return ok(success({ name: route.name, kind: route.def.plural, uid: gone.metadata.uid }));
}

export function deleteCollection(ctx: RequestContext, route: ResourceRoute): Answer {
  if (route.subresource) throw errors.methodNotAllowed('DELETE', `${route.def.plural}/${route.subresource}`);
  const items = selectObjects(ctx, route).map((o) =>
    ctx.store.delete(route.def.plural, o.metadata.namespace, o.metadata.name),
  );
  return ok({
    apiVersion: apiVersionOf(route.def),
    kind: route.def.listKind,
    metadata: { resourceVersion: ctx.store.resourceVersion },
    items: items.map(clone),
  });
}
