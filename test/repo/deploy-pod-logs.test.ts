// The opt-in `pod-logs` component (docs/deployment.md#pod-logs): rendered with the real kubectl on top of the base, it
// adds exactly `pods: list` and `pods/log: get` — the two calls `/flink logs` makes, derived from the bot's code — to
// the bot's read-only Role in every managed namespace, and nothing to the worker; the base grants neither.
import { beforeAll, describe, expect, it } from 'vitest';
import { kustomize, kustomizeWithComponent, ROOT, type Obj } from '../support/kustomize.js';
import { roleKubeCalls } from '../support/role-kube-calls.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const POD_LOG_RULES = ['/pods/log:get', '/pods:list'];

function rules(role: Loose): string[] {
  return (role.rules as Loose[])
    .flatMap((r) =>
      (r.apiGroups as string[]).flatMap((g) =>
        (r.resources as string[]).flatMap((res) => (r.verbs as string[]).map((v) => `${g}/${res}:${v}`)),
      ),
    )
    .sort();
}

const roles = (objects: Obj[], name: string) =>
  (objects.filter((o) => o.kind === 'Role' && o.metadata.name === name) as Loose[]).sort((a, b) =>
    String(a.metadata.namespace).localeCompare(String(b.metadata.namespace)),
  );

let base: Obj[];
let withLogs: Obj[];
let botCalls: string[];

beforeAll(() => {
  base = kustomize('deploy/base');
  withLogs = kustomizeWithComponent('pod-logs');
  botCalls = [...new Set(roleKubeCalls(ROOT, ['bot']).bot.calls.map((c) => `${c.group}/${c.resource}:${c.verb}`))];
}, 180_000);

describe('deploy/components/pod-logs', () => {
  it('the bot code reads pods and pod logs only through the two calls the component grants', () => {
    expect(botCalls.filter((c) => c.startsWith('/pods')).sort()).toEqual(POD_LOG_RULES);
  });

  it('the base grants no pods and no pods/log to anyone', () => {
    const all = base.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole').flatMap((r) => rules(r as Loose));
    expect(all.filter((r) => r.startsWith('/pods'))).toEqual([]);
  });

  it("adds pods list and pods/log get to the bot's Role in every managed namespace, nothing else", () => {
    const before = roles(base, 'flink-chatops-bot');
    const after = roles(withLogs, 'flink-chatops-bot');
    expect(after.map((r) => r.metadata.namespace)).toEqual(before.map((r) => r.metadata.namespace));
    expect(after.length).toBeGreaterThan(0);
    for (const [i, role] of after.entries())
      expect(rules(role), role.metadata.namespace).toEqual([...rules(before[i]), ...POD_LOG_RULES].sort());
  });

  it("leaves the worker's Roles and every binding as they are", () => {
    expect(roles(withLogs, 'flink-chatops-worker').map(rules)).toEqual(roles(base, 'flink-chatops-worker').map(rules));
    const bindings = (objects: Obj[]) => objects.filter((o) => o.kind.endsWith('Binding'));
    expect(bindings(withLogs)).toEqual(bindings(base));
  });
});
