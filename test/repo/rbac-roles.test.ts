// RBAC per role (docs/deployment.md#two-roles-two-serviceaccounts): the verbs each role's code calls — derived with the
// TypeScript checker from the code reachable from src/roles/<role>.ts — are exactly what that role's Roles grant, in
// every rendered installation; the internet-facing bot's ServiceAccount can write nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { kustomize, ROOT, type Obj } from '../support/kustomize.js';
import type { KubeCall } from '../support/kube-calls.js';
import { roleKubeCalls, type RoleName, type RoleCalls } from '../support/role-kube-calls.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const APP_NAMESPACE = 'flink-chatops';
const ROLES: RoleName[] = ['bot', 'worker'];
const READ_VERBS = ['get', 'list', 'watch'];
/** The one cluster-wide call: reading the installed Flink CRDs, by name. */
const CRD_READ = 'apiextensions.k8s.io/customresourcedefinitions:get';
const FLINK_CRDS = [
  'flinkdeployments.flink.apache.org',
  'flinksessionjobs.flink.apache.org',
  'flinkstatesnapshots.flink.apache.org',
  'flinkbluegreendeployments.flink.apache.org',
];
/**
 * What the bot may hold beyond reading: `services/proxy` get for deep verification (docs/deep-verification.md#rbac),
 * when the code uses it.
 */
const BOT_EXTRA = ['/services/proxy:get'];
/**
 * What the bot calls only where the opt-in `pod-logs` component grants it (docs/deployment.md#pod-logs): no shipped
 * installation has it; deploy-pod-logs.test.ts checks the component.
 */
const OPT_IN_BOT_CALLS = ['/pods:list', '/pods/log:get'];

/** `group/resource:verb` for every rule of a Role or ClusterRole. */
function ruleSet(role: Loose): string[] {
  return (role.rules as Loose[])
    .flatMap((r) =>
      (r.apiGroups as string[]).flatMap((g) =>
        (r.resources as string[]).flatMap((res) => (r.verbs as string[]).map((v) => `${g}/${res}:${v}`)),
      ),
    )
    .sort();
}
const callSet = (calls: readonly KubeCall[]) =>
  [...new Set(calls.map((c) => `${c.group}/${c.resource}:${c.verb}`))].sort();

/** Every installation shipped: one cluster, and the example over two clusters (each cluster's own RBAC). */
const INSTALLATIONS = [
  'deploy/base',
  'deploy/overlays/example',
  'deploy/overlays/example-multi-cluster/eu',
  'deploy/overlays/example-multi-cluster/us',
];

let derived: Record<RoleName, RoleCalls>;
const renders: Record<string, Obj[]> = {};

beforeAll(() => {
  derived = roleKubeCalls(ROOT);
  for (const dir of INSTALLATIONS) renders[dir] = kustomize(dir);
}, 180_000);

describe('what the code of each role calls', () => {
  it('the bot role only reads the cluster', () => {
    const verbs = callSet(derived.bot.calls);
    expect(verbs.length, 'the bot reads the Flink resources it plans against').toBeGreaterThan(0);
    expect(verbs.filter((v) => !READ_VERBS.includes(v.split(':')[1] ?? '') && !BOT_EXTRA.includes(v))).toEqual([]);
    expect([...derived.bot.methods.keys()]).not.toContain('ClientNodeFlinkClient.mergePatch');
    expect([...derived.bot.methods.keys()]).not.toContain('ClientNodeFlinkClient.createSnapshot');
  });

  it('the worker role patches the job kinds and creates snapshots (what it is for)', () => {
    const verbs = callSet(derived.worker.calls);
    for (const v of [
      'flink.apache.org/flinkdeployments:patch',
      'flink.apache.org/flinksessionjobs:patch',
      'flink.apache.org/flinkstatesnapshots:create',
    ]) {
      expect(verbs).toContain(v);
    }
  });

  it('neither role makes a cluster-wide call but reading the Flink CRDs (docs/deployment.md#operator-versions)', () => {
    for (const role of ROLES)
      expect(callSet(derived[role].calls.filter((c) => c.scope === 'cluster')), role).toEqual([CRD_READ]);
  });
});

describe.each(INSTALLATIONS)('kubectl kustomize %s', (dir) => {
  const objects = () => renders[dir] as Obj[];
  const of = (kind: string) => objects().filter((o) => o.kind === kind) as Loose[];

  it.each(ROLES)(
    'every Role of the %s grants exactly the calls its code makes, bound to its own ServiceAccount only',
    (role) => {
      const expected = callSet(derived[role].calls.filter((c) => c.scope === 'namespaced')).filter(
        (c) => !OPT_IN_BOT_CALLS.includes(c),
      );
      const roles = of('Role').filter((r) => r.metadata.name === `flink-chatops-${role}`);
      expect(roles.length).toBeGreaterThan(0);
      for (const r of roles) expect(ruleSet(r), `Role ${r.metadata.namespace}/${r.metadata.name}`).toEqual(expected);
      const bindings = of('RoleBinding').filter((b) => b.roleRef.name === `flink-chatops-${role}`);
      for (const b of bindings)
        expect(b.subjects).toEqual([
          { kind: 'ServiceAccount', name: `flink-chatops-${role}`, namespace: APP_NAMESPACE },
        ]);
      expect(bindings.map((b) => b.metadata.namespace).sort()).toEqual(roles.map((r) => r.metadata.namespace).sort());
    },
  );

  it('the bot ServiceAccount can write nothing: no write verb in any rule bound to it', () => {
    const boundRoles = of('RoleBinding')
      .filter((b) => (b.subjects as Loose[]).some((s) => s.name === 'flink-chatops-bot'))
      .map((b) =>
        of(b.roleRef.kind).find(
          (r) => r.metadata.name === b.roleRef.name && r.metadata.namespace === b.metadata.namespace,
        ),
      );
    const cluster = of('ClusterRoleBinding')
      .filter((b) => (b.subjects as Loose[]).some((s) => s.name === 'flink-chatops-bot'))
      .map((b) => of('ClusterRole').find((r) => r.metadata.name === b.roleRef.name));
    expect(boundRoles.length).toBeGreaterThan(0);
    const verbs = boundRoles.flatMap(ruleSet);
    expect(verbs.filter((v) => !READ_VERBS.includes(v.split(':')[1] ?? '') && !BOT_EXTRA.includes(v))).toEqual([]);
    // Cluster-wide, only `get` on the Flink CRDs by name.
    expect(cluster.flatMap(ruleSet)).toEqual([CRD_READ]);
    expect(cluster.flatMap((r) => (r.rules as Loose[]).map((rule) => rule.resourceNames))).toEqual([FLINK_CRDS]);
  });

  it('grants cluster-wide only what the code calls there and binds only the two role ServiceAccounts', () => {
    expect(of('ClusterRole').flatMap(ruleSet)).toEqual(
      callSet([...derived.bot.calls, ...derived.worker.calls].filter((c) => c.scope === 'cluster')),
    );
    const subjects = new Set(of('RoleBinding').flatMap((b) => (b.subjects as Loose[]).map((s) => s.name as string)));
    expect([...subjects].sort()).toEqual(['flink-chatops-bot', 'flink-chatops-worker']);
    expect(
      of('ServiceAccount')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual(['flink-chatops-bot', 'flink-chatops-worker']);
  });

  it('every Deployment runs as the ServiceAccount of its role', () => {
    for (const d of of('Deployment')) {
      expect(d.spec.template.spec.serviceAccountName, d.metadata.name).toBe(
        `flink-chatops-${d.spec.template.metadata.labels['app.kubernetes.io/component']}`,
      );
    }
  });
});
