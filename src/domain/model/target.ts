// What an operation acts on: a FlinkDeployment or FlinkSessionJob in a namespace (of a cluster, when the
// installation has several), with Kubernetes name rules.
import { z } from 'zod';

export const TARGET_KINDS = ['FlinkDeployment', 'FlinkSessionJob'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const SESSION_JOB_PREFIX = 'sessionjob:';
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * `cluster` is set exactly when the installation serves several clusters (docs/deployment.md#several-clusters); a
 * single-cluster installation leaves it out, so its cards, answers and Redis keys stay as they were.
 */
export const TargetSchema = z.object({
  cluster: z.string().min(1).max(63).regex(DNS1123_LABEL).optional(),
  kind: z.enum(TARGET_KINDS),
  namespace: z.string().min(1).max(63).regex(DNS1123_LABEL),
  name: z.string().min(1).max(253).regex(DNS1123_SUBDOMAIN),
});
export type Target = z.infer<typeof TargetSchema>;

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Why `name` is not a valid Kubernetes object name (DNS-1123 subdomain), or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > 253) return `the name is ${name.length} characters long; Kubernetes allows at most 253`;
  if (/[A-Z]/.test(name))
    return `"${name}" has uppercase letters; Kubernetes names are lowercase (try "${name.toLowerCase()}")`;
  if (name.includes('_')) return `"${name}" has "_"; Kubernetes names use "-" (try "${name.replaceAll('_', '-')}")`;
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return `"${name}" is not a valid Kubernetes name: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

/** Why `ns` is not a valid namespace (DNS-1123 label, ≤ 63), or undefined when it is. */
export function namespaceProblem(ns: string): string | undefined {
  if (ns.length === 0) return 'the namespace is empty';
  if (ns.length > 63) return `the namespace is ${ns.length} characters long; Kubernetes allows at most 63`;
  if (/[A-Z]/.test(ns))
    return `namespace "${ns}" has uppercase letters; namespaces are lowercase (try "${ns.toLowerCase()}")`;
  if (ns.includes('_')) return `namespace "${ns}" has "_"; namespaces use "-" (try "${ns.replaceAll('_', '-')}")`;
  if (!DNS1123_LABEL.test(ns)) {
    return `namespace "${ns}" is not valid: lowercase letters, digits and "-", starting and ending with a letter or digit`;
  }
  return undefined;
}

/**
 * Cluster names are DNS-1123 labels (docs/deployment.md#several-clusters): they appear in targets, queue names and
 * Redis keys.
 */
export function isClusterName(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

/** Why `cluster` is not a valid cluster name (DNS-1123 label), or undefined when it is. */
export function clusterProblem(cluster: string): string | undefined {
  if (!isClusterName(cluster)) {
    return `cluster "${cluster}" is not a valid cluster name: lowercase letters, digits and "-", at most 63`;
  }
  return undefined;
}

const JOB_ID = /^[0-9a-fA-F]{32}$/;

/** A DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63. */
export function isDnsLabel(text: string): boolean {
  return text.length <= 63 && DNS1123_LABEL.test(text);
}

/** A Flink job id: 32 hex characters (Flink's JobID). */
export function isJobId(text: string): boolean {
  return JOB_ID.test(text);
}

/**
 * Text read from a resource (or from Flink) that names something in a URL is data: why `value` of `field` is not a
 * DNS-1123 label, or undefined when it is (docs/deep-verification.md#how-rest-is-reached).
 */
export function labelProblem(field: string, value: string): string | undefined {
  if (isDnsLabel(value)) return undefined;
  return `${field} ${quoted(value)} is not a valid name: lowercase letters, digits and "-", at most 63`;
}

/** Why `value` of `field` is not a Flink job id (32 hex characters), or undefined when it is. */
export function jobIdProblem(field: string, value: string): string | undefined {
  if (isJobId(value)) return undefined;
  return `${field} ${quoted(value)} is not a Flink job id (32 hex characters)`;
}

/** `value` in quotes, cut to 80 characters: a refusal never repeats a long text back. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * `name`, `namespace/name` or `cluster/namespace/name`, optionally prefixed `sessionjob:`; a bare name takes
 * the default namespace. Whether the cluster exists, and which cluster a target without one is in, is decided
 * where the clusters are known (app/clusters.ts).
 */
export function parseTarget(text: string, defaultNamespace?: string): Checked<Target> {
  let rest = text;
  let kind: TargetKind = 'FlinkDeployment';
  if (rest.toLowerCase().startsWith(SESSION_JOB_PREFIX)) {
    kind = 'FlinkSessionJob';
    rest = rest.slice(SESSION_JOB_PREFIX.length);
  }
  const parts = rest.split('/');
  if (parts.length > 3)
    return { ok: false, message: `"${text}" has more than two "/"; write namespace/name or cluster/namespace/name` };
  const name = parts.at(-1) as string;
  const namespace = parts.length === 1 ? defaultNamespace : (parts.at(-2) as string);
  const cluster = parts.length === 3 ? parts[0] : undefined;
  if (namespace === undefined) {
    return {
      ok: false,
      message: `"${text}" has no namespace and this channel has no default; write namespace/${name}`,
    };
  }
  const problem =
    (cluster === undefined ? undefined : clusterProblem(cluster)) ?? namespaceProblem(namespace) ?? nameProblem(name);
  if (problem) return { ok: false, message: problem };
  return { ok: true, value: { ...(cluster === undefined ? {} : { cluster }), kind, namespace, name } };
}

/** How a person writes the target: `ns/name`, `cluster/ns/name`, with `sessionjob:` for a session job. */
export function formatTarget(t: Target): string {
  const cluster = t.cluster === undefined ? '' : `${t.cluster}/`;
  return `${t.kind === 'FlinkSessionJob' ? SESSION_JOB_PREFIX : ''}${cluster}${t.namespace}/${t.name}`;
}

/**
 * A stable identity for keys and maps: `kind/ns/name`, or `kind/cluster/ns/name` (keyed by cluster too:
 * docs/deployment.md#several-clusters).
 */
export function targetKey(t: Target): string {
  return t.cluster === undefined
    ? `${t.kind}/${t.namespace}/${t.name}`
    : `${t.kind}/${t.cluster}/${t.namespace}/${t.name}`;
}

/** The name of the cluster a target is in: its own, else the first of `clusters` (a single cluster's only one). */
export function clusterOf(target: Pick<Target, 'cluster'>, clusters: readonly string[]): string {
  const name = target.cluster ?? clusters[0];
  if (name === undefined) throw new Error('no cluster is configured');
  return name;
}

/** The same object: cluster, kind, namespace and name all equal. */
export function sameTarget(a: Target, b: Target): boolean {
  return targetKey(a) === targetKey(b);
}

export const RESOURCE_PLURAL = {
  FlinkDeployment: 'flinkdeployments',
  FlinkSessionJob: 'flinksessionjobs',
} as const satisfies Record<TargetKind, string>;
