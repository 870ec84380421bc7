// The opt-in `impersonation` component (docs/deployment.md#kubernetes-attribution): rendered with the real kubectl on
// top of the base, it grants the worker's ServiceAccount only `impersonate` on users and on the one group the code
// sends, lets that group make the worker's writes in every managed namespace, and sets KUBE_IMPERSONATE=slack on the
// worker alone; the base grants no impersonation at all.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { REQUESTERS_GROUP } from '../../src/kube/impersonation.js';
import { kustomize, kustomizeWithComponent, type Obj } from '../support/kustomize.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const WORKER_SA = { kind: 'ServiceAccount', name: 'flink-chatops-worker', namespace: 'flink-chatops' };
const GROUP_SUBJECT = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: REQUESTERS_GROUP };

const of = (objects: Obj[], kind: string, name?: string) =>
  (objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name)) as Loose[]).sort((a, b) =>
    String(a.metadata.namespace).localeCompare(String(b.metadata.namespace)),
  );
const envOf = (objects: Obj[], deployment: string): { name: string; value?: string }[] =>
  of(objects, 'Deployment', deployment)[0].spec.template.spec.containers[0].env;

let base: Obj[];
let withImpersonation: Obj[];

beforeAll(() => {
  base = kustomize('deploy/base');
  withImpersonation = kustomizeWithComponent('impersonation');
}, 180_000);

describe('deploy/components/impersonation', () => {
  it('the base impersonates nobody: no impersonate verb, no KUBE_IMPERSONATE', () => {
    const rules = [...of(base, 'Role'), ...of(base, 'ClusterRole')].flatMap((r) => r.rules as Loose[]);
    expect(rules.filter((r) => (r.verbs as string[]).includes('impersonate'))).toEqual([]);
    expect(envOf(base, 'flink-chatops-worker').map((e) => e.name)).not.toContain('KUBE_IMPERSONATE');
  });

  it('a ClusterRole with exactly impersonate on users (any name) and on the requesters group', () => {
    // Beside the base's own (reading the Flink CRDs, docs/deployment.md#operator-versions).
    const added = of(withImpersonation, 'ClusterRole').filter(
      (r) => !of(base, 'ClusterRole').some((b) => b.metadata.name === r.metadata.name),
    );
    const [role, ...others] = added;
    expect(others).toEqual([]);
    expect(role.metadata.name).toBe('flink-chatops-worker-impersonate');
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: [REQUESTERS_GROUP] },
    ]);
  });

  it("is bound to the worker's ServiceAccount only, never the bot's", () => {
    const bindings = of(withImpersonation, 'ClusterRoleBinding').filter(
      (b) => !of(base, 'ClusterRoleBinding').some((o) => o.metadata.name === b.metadata.name),
    );
    expect(bindings.map((b) => [b.roleRef.name, b.subjects])).toEqual([
      ['flink-chatops-worker-impersonate', [WORKER_SA]],
    ]);
  });

  it("adds the requesters group to the worker's RoleBinding in every managed namespace, and changes no Role", () => {
    const before = of(base, 'RoleBinding', 'flink-chatops-worker');
    const after = of(withImpersonation, 'RoleBinding', 'flink-chatops-worker');
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((b) => b.metadata.namespace)).toEqual(before.map((b) => b.metadata.namespace));
    for (const [i, binding] of after.entries())
      expect(binding.subjects, binding.metadata.namespace).toEqual([...before[i].subjects, GROUP_SUBJECT]);
    expect(of(withImpersonation, 'RoleBinding', 'flink-chatops-bot')).toEqual(
      of(base, 'RoleBinding', 'flink-chatops-bot'),
    );
    expect(of(withImpersonation, 'Role')).toEqual(of(base, 'Role'));
  });

  it('sets KUBE_IMPERSONATE=slack on the worker, a value its configuration accepts, and nothing on the bot', () => {
    const added = envOf(withImpersonation, 'flink-chatops-worker').filter((e) => e.name === 'KUBE_IMPERSONATE');
    expect(added).toEqual([{ name: 'KUBE_IMPERSONATE', value: 'slack' }]);
    const loaded = loadConfig({ KUBE_IMPERSONATE: added[0]?.value }, 'worker');
    expect(loaded.ok && loaded.config.kubeImpersonate).toBe('slack');
    expect(envOf(withImpersonation, 'flink-chatops-bot')).toEqual(envOf(base, 'flink-chatops-bot'));
  });
});
