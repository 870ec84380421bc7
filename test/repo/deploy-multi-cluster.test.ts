// deploy/ for several clusters (docs/deployment.md#several-clusters): the `multi-cluster` component gives the bot
// read-only kubeconfig contexts from a Secret and keeps the home worker on its in-cluster account for its own cluster;
// the `remote` component installs, inside another cluster, a worker for that cluster only with the worker's RBAC there
// (and the bot's read-only identity the bot reads that cluster with). Rendered with the real kubectl, as deploy.test.ts
// does; RBAC against the code: rbac-roles.test.ts (which renders the example-multi-cluster overlays too).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { kustomize, kustomizeWithComponent, type Obj } from '../support/kustomize.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const HOME = 'deploy/overlays/example-multi-cluster/eu';
const REMOTE = 'deploy/overlays/example-multi-cluster/us';
const KUBECONFIG_SECRET = 'flink-chatops-kubeconfigs';
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Stand-ins for what the Secrets hold, so a rendered pod's environment can be fed to loadConfig. */
const SECRET_VALUES: Record<string, string> = {
  SLACK_BOT_TOKEN: 'xoxb-from-secret',
  SLACK_SIGNING_SECRET: 'from-secret',
  REDIS_URL: 'redis://:pw@redis:6379',
};

const renders: Record<string, Obj[]> = {};

beforeAll(() => {
  renders.component = kustomizeWithComponent('multi-cluster');
  renders.remoteComponent = kustomizeWithComponent('multi-cluster/remote');
  renders[HOME] = kustomize(HOME);
  renders[REMOTE] = kustomize(REMOTE);
  renders.example = kustomize('deploy/overlays/example');
}, 180_000);

const of = (render: string, kind: string) => (renders[render] as Obj[]).filter((o) => o.kind === kind) as Loose[];
const find = (render: string, kind: string, name: string): Loose =>
  of(render, kind).find((o) => o.metadata.name === name);
const deployment = (render: string, role: 'bot' | 'worker'): Loose =>
  find(render, 'Deployment', `flink-chatops-${role}`);
const container = (d: Loose): Loose => d.spec.template.spec.containers[0];

/** The container's environment as the pod sees it: plain values, ConfigMap keys resolved, Secret keys stood in for. */
function environment(render: string, d: Loose): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of (container(d).envFrom ?? []) as Loose[])
    Object.assign(env, find(render, 'ConfigMap', from.configMapRef.name).data);
  for (const e of (container(d).env ?? []) as Loose[]) {
    const ref = e.valueFrom?.configMapKeyRef;
    if (e.value !== undefined) env[e.name] = e.value;
    else if (ref) env[e.name] = find(render, 'ConfigMap', ref.name)?.data?.[ref.key];
    else if (e.valueFrom?.secretKeyRef && e.name in SECRET_VALUES) env[e.name] = SECRET_VALUES[e.name] as string;
  }
  return env;
}

describe.each([
  ['the multi-cluster component on the base', 'component'],
  [HOME, HOME],
])('%s (the bot’s cluster)', (_name, render) => {
  it('gives the bot the kubeconfig Secret, mounted read-only at KUBECONFIG, and KUBE_CONTEXTS', () => {
    const bot = deployment(render, 'bot');
    const env = environment(render, bot);
    const volume = (bot.spec.template.spec.volumes as Loose[]).find((v) => v.secret?.secretName === KUBECONFIG_SECRET);
    expect(volume, `a volume from the Secret ${KUBECONFIG_SECRET}`).toBeDefined();
    expect(volume.secret.items).toEqual([{ key: 'config', path: 'config' }]);
    const mount = (container(bot).volumeMounts as Loose[]).find((m) => m.name === volume.name);
    expect(mount.readOnly).toBe(true);
    expect(mount.subPath, 'a subPath mount never sees Secret updates').toBeUndefined();
    expect(env.KUBECONFIG).toBe(`${mount.mountPath as string}/config`);
    const contexts = (env.KUBE_CONTEXTS ?? '').split(',');
    expect(contexts.length).toBeGreaterThanOrEqual(2);
    for (const name of contexts) expect(name).toMatch(DNS_1123_LABEL);
  });

  it('keeps the bot on its read-only ServiceAccount, with no other credentials than the kubeconfig', () => {
    const pod = deployment(render, 'bot').spec.template.spec;
    expect(pod.serviceAccountName).toBe('flink-chatops-bot');
    const secretVolumes = (pod.volumes as Loose[]).filter((v) => v.secret || v.projected);
    expect(secretVolumes.map((v) => v.secret?.secretName)).toEqual([KUBECONFIG_SECRET]);
  });

  it('runs the worker for this cluster only, on its in-cluster ServiceAccount (no kubeconfig, no contexts)', () => {
    const worker = deployment(render, 'worker');
    const env = environment(render, worker);
    const contexts = (environment(render, deployment(render, 'bot')).KUBE_CONTEXTS ?? '').split(',');
    expect(env.CLUSTER_NAME).toMatch(DNS_1123_LABEL);
    expect(contexts, 'the home cluster is one of the bot’s contexts').toContain(env.CLUSTER_NAME);
    expect(env.WORKER_CLUSTERS).toBe(env.CLUSTER_NAME);
    expect(env.KUBECONFIG).toBeUndefined();
    expect(env.KUBE_CONTEXTS).toBeUndefined();
    expect(worker.spec.template.spec.serviceAccountName).toBe('flink-chatops-worker');
    expect(worker.spec.template.spec.automountServiceAccountToken).not.toBe(false);
    expect((worker.spec.template.spec.volumes as Loose[]).filter((v) => v.secret)).toEqual([]);
  });

  it('gives each role a configuration src/config.ts accepts, with the clusters it names', () => {
    const bot = loadConfig(environment(render, deployment(render, 'bot')), 'bot');
    expect(bot.ok ? [] : bot.problems).toEqual([]);
    const worker = loadConfig(environment(render, deployment(render, 'worker')), 'worker');
    expect(worker.ok ? [] : worker.problems).toEqual([]);
    if (!bot.ok || !worker.ok) return;
    expect(bot.config.clusters.fromContexts).toBe(true);
    expect(worker.config.clusters.fromContexts).toBe(false);
    expect(worker.config.clusters.worker).toEqual(worker.config.clusters.names);
    expect(bot.config.clusters.names).toEqual(expect.arrayContaining([...worker.config.clusters.names]));
  });
});

describe.each([
  ['the remote component on the base', 'remoteComponent'],
  [REMOTE, REMOTE],
])('%s (a cluster without the bot)', (_name, render) => {
  it('runs no bot: no bot Deployment, Service, PodDisruptionBudget or Ingress', () => {
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'Ingress'])
      expect(find(render, kind, 'flink-chatops-bot'), kind).toBeUndefined();
    expect(of(render, 'Deployment').map((d) => d.metadata.name)).toEqual(['flink-chatops-worker']);
  });

  it('runs a worker for this cluster only, on its in-cluster ServiceAccount, with a configuration src/config.ts accepts', () => {
    const worker = deployment(render, 'worker');
    const env = environment(render, worker);
    expect(env.CLUSTER_NAME).toMatch(DNS_1123_LABEL);
    expect(env.WORKER_CLUSTERS).toBe(env.CLUSTER_NAME);
    expect(env.KUBECONFIG).toBeUndefined();
    expect(env.KUBE_CONTEXTS).toBeUndefined();
    expect(worker.spec.template.spec.serviceAccountName).toBe('flink-chatops-worker');
    expect((container(worker).env as Loose[]).find((e) => e.name === 'REDIS_URL').valueFrom.secretKeyRef).toMatchObject(
      { name: 'flink-chatops-secrets' },
    );
    const loaded = loadConfig(env, 'worker');
    expect(loaded.ok ? [] : loaded.problems).toEqual([]);
    if (loaded.ok) expect(loaded.config.clusters.worker).toEqual([env.CLUSTER_NAME]);
  });

  it('grants the worker its write access in this cluster: Role + RoleBinding per managed namespace, bound to its ServiceAccount', () => {
    const roles = of(render, 'Role').filter((r) => r.metadata.name === 'flink-chatops-worker');
    expect(roles.length).toBeGreaterThan(0);
    const verbs = new Set(roles.flatMap((r) => (r.rules as Loose[]).flatMap((rule) => rule.verbs as string[])));
    for (const verb of ['patch', 'create']) expect(verbs).toContain(verb);
    const bound = of(render, 'RoleBinding').filter((b) => b.roleRef.name === 'flink-chatops-worker');
    expect(bound.map((b) => b.metadata.namespace).sort()).toEqual(roles.map((r) => r.metadata.namespace).sort());
    expect(find(render, 'ServiceAccount', 'flink-chatops-worker')).toBeDefined();
  });
});

describe('the two clusters of the example', () => {
  it('are one installation: same image, policy and configuration, the remote cluster named in the bot’s contexts', () => {
    const image = (render: string) => container(deployment(render, 'worker')).image as string;
    expect(image(REMOTE)).toBe(image(HOME));
    const policy = (render: string) =>
      of(render, 'ConfigMap').find((c) => c.metadata.name.startsWith('flink-chatops-policy-'));
    expect(policy(REMOTE).data).toEqual(policy(HOME).data);
    expect(find(REMOTE, 'ConfigMap', 'flink-chatops-config').data).toEqual(
      find(HOME, 'ConfigMap', 'flink-chatops-config').data,
    );
    const contexts = (environment(HOME, deployment(HOME, 'bot')).KUBE_CONTEXTS ?? '').split(',');
    const home = environment(HOME, deployment(HOME, 'worker')).CLUSTER_NAME;
    const remote = environment(REMOTE, deployment(REMOTE, 'worker')).CLUSTER_NAME;
    expect(remote).not.toBe(home);
    expect(contexts.sort()).toEqual([home, remote].sort());
  });

  it('reuse the example’s RBAC in both clusters: the same Roles, namespaces and rules', () => {
    const rbac = (render: string) =>
      of(render, 'Role')
        .map((r) => JSON.stringify([r.metadata.namespace, r.metadata.name, r.rules]))
        .sort();
    expect(rbac(HOME)).toEqual(rbac('example'));
    expect(rbac(REMOTE)).toEqual(rbac('example'));
  });

  it('give the bot a read-only token in each cluster, filled in by Kubernetes', () => {
    for (const render of [HOME, REMOTE]) {
      const token = find(render, 'Secret', 'flink-chatops-bot-token');
      expect(token.type).toBe('kubernetes.io/service-account-token');
      expect(token.metadata.annotations['kubernetes.io/service-account.name']).toBe('flink-chatops-bot');
    }
  });
});

describe.each(['component', 'remoteComponent', HOME, REMOTE])('%s', (render) => {
  it('inlines no secret: Secrets carry no data, every credential comes from a secretKeyRef or the mounted Secret', () => {
    for (const secret of of(render, 'Secret')) {
      expect(secret.data, secret.metadata.name).toBeUndefined();
      expect(secret.stringData, secret.metadata.name).toBeUndefined();
    }
    for (const d of of(render, 'Deployment')) {
      for (const e of (container(d).env ?? []) as Loose[]) {
        if (/TOKEN|SECRET|REDIS_URL|PASSWORD/.test(e.name as string))
          expect(e.valueFrom?.secretKeyRef, `${d.metadata.name as string} ${e.name as string}`).toBeDefined();
      }
    }
    for (const c of of(render, 'ConfigMap'))
      expect(JSON.stringify(c.data ?? {}), c.metadata.name).not.toMatch(
        /xox[bp]-|xapp-|token:|client-key-data|BEGIN .*PRIVATE KEY/,
      );
  });
});
