// What an unknown target is answered with (docs/commands.md#unknown-targets): close names the requester can list
// (the typed namespace, the policy's other exact namespaces on that cluster) and a pointer to `/flink list`.
import { formatTarget, type Target } from '../domain/model/target.js';
import { closeNames } from '../domain/kit/language/close-names.js';
import type { FlinkClient } from '../kube/flink-client.js';

/** Other namespaces looked in for the same name: a few list reads at most. */
const MAX_OTHER_NAMESPACES = 5;
/** A Kubernetes object name (RFC 1123 subdomain): anything else read back is not offered. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** "there is no FlinkDeployment eu/ns/x" with up to 3 close names and where to look; hints that fail are left out. */
export async function unknownTargetRefusal(
  target: Target,
  kube: FlinkClient,
  namespaces: readonly string[],
  signal?: AbortSignal,
): Promise<string> {
  const missing = `there is no ${target.kind} ${formatTarget(target)}`;
  const near = await nearTargets(target, kube, namespaces, signal).catch((): Target[] => []);
  const meant = near.length === 0 ? '' : ` Did you mean ${near.map((t) => `\`${formatTarget(t)}\``).join(', ')}?`;
  return `${missing}.${meant} \`/flink list ${target.namespace}\` shows what is there.`;
}

async function nearTargets(
  target: Target,
  kube: FlinkClient,
  namespaces: readonly string[],
  signal?: AbortSignal,
): Promise<Target[]> {
  const opts = signal ? { signal } : {};
  const names = async (namespace: string) =>
    (await kube.listSummaries(target.kind, namespace, opts)).map((s) => s.name).filter((n) => OBJECT_NAME.test(n));
  // The same name in another namespace first (the likelier slip), then close names in the typed one.
  const elsewhere: Target[] = [];
  for (const namespace of namespaces.filter((n) => n !== target.namespace).slice(0, MAX_OTHER_NAMESPACES)) {
    const there = await names(namespace).catch((): string[] => []);
    if (there.includes(target.name)) elsewhere.push({ ...target, namespace });
  }
  const here = closeNames(target.name, await names(target.namespace)).map((name) => ({ ...target, name }));
  return [...elsewhere, ...here].slice(0, 3);
}
