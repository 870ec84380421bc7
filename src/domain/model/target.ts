// What an operation acts on: a FlinkDeployment or FlinkSessionJob in a namespace, with Kubernetes name rules.
import { z } from 'zod';

export const TARGET_KINDS = ['FlinkDeployment', 'FlinkSessionJob'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const SESSION_JOB_PREFIX = 'sessionjob:';
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const TargetSchema = z.object({
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
  if (/[A-Z]/.test(name)) return `"${name}" has uppercase letters; Kubernetes names are lowercase (try "${name.toLowerCase()}")`;
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
  if (/[A-Z]/.test(ns)) return `namespace "${ns}" has uppercase letters; namespaces are lowercase (try "${ns.toLowerCase()}")`;
  if (ns.includes('_')) return `namespace "${ns}" has "_"; namespaces use "-" (try "${ns.replaceAll('_', '-')}")`;
  if (!DNS1123_LABEL.test(ns)) {
    return `namespace "${ns}" is not valid: lowercase letters, digits and "-", starting and ending with a letter or digit`;
  }
  return undefined;
}

/** `name`, `namespace/name`, optionally prefixed `sessionjob:`; a bare name takes the default namespace. */
export function parseTarget(text: string, defaultNamespace?: string): Checked<Target> {
  let rest = text;
  let kind: TargetKind = 'FlinkDeployment';
  if (rest.toLowerCase().startsWith(SESSION_JOB_PREFIX)) {
    kind = 'FlinkSessionJob';
    rest = rest.slice(SESSION_JOB_PREFIX.length);
  }
  const parts = rest.split('/');
  if (parts.length > 2) return { ok: false, message: `"${text}" has more than one "/"; write namespace/name` };
  const [first, second] = parts as [string, string | undefined];
  const namespace = second === undefined ? defaultNamespace : first;
  const name = second === undefined ? first : second;
  if (namespace === undefined) {
    return { ok: false, message: `"${text}" has no namespace and this channel has no default; write namespace/${name}` };
  }
  const problem = namespaceProblem(namespace) ?? nameProblem(name);
  if (problem) return { ok: false, message: problem };
  return { ok: true, value: { kind, namespace, name } };
}

/** How a person writes the target: `ns/name` or `sessionjob:ns/name`. */
export function formatTarget(t: Target): string {
  return `${t.kind === 'FlinkSessionJob' ? SESSION_JOB_PREFIX : ''}${t.namespace}/${t.name}`;
}

/** A stable identity for keys and maps. */
export function targetKey(t: Target): string {
  return `${t.kind}/${t.namespace}/${t.name}`;
}

export const RESOURCE_PLURAL = {
  FlinkDeployment: 'flinkdeployments',
  FlinkSessionJob: 'flinksessionjobs',
} as const satisfies Record<TargetKind, string>;
