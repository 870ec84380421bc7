// Kubeconfig files pointing kubectl and @kubernetes/client-node at simulated API servers: one context for a lone
// simulated cluster (sim-cluster), or one context per cluster for the sandbox's several
// (docs/development.md#the-simulated-cluster; README.md#try-it).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export const SIM_CONTEXT = 'flink-sim';

/** One context of a kubeconfig: its name (the cluster's name in targets) and the API server it points at. */
export interface SimContext {
  name: string;
  server: string;
  namespace?: string;
}

/**
 * A kubeconfig for plain-http servers, one context (and cluster and user entry) each, the first current.
 * client-node 1.x refuses `http:` servers unless the cluster entry sets `insecure-skip-tls-verify: true`
 * (docs/development.md#the-simulated-cluster); kubectl accepts it too. No credentials: the simulator has no auth.
 */
export function multiKubeconfigYaml(contexts: readonly SimContext[], opts: { current?: string } = {}): string {
  if (contexts.length === 0) throw new Error('a kubeconfig needs at least one context');
  const names = contexts.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`context "${twice}" is named twice`);
  const current = opts.current ?? (names[0] as string);
  if (!names.includes(current)) throw new Error(`the current context "${current}" is not one of ${names.join(', ')}`);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((c) => ({ name: c.name, cluster: { server: c.server, 'insecure-skip-tls-verify': true } })),
    users: contexts.map((c) => ({ name: `${c.name}-user`, user: {} })),
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: c.name, user: `${c.name}-user`, ...(c.namespace ? { namespace: c.namespace } : {}) },
    })),
    'current-context': current,
    preferences: {},
  });
}

/** A kubeconfig with one context (`flink-sim` unless named) for one plain-http server. */
export function kubeconfigYaml(serverUrl: string, opts: { context?: string; namespace?: string } = {}): string {
  return multiKubeconfigYaml([
    { name: opts.context ?? SIM_CONTEXT, server: serverUrl, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
  ]);
}

/** Writes a kubeconfig (directories created, readable by the owner only, as kubectl writes its own). */
async function writeOwnerOnly(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, { mode: 0o600 });
}

/** Writes the one-context kubeconfig of a lone simulated cluster. */
export async function writeKubeconfig(path: string, serverUrl: string): Promise<void> {
  await writeOwnerOnly(path, kubeconfigYaml(serverUrl));
}

/** Writes a kubeconfig with one context per simulated cluster (the first is the current one). */
export async function writeMultiKubeconfig(path: string, contexts: readonly SimContext[]): Promise<void> {
  await writeOwnerOnly(path, multiKubeconfigYaml(contexts));
}
