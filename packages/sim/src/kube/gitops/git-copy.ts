// The Git copy of a GitOps-managed resource: the fields Git declares with their values, and the marks each tool
// puts on the objects it manages (docs/sandbox.md#gitops-switches).
import { pathKey, sameValue, type FieldPath, type FieldSet } from '../managed-fields.js';
import type { KubeObject } from '../store.js';

export const GITOPS_CONTROLLERS = ['off', 'argocd', 'flux', 'helm'] as const;
export type GitOpsController = (typeof GITOPS_CONTROLLERS)[number];
export type ActiveController = Exclude<GitOpsController, 'off'>;

/**
 * What each controller writes as: the manager, and whether its writes are server-side applies. Argo CD passes the
 * same manager to its client-side applies (its default, operation Update) and to the opt-in server-side ones.
 */
export const CONTROLLER_MANAGERS = {
  argocd: { manager: 'argocd-controller', operation: 'Update', label: 'Argo CD self-heal' },
  flux: { manager: 'kustomize-controller', operation: 'Apply', label: 'Flux' },
  helm: { manager: 'helm', operation: 'Update', label: 'Helm' },
} as const satisfies Record<ActiveController, { manager: string; operation: 'Apply' | 'Update'; label: string }>;

/** Fields Git rarely declares: a default Git copy leaves them out. */
const UNDECLARED: readonly FieldPath[] = [
  ['spec', 'restartNonce'],
  ['spec', 'job', 'savepointRedeployNonce'],
  ['spec', 'job', 'initialSavepointPath'],
];

export interface Declared {
  path: string[];
  value: unknown;
}

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value at `path`, or undefined when the object has none there. */
export function valueAt(object: unknown, path: FieldPath): unknown {
  let node = object;
  for (const key of path) {
    if (!isMap(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Sets `path` to `value`, creating the maps on the way (replacing a non-map in the way). */
export function setAt(object: Json, path: FieldPath, value: unknown): void {
  let node = object;
  for (const key of path.slice(0, -1)) {
    if (!isMap(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1] as string] = structuredClone(value);
}

/** Deletes the field at `path`, if the object has it. */
export function removeAt(object: Json, path: FieldPath): void {
  const parent = valueAt(object, path.slice(0, -1));
  if (isMap(parent)) delete parent[path[path.length - 1] as string];
}

/** The leaves at and under `path` (arrays and empty maps are leaves), with their values. */
export function leavesAt(value: unknown, path: string[]): Declared[] {
  if (!isMap(value) || Object.keys(value).length === 0) return [{ path, value: structuredClone(value) }];
  return Object.entries(value).flatMap(([key, child]) => leavesAt(child, [...path, key]));
}

/** Where a declared path may point: under spec, or one label or annotation. */
export function declarablePath(path: unknown): string | undefined {
  if (!Array.isArray(path) || path.length === 0 || !path.every((k) => typeof k === 'string' && k !== ''))
    return 'a field path is a non-empty array of non-empty keys, e.g. ["spec","job","parallelism"]';
  if (path[0] === 'spec') return undefined;
  if (path[0] === 'metadata' && (path[1] === 'labels' || path[1] === 'annotations') && path.length === 3)
    return undefined;
  return `${JSON.stringify(path)} is neither under spec nor one label or annotation`;
}

/** The fields Git declares and their values, by path; a declared map stands for its leaves. */
export class GitCopy {
  private readonly fields = new Map<string, Declared>();

  /** Every leaf under `spec` as the object has it now, but the nonces and the initial savepoint path. */
  static ofSpec(object: KubeObject): GitCopy {
    const copy = new GitCopy();
    const skipped = new Set(UNDECLARED.map(pathKey));
    for (const leaf of leavesAt(object.spec ?? {}, ['spec'])) if (!skipped.has(pathKey(leaf.path))) copy.put(leaf);
    return copy;
  }

  /** The given paths (each checked by declarablePath) with the object's values; a path it does not have is an error. */
  static ofPaths(object: KubeObject, paths: readonly string[][]): GitCopy | { error: string } {
    const copy = new GitCopy();
    for (const path of paths) {
      const value = valueAt(object, path);
      if (value === undefined) return { error: `${path.join('.')} is not set on the object, so Git cannot declare it` };
      copy.commit(path, value);
    }
    return copy;
  }

  /** The commit to Git: `path` gets `value` (a map replaces every declared field under the path). */
  commit(path: string[], value: unknown): void {
    for (const [key, field] of this.fields)
      if (field.path.length >= path.length && path.every((k, i) => field.path[i] === k)) this.fields.delete(key);
    for (const leaf of leavesAt(value, path)) this.put(leaf);
  }

  /** The same copy without the fields at or under any of `paths` (Flux's `spec.ignore` rules). */
  without(paths: readonly FieldPath[]): GitCopy {
    const copy = new GitCopy();
    const under = (field: Declared): boolean =>
      paths.some((p) => p.length <= field.path.length && p.every((k, i) => field.path[i] === k));
    for (const field of this.fields.values()) if (!under(field)) copy.put(structuredClone(field));
    return copy;
  }

  /** The value Git declares at `path`, or undefined when Git does not declare it. */
  valueOf(path: FieldPath): unknown {
    return structuredClone(this.fields.get(pathKey(path))?.value);
  }

  entries(): Declared[] {
    return [...this.fields.values()].map((f) => ({ path: [...f.path], value: structuredClone(f.value) }));
  }

  paths(): FieldSet {
    return new Set(this.fields.keys());
  }

  /** Whether the object differs from Git in any declared field. */
  drifted(object: KubeObject): boolean {
    return [...this.fields.values()].some((f) => !sameValue(valueAt(object, f.path), f.value));
  }

  private put(leaf: Declared): void {
    // A leaf under a declared leaf (or a declared leaf under this one) would make the copy contradict itself.
    for (const [key, field] of this.fields) {
      const n = Math.min(field.path.length, leaf.path.length);
      if (field.path.slice(0, n).every((k, i) => leaf.path[i] === k)) this.fields.delete(key);
    }
    this.fields.set(pathKey(leaf.path), leaf);
  }
}

/** Labels and annotations a controller puts on what it manages, with `application` its Application, Kustomization or release. */
export interface Marks {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Argo CD's tracking methods: the annotation is the default since 3.0, the label before it. */
export const ARGOCD_TRACKING = ['annotation', 'label', 'annotation+label'] as const;
export type ArgoTracking = (typeof ARGOCD_TRACKING)[number];

export function marksOf(
  controller: ActiveController,
  object: KubeObject,
  application: string,
  tracking: ArgoTracking = 'annotation',
): Marks {
  const { namespace, name } = object.metadata;
  switch (controller) {
    case 'argocd': {
      const id = `${application}:flink.apache.org/${object.kind}:${namespace}/${name}`;
      return {
        labels: tracking === 'annotation' ? {} : { 'app.kubernetes.io/instance': application },
        annotations: tracking === 'label' ? {} : { 'argocd.argoproj.io/tracking-id': id },
      };
    }
    case 'flux': {
      const [ksNamespace, ksName] = kustomization(application);
      return {
        labels: { 'kustomize.toolkit.fluxcd.io/name': ksName, 'kustomize.toolkit.fluxcd.io/namespace': ksNamespace },
        annotations: {},
      };
    }
    case 'helm':
      return {
        labels: { 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { 'meta.helm.sh/release-name': application, 'meta.helm.sh/release-namespace': namespace },
      };
  }
}

/** The Application (`<namespace>_<name>`), Kustomization (`flux-system/<name>`) or release (`<name>`) by default. */
export function defaultApplication(controller: ActiveController, object: KubeObject): string {
  const { namespace, name } = object.metadata;
  if (controller === 'argocd') return `${namespace}_${name}`;
  return controller === 'flux' ? `flux-system/${name}` : name;
}

/** A Kustomization named `<namespace>/<name>`, or `<name>` in flux-system. */
function kustomization(application: string): [string, string] {
  const slash = application.indexOf('/');
  return slash < 0 ? ['flux-system', application] : [application.slice(0, slash), application.slice(slash + 1)];
}

/** The paths of the marks, as field paths. */
export function markPaths(marks: Marks): string[][] {
  return [
    ...Object.keys(marks.labels).map((k) => ['metadata', 'labels', k]),
    ...Object.keys(marks.annotations).map((k) => ['metadata', 'annotations', k]),
  ];
}

/** Whether the object lacks a mark or has another value there. */
export function marksMissing(object: KubeObject, marks: Marks): boolean {
  return (
    Object.entries(marks.labels).some(([k, v]) => object.metadata.labels?.[k] !== v) ||
    Object.entries(marks.annotations).some(([k, v]) => object.metadata.annotations?.[k] !== v)
  );
}
