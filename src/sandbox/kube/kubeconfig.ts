// Kubeconfig files pointing kubectl and @kubernetes/client-node at the simulated API server.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export const SIM_CONTEXT = 'flink-sim';

/**
 * A kubeconfig for a plain-http server. client-node 1.x refuses `http:` servers unless the cluster entry sets
 * `insecure-skip-tls-verify: true` (SPEC §10); kubectl accepts it too. No credentials: the simulator has no auth.
 */
export function kubeconfigYaml(serverUrl: string, opts: { context?: string; namespace?: string } = {}): string {
  const context = opts.context ?? SIM_CONTEXT;
  const contextEntry: Record<string, string> = { cluster: context, user: `${context}-user` };
  if (opts.namespace) contextEntry.namespace = opts.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: context, cluster: { server: serverUrl, 'insecure-skip-tls-verify': true } }],
    users: [{ name: `${context}-user`, user: {} }],
    contexts: [{ name: context, context: contextEntry }],
    'current-context': context,
    preferences: {},
  });
}

/** Writes the kubeconfig (directories created, readable by the owner only, as kubectl writes its own). */
export async function writeKubeconfig(path: string, serverUrl: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(serverUrl), { mode: 0o600 });
}
