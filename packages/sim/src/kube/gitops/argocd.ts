// How one simulated Argo CD Application applies and tracks (docs/sandbox.md#gitops-switches): client-side apply
// unless it opts into server-side apply, its tracking method, self-heal on or off, and the last-applied copy a
// client-side apply keeps on the object.
import type { KubeObject } from '../store.js';
import { setAt, type ArgoTracking, type GitCopy, type Marks } from './git-copy.js';

export interface ArgoSettings {
  tracking: ArgoTracking;
  /** The `ServerSideApply=true` sync option: Apply entries owning every declared field, no last-applied copy. */
  serverSideApply: boolean;
  /** `automated.selfHeal`: without it a change of a declared field only marks the Application OutOfSync. */
  selfHeal: boolean;
}

/** Argo CD 3.x's defaults for an auto-synced Application with self-heal. */
export const ARGOCD_DEFAULTS: Readonly<ArgoSettings> = {
  tracking: 'annotation',
  serverSideApply: false,
  selfHeal: true,
};

/** Where a client-side apply keeps the object as it applied it. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

/** Keys sorted at every level, as Go's encoder writes a map. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const map = value as Json;
  return Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, sorted(map[k])]),
  );
}

/**
 * The object as the Application's manifest has it — identity, the marks and every field Git declares — as the JSON a
 * client-side apply stores in `kubectl.kubernetes.io/last-applied-configuration` (the annotation itself left out).
 */
export function lastApplied(object: KubeObject, git: GitCopy, marks: Marks): string {
  const { namespace, name } = object.metadata;
  const manifest: Json = { apiVersion: object.apiVersion, kind: object.kind, metadata: { name, namespace } };
  for (const [key, value] of Object.entries(marks.labels)) setAt(manifest, ['metadata', 'labels', key], value);
  for (const [key, value] of Object.entries(marks.annotations))
    setAt(manifest, ['metadata', 'annotations', key], value);
  for (const field of git.entries()) setAt(manifest, field.path, field.value);
  return JSON.stringify(sorted(manifest));
}
