// Which GitOps tool applies an object from Git, and which of a change's fields Git declares
// (docs/policy.md#gitops-managed-targets). Read only from the object itself: no extra API call, no extra permission.
import {
  fieldsCover,
  isStatusEntry,
  managedFieldsOf,
  type FieldPath,
  type ManagedFieldsEntry,
} from './managed-fields.js';
import { isRecord } from './merge-patch.js';
import { annotationsOf, labelsOf } from './resource.js';

export const GITOPS_TOOLS = ['argocd', 'flux-kustomization', 'flux-helmrelease', 'helm'] as const;
export type GitopsTool = (typeof GITOPS_TOOLS)[number];

export interface GitopsOwner {
  tool: GitopsTool;
  /** Argo CD: the application part of the tracking id (`team-a_orders`), or the instance label's value when
   *  tracked by label; Flux: `<namespace>/<name>` of the Kustomization or HelmRelease; Helm: the release name.
   *  Absent when the object does not say (e.g. only a manager). */
  name?: string;
  /** The managedFields managers of this tool on the object (possibly none when recognised by annotation or labels). */
  managers: string[];
  /** Flux Kustomization: `kustomize.toolkit.fluxcd.io/reconcile: disabled` is on the object (annotation or label). */
  paused: boolean;
  /** Flux Kustomization: the mark for which Flux does not apply Git to the existing object (`…/ssa: Ignore`). */
  skipped?: string;
}

/** The field managers each tool writes as (a write without `fieldManager` is named after the client program). */
export const GITOPS_MANAGERS: Readonly<Record<GitopsTool, readonly string[]>> = {
  argocd: ['argocd-controller', 'argocd-application-controller'],
  'flux-kustomization': ['kustomize-controller'],
  'flux-helmrelease': ['helm-controller'],
  helm: ['helm'],
};

export const ANNOTATION_FLUX_RECONCILE = 'kustomize.toolkit.fluxcd.io/reconcile';
const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';
/** Set beside Flux's annotation by an operation that paused the target: its id (docs/policy.md#gitops-managed-targets). */
export const ANNOTATION_GITOPS_PAUSED_BY = 'flink-chatops/gitops-paused-by';
export const ANNOTATION_ARGOCD_TRACKING_ID = 'argocd.argoproj.io/tracking-id';
export const ANNOTATION_LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const LABEL_INSTANCE = 'app.kubernetes.io/instance';
const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
const ANNOTATION_HELM_RELEASE = 'meta.helm.sh/release-name';
const FLUX_LABELS = {
  'flux-kustomization': 'kustomize.toolkit.fluxcd.io',
  'flux-helmrelease': 'helm.toolkit.fluxcd.io',
} as const;

interface Seen {
  annotations: Record<string, string>;
  labels: Record<string, string>;
  entries: ManagedFieldsEntry[];
}

/** The tool's managers that have an entry on the object, in entry order, each once. */
function managersOf(seen: Seen, tool: GitopsTool): string[] {
  const known = GITOPS_MANAGERS[tool];
  return [...new Set(seen.entries.map((e) => e.manager).filter((m) => known.includes(m)))];
}

/**
 * The application part of `<app>:<group>/<kind>:<namespace>/<name>` (app is `<appNamespace>_<app>` outside Argo CD's
 * own namespace; the group is empty for core kinds, the namespace for cluster-scoped ones); undefined when malformed.
 */
export function trackingIdApp(trackingId: string): string | undefined {
  const parts = trackingId.split(':');
  if (parts.length !== 3) return undefined;
  const [app, groupKind, namespaceName] = parts as [string, string, string];
  const gk = groupKind.split('/');
  const nn = namespaceName.split('/');
  if (app === '' || gk.length !== 2 || nn.length !== 2 || gk[1] === '' || nn[1] === '') return undefined;
  return app;
}

function argocd(seen: Seen): Omit<GitopsOwner, 'paused'> | undefined {
  const managers = managersOf(seen, 'argocd');
  const trackingId = seen.annotations[ANNOTATION_ARGOCD_TRACKING_ID];
  // Helm charts set the instance label too, so it names an Argo CD application only beside an Argo CD manager.
  const instance = managers.length > 0 ? seen.labels[LABEL_INSTANCE] || undefined : undefined;
  if (trackingId !== undefined) return withName({ tool: 'argocd', managers }, trackingIdApp(trackingId) ?? instance);
  if (managers.length > 0) return withName({ tool: 'argocd', managers }, instance);
  return undefined;
}

function flux(seen: Seen, tool: keyof typeof FLUX_LABELS): Omit<GitopsOwner, 'paused'> | undefined {
  const managers = managersOf(seen, tool);
  const name = seen.labels[`${FLUX_LABELS[tool]}/name`];
  const namespace = seen.labels[`${FLUX_LABELS[tool]}/namespace`];
  const labelled = Boolean(name) && Boolean(namespace);
  if (!labelled && managers.length === 0) return undefined;
  return withName({ tool, managers }, labelled ? `${namespace}/${name}` : undefined);
}

function helm(seen: Seen): Omit<GitopsOwner, 'paused'> | undefined {
  const managers = managersOf(seen, 'helm');
  const byHelm = seen.labels[LABEL_MANAGED_BY] === 'Helm';
  const release = seen.annotations[ANNOTATION_HELM_RELEASE] || undefined;
  // Charts label `instance: {{ .Release.Name }}` beside `managed-by: Helm`; the annotation is Helm's own record.
  const instance = byHelm ? seen.labels[LABEL_INSTANCE] || undefined : undefined;
  if (!(byHelm && (release ?? instance)) && managers.length === 0) return undefined;
  return withName({ tool: 'helm', managers }, release ?? instance);
}

function withName(owner: Omit<GitopsOwner, 'paused' | 'name'>, name: string | undefined): Omit<GitopsOwner, 'paused'> {
  return name === undefined ? owner : { ...owner, name };
}

/** Where the object carries `key: value`, compared as Flux does (any case), on labels and annotations alike. */
function marked(seen: Seen, key: string, value: string): FieldPath[] {
  const where = [
    ['annotations', seen.annotations],
    ['labels', seen.labels],
  ] as const;
  return where.filter(([, m]) => m[key]?.toLowerCase() === value.toLowerCase()).map(([at]) => ['metadata', at, key]);
}

/**
 * The mark for which Flux leaves the existing object alone (docs/policy.md#gitops-managed-targets): `ssa: Ignore`
 * wherever it comes from; `ssa: IfNotPresent` only from Git (Flux reads it on the object it would apply), so only
 * where kustomize-controller's entry owns it.
 */
function fluxSkips(seen: Seen): string | undefined {
  if (marked(seen, FLUX_SSA, 'Ignore').length > 0) return `${FLUX_SSA}: Ignore`;
  const flux = seen.entries.filter((e) => GITOPS_MANAGERS['flux-kustomization'].includes(e.manager));
  const fromGit = marked(seen, FLUX_SSA, 'IfNotPresent').some((p) => flux.some((e) => fieldsCover(e.fieldsV1, p)));
  return fromGit ? `${FLUX_SSA}: IfNotPresent` : undefined;
}

/** The tool that applies this object from Git; when several match: Argo CD, Flux Kustomization, HelmRelease, Helm. */
export function detectGitops(resource: unknown): GitopsOwner | undefined {
  const seen: Seen = {
    annotations: annotationsOf(resource),
    labels: labelsOf(resource),
    entries: managedFieldsOf(resource),
  };
  // helm-controller also writes Helm's own annotations and labels: it must be found before plain Helm.
  const found = argocd(seen) ?? flux(seen, 'flux-kustomization') ?? flux(seen, 'flux-helmrelease') ?? helm(seen);
  if (!found) return undefined;
  if (found.tool !== 'flux-kustomization') return { ...found, paused: false };
  const skipped = fluxSkips(seen);
  const paused = marked(seen, ANNOTATION_FLUX_RECONCILE, 'disabled').length > 0;
  return { ...found, paused, ...(skipped ? { skipped } : {}) };
}

const TOOL_WORDS: Record<GitopsTool, { named: string; unnamed: string }> = {
  argocd: { named: 'Argo CD application', unnamed: 'an Argo CD application' },
  'flux-kustomization': { named: 'Flux Kustomization', unnamed: 'a Flux Kustomization' },
  'flux-helmrelease': { named: 'Flux HelmRelease', unnamed: 'a Flux HelmRelease' },
  helm: { named: 'Helm release', unnamed: 'a Helm release' },
};

/**
 * "Argo CD application team-a_orders", "Flux Kustomization flux-system/apps", "Flux HelmRelease team-a/orders",
 * "Helm release orders"; without a name "an Argo CD application", "a Flux Kustomization", … (after "managed by").
 */
export function ownerWords(owner: GitopsOwner): string {
  const words = TOOL_WORDS[owner.tool];
  return owner.name === undefined ? words.unnamed : `${words.named} ${owner.name}`;
}

export interface Declared {
  owned: FieldPath[];
  unowned: FieldPath[];
  source: DeclaredSource;
}
export type DeclaredSource = 'managedFields' | 'last-applied' | 'managedFields+last-applied' | 'unknown';

/** Whether a path is in the last-applied copy: its key is there, or an ancestor there is not an object (atomic). */
function lastAppliedHas(applied: unknown, path: FieldPath): boolean {
  let node = applied;
  for (const key of path) {
    if (!isRecord(node)) return true;
    if (!Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

function lastAppliedOf(resource: unknown): Record<string, unknown> | undefined {
  const text = annotationsOf(resource)[ANNOTATION_LAST_APPLIED];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function split(paths: readonly FieldPath[], declared: (p: FieldPath) => boolean, source: Declared['source']): Declared {
  const result: Declared = { owned: [], unowned: [], source };
  for (const path of paths) (declared(path) ? result.owned : result.unowned).push(path);
  return result;
}

/**
 * Which of `paths` Git declares: those covered by an entry of one of the owner's managers ('managedFields'), and for
 * Argo CD also those in last-applied-configuration — its client-side apply, the default, owns only the fields it
 * changed, while last-applied holds everything Git declares ('managedFields+last-applied'). Without a manager's
 * entry, those in last-applied ('last-applied'); when neither exists, every path counts as owned ('unknown': the bot
 * cannot tell, so it assumes the worst) (docs/policy.md#gitops-managed-targets).
 */
export function declaredPaths(resource: unknown, owner: GitopsOwner, paths: readonly FieldPath[]): Declared {
  const managers = new Set([...GITOPS_MANAGERS[owner.tool], ...owner.managers]);
  const sets = managedFieldsOf(resource)
    .filter((e) => managers.has(e.manager) && !isStatusEntry(e) && isRecord(e.fieldsV1))
    .map((e) => e.fieldsV1);
  const owned = (p: FieldPath): boolean => sets.some((s) => fieldsCover(s, p));
  const applied = sets.length === 0 || owner.tool === 'argocd' ? lastAppliedOf(resource) : undefined;
  if (sets.length > 0 && applied)
    return split(paths, (p) => owned(p) || lastAppliedHas(applied, p), 'managedFields+last-applied');
  if (sets.length > 0) return split(paths, owned, 'managedFields');
  if (applied) return split(paths, (p) => lastAppliedHas(applied, p), 'last-applied');
  return split(paths, () => true, 'unknown');
}
