// Kubernetes attribution (docs/deployment.md#kubernetes-attribution): who a write is made as, the headers, the words of
// a refused impersonation, and the Flink client sending them on its writes only (against the simulated API server).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flinkDeployment, kubeConfigFor, startSimApi, type SimApi } from '@flink-chatops/sim/testing/kube';
import type { RequestInfo } from '@flink-chatops/sim/kube/server';
import { ClientNodeFlinkClient } from '../../../src/kube/client-node.js';
import { KubeError } from '../../../src/kube/errors.js';
import {
  describeImpersonationDenial,
  impersonationFor,
  impersonationHeaders,
  REQUESTERS_GROUP,
} from '../../../src/kube/impersonation.js';
import type { Target } from '../../../src/domain/model/target.js';

const DENIAL =
  'users "slack:U123" is forbidden: User "system:serviceaccount:flink-chatops:flink-chatops-worker" cannot ' +
  'impersonate resource "users" in API group "" at the cluster scope';

describe('impersonationFor', () => {
  it('is nobody when KUBE_IMPERSONATE is off, whatever the requester', () => {
    expect(impersonationFor('off', 'U0ALICE')).toBeUndefined();
    expect(impersonationFor('off', undefined)).toBeUndefined();
  });

  it('is slack:<user id> in the requesters group when it is slack', () => {
    expect(impersonationFor('slack', 'U0ALICE')).toEqual({ user: 'slack:U0ALICE', group: 'flink-chatops:requesters' });
    expect(REQUESTERS_GROUP).toBe('flink-chatops:requesters');
  });

  it.each([undefined, '', 'u0alice', 'U0ALICE\r\nImpersonate-User: system:admin', 'slack:U0ALICE'])(
    'refuses %j as a rejected KubeError that says nothing was sent',
    (requester) => {
      let thrown: unknown;
      try {
        impersonationFor('slack', requester);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(KubeError);
      expect(thrown).toMatchObject({ code: 'rejected', retryable: false, outcomeUnknown: false });
      expect((thrown as Error).message).toMatch(
        /^KUBE_IMPERSONATE=slack: .* is not a Slack user id.*nothing was sent$/,
      );
    },
  );
});

describe('impersonationHeaders', () => {
  it('names the user and the one group as kube-apiserver reads them', () => {
    expect(impersonationHeaders({ user: 'slack:U0ALICE', group: REQUESTERS_GROUP })).toEqual({
      'Impersonate-User': 'slack:U0ALICE',
      'Impersonate-Group': 'flink-chatops:requesters',
    });
  });
});

describe('describeImpersonationDenial', () => {
  it("says the worker's role lacks impersonate, names the component, and keeps the API server's words", () => {
    const words = describeImpersonationDenial(DENIAL);
    expect(words).toContain("the worker's role lacks `impersonate` on users, which KUBE_IMPERSONATE=slack needs");
    expect(words).toContain('deploy/components/impersonation');
    expect(words).toContain('docs/deployment.md#kubernetes-attribution');
    expect(words).toMatch(/The API server said: users "slack:U123" is forbidden: .*cannot impersonate/);
  });

  it('names groups when the group is what was refused', () => {
    const groups = DENIAL.replace('users "slack:U123"', `groups "${REQUESTERS_GROUP}"`).replace(
      'resource "users"',
      'resource "groups"',
    );
    expect(describeImpersonationDenial(groups)).toContain('lacks `impersonate` on groups');
  });

  it('leaves any other denial alone', () => {
    const rbac =
      'flinkdeployments.flink.apache.org "orders" is forbidden: User "slack:U123" cannot patch resource ' +
      '"flinkdeployments" in API group "flink.apache.org" in the namespace "streaming-dev"';
    expect(describeImpersonationDenial(rbac)).toBeUndefined();
    expect(describeImpersonationDenial('HTTP 403')).toBeUndefined();
  });
});

describe('ClientNodeFlinkClient with impersonate', () => {
  const NS = 'streaming-dev';
  const target: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
  let sim: SimApi;
  let seen: RequestInfo[];

  beforeEach(async () => {
    sim = await startSimApi();
    sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
    seen = [];
    sim.server.onRequest((info) => seen.push(info));
  });
  afterEach(async () => {
    await sim.close();
  });

  const client = (impersonate: 'off' | 'slack') =>
    new ClientNodeFlinkClient(kubeConfigFor(sim.server.url), { timeoutMs: 2000, impersonate });
  const rv = () => sim.store.get('flinkdeployments', NS, 'orders')?.metadata.resourceVersion ?? '';
  const patch = { spec: { job: { parallelism: 3 } } };
  const snapshot = {
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkStateSnapshot',
    metadata: { name: 'orders-sp-1', namespace: NS },
    spec: { jobReference: { kind: 'FlinkDeployment', name: 'orders' }, savepoint: {} },
  };

  it('sends Impersonate-User and -Group on patch and create, and none on reads', async () => {
    const kube = client('slack');
    await kube.get('FlinkDeployment', NS, 'orders');
    await kube.mergePatch(target, patch, rv(), { requester: 'U0ALICE' });
    await kube.createSnapshot(NS, snapshot, { requester: 'U0ALICE' });
    await kube.list('FlinkStateSnapshot', NS);
    const as = { user: 'slack:U0ALICE', groups: ['flink-chatops:requesters'] };
    expect(seen.map((i) => [i.verb, i.resource, i.impersonate])).toEqual([
      ['get', 'flinkdeployments', undefined],
      ['patch', 'flinkdeployments', as],
      ['create', 'flinkstatesnapshots', as],
      ['list', 'flinkstatesnapshots', undefined],
    ]);
  });

  it('sends none when off, even with a requester', async () => {
    await client('off').mergePatch(target, patch, rv(), { requester: 'U0ALICE' });
    expect(seen.map((i) => [i.verb, i.impersonate])).toEqual([['patch', undefined]]);
  });

  it('a refused impersonation is a forbidden KubeError in words naming the missing rule; nothing is changed', async () => {
    sim.server.faults.forbidImpersonation();
    const before = rv();
    const error = await client('slack')
      .mergePatch(target, patch, before, { requester: 'U0ALICE' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ code: 'forbidden', status: 403, retryable: false, outcomeUnknown: false });
    expect((error as Error).message).toMatch(/^the worker's role lacks `impersonate` on users, which KUBE_IMPERSONATE/);
    expect((error as Error).message).toContain('users "slack:U0ALICE" is forbidden');
    expect(rv()).toBe(before);
  });

  it('refuses a write without a requester under slack before any request', async () => {
    await expect(client('slack').mergePatch(target, patch, rv())).rejects.toMatchObject({ code: 'rejected' });
    expect(seen).toEqual([]);
  });
});
