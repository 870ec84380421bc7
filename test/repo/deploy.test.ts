// deploy/: every YAML parses, every kustomization and component renders with the real kubectl, the Deployments are
// shaped for production, the bundled Redis is safe, and the Dockerfile builds what runs (RBAC: rbac-roles.test.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parsePolicyText } from '../../src/app/policy-load.js';
import { tsFiles } from '../support/kube-calls.js';
import { kustomize, kustomizeWithComponent, ROOT, type Obj } from '../support/kustomize.js';

const COMPONENTS = [
  'networkpolicy',
  'networkpolicy-external-redis',
  'monitoring',
  'multi-cluster',
  'multi-cluster/cluster',
  'multi-cluster/remote',
  'redis-sentinel',
  'pod-logs',
  'impersonation',
];
// Overlays beyond the example (several clusters: deploy-multi-cluster.test.ts checks what they render).
const OVERLAYS = ['deploy/overlays/example-multi-cluster/eu', 'deploy/overlays/example-multi-cluster/us'];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// Deployment and RBAC fields are read through this loose shape; a missing field fails the assertion that reads it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const byKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: Obj[], kind: string, name: string): Loose => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the render`);
  return found;
};

let base: Obj[];
let overlay: Obj[];

beforeAll(() => {
  base = kustomize('deploy/base');
  overlay = kustomize('deploy/overlays/example');
}, 120_000);

describe('YAML under deploy/', () => {
  const dirs = [
    'deploy/base',
    'deploy/redis',
    'deploy/overlays/example',
    ...OVERLAYS,
    ...COMPONENTS.map((c) => `deploy/components/${c}`),
  ];
  const files = dirs.flatMap((dir) =>
    execFileSync('ls', [join(ROOT, dir)], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => `${dir}/${f}`),
  );
  it.each(files)('%s parses', (file) => {
    const docs = parseAllDocuments(read(file));
    expect(docs.flatMap((d) => d.errors.map((e) => e.message))).toEqual([]);
    expect(docs.length).toBeGreaterThan(0);
  });

  it('the optional Redis renders as one durable, non-evicting server', () => {
    const redis = kustomize('deploy/redis');
    expect(byKind(redis, 'StatefulSet').map((s) => (s as Loose).spec.replicas)).toEqual([1]);
    const conf = (byKind(redis, 'ConfigMap')[0] as Loose).data['redis.conf'] as string;
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    const sts: Loose = byKind(redis, 'StatefulSet')[0];
    expect(sts.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    expect(sts.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    // maxmemory explicit and below the container's limit, so Redis refuses writes before the kernel kills it.
    const bytes = (text: string) =>
      Number(/^(\d+)/.exec(text)?.[1]) *
      ({ mb: 2 ** 20, gb: 2 ** 30, Mi: 2 ** 20, Gi: 2 ** 30 }[/[a-zA-Z]+$/.exec(text)?.[0] ?? ''] ?? NaN);
    const maxmemory = bytes(/^maxmemory (\S+)$/m.exec(conf)?.[1] ?? '');
    const limit = bytes(sts.spec.template.spec.containers[0].resources.limits.memory as string);
    expect(maxmemory).toBeGreaterThan(0);
    expect(maxmemory).toBeLessThanOrEqual(limit * 0.8);
    const pdb: Loose = byKind(redis, 'PodDisruptionBudget')[0];
    expect(pdb.spec.selector.matchLabels).toEqual(sts.spec.selector.matchLabels);
  });

  it('never puts the Redis password on a command line', () => {
    const sts: Loose = byKind(kustomize('deploy/redis'), 'StatefulSet')[0];
    const [container] = sts.spec.template.spec.containers as Loose[];
    const argv = [...(container.command as string[]), ...((container.args as string[] | undefined) ?? [])];
    // The shell's own argv holds the script; the password is expanded only inside the heredoc fed to stdin.
    expect(argv.join(' ')).not.toMatch(/--requirepass|\$\(REDIS_PASSWORD\)/);
    expect(argv.at(-1)).toMatch(/redis-server \/etc\/redis\/redis.conf - <<EOF\nrequirepass \$REDIS_PASSWORD\n/);
    expect(container.readinessProbe.exec.command.join(' ')).toContain('REDISCLI_AUTH="$REDIS_PASSWORD"');
  });
});

describe.each([
  ['deploy/base', () => base],
  ['deploy/overlays/example', () => overlay],
])('kubectl kustomize %s', (_dir, render) => {
  it('renders every object the installation needs', () => {
    const kinds = new Set(render().map((o) => o.kind));
    for (const kind of [
      'Namespace',
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'ConfigMap',
      'Deployment',
      'Service',
      'PodDisruptionBudget',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it('runs 2+ replicas of each role, probed on /readyz and /healthz, non-root, read-only, with resources', () => {
    for (const role of ['bot', 'worker']) {
      const deployment: Loose = named(render(), 'Deployment', `flink-chatops-${role}`);
      const pod = deployment.spec.template.spec;
      const [container] = pod.containers as Loose[];
      expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      expect(container.args).toEqual(['serve', '--role', role]);
      const port = (container.ports as Loose[]).find((p) => p.containerPort === 3000);
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: port.name });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: port.name });
      expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(container.resources.limits.memory).toBeDefined();
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      // No fixed UID (OpenShift's restricted SCC rejects one outside the namespace range); the image's USER is numeric.
      expect(pod.securityContext.runAsUser).toBeUndefined();
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.serviceAccountName).toBe(`flink-chatops-${role}`);
    }
  });

  it('stops each role within its grace period: longer than one Kubernetes call, the preStop pause included', () => {
    const kubeTimeoutSeconds =
      Number(/timeoutMs \?\? ([\d_]+)/.exec(read('src/kube/client-node.ts'))?.[1]?.replaceAll('_', '')) / 1000;
    expect(kubeTimeoutSeconds).toBeGreaterThan(0);
    for (const role of ['bot', 'worker']) {
      const pod = (named(render(), 'Deployment', `flink-chatops-${role}`) as Loose).spec.template.spec;
      const preStop = Number(pod.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      expect(pod.terminationGracePeriodSeconds, role).toBeGreaterThan(kubeTimeoutSeconds + preStop);
    }
  });

  it('gives each role a configuration src/config.ts accepts, secrets only through secretKeyRef', () => {
    const config: Loose = named(render(), 'ConfigMap', 'flink-chatops-config');
    const secrets = {
      SLACK_BOT_TOKEN: 'xoxb-from-secret',
      SLACK_SIGNING_SECRET: 'from-secret',
      REDIS_URL: 'redis://:pw@redis:6379',
      RECORD_SIGNING_KEY: 'k'.repeat(64),
    };
    // The record key has a Secret of its own, apart from the Redis password (docs/deployment.md#record-signing).
    const secretOf = (name: string) =>
      name === 'RECORD_SIGNING_KEY'
        ? { name: 'flink-chatops-record-key', key: 'key' }
        : { name: 'flink-chatops-secrets', key: name };
    for (const role of ['bot', 'worker'] as const) {
      const [container] = (named(render(), 'Deployment', `flink-chatops-${role}`) as Loose).spec.template.spec
        .containers as Loose[];
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'flink-chatops-config' } }]);
      const fromSecret = (container.env as Loose[]).map((e) => {
        expect(e.valueFrom.secretKeyRef, e.name).toMatchObject(secretOf(e.name as string));
        return e.name as string;
      });
      const env: Record<string, string> = { ...config.data };
      for (const name of fromSecret) if (name in secrets) env[name] = secrets[name as keyof typeof secrets];
      const loaded = loadConfig(env, role);
      expect(loaded.ok ? [] : loaded.problems, role).toEqual([]);
      // serve refuses to start without the record key: every role gets it.
      expect(loaded.ok && loaded.config.recordKey !== undefined, role).toBe(true);
      expect(fromSecret.sort(), role).toEqual(
        role === 'bot'
          ? ['RECORD_SIGNING_KEY', 'REDIS_URL', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']
          : ['RECORD_SIGNING_KEY', 'REDIS_URL'],
      );
    }
    expect(Object.keys(config.data).filter((k) => /TOKEN|SECRET|REDIS_URL/.test(k))).toEqual([]);
  });

  it('mounts the generated policy ConfigMap as a directory at POLICY_FILE', () => {
    const policyFile = (named(render(), 'ConfigMap', 'flink-chatops-config') as Loose).data.POLICY_FILE as string;
    const policyMap = byKind(render(), 'ConfigMap').find((c) => c.metadata.name.startsWith('flink-chatops-policy-'));
    for (const role of ['bot', 'worker']) {
      const pod = (named(render(), 'Deployment', `flink-chatops-${role}`) as Loose).spec.template.spec;
      const volume = (pod.volumes as Loose[]).find((v) => v.configMap?.name === policyMap?.metadata.name);
      const mount = (pod.containers[0].volumeMounts as Loose[]).find((m) => m.name === volume?.name);
      expect(mount.subPath, 'a subPath mount never sees ConfigMap updates').toBeUndefined();
      expect(policyFile).toBe(`${mount.mountPath as string}/policy.yaml`);
    }
  });

  it('keeps a bot connected while another reconnects (docs/deployment.md#socket-mode-two-bots-or-more)', () => {
    const bot: Loose = named(render(), 'Deployment', 'flink-chatops-bot');
    const { maxSurge, maxUnavailable } = bot.spec.strategy.rollingUpdate;
    expect(bot.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(maxUnavailable).toBe(0);
    expect(bot.spec.replicas + maxSurge, "Slack's 10 Socket Mode connections per app").toBeLessThanOrEqual(10);
    // The budget selects the bot pods (by their template's labels) and no worker pod.
    const selector = (named(render(), 'PodDisruptionBudget', 'flink-chatops-bot') as Loose).spec.selector.matchLabels;
    const selects = (role: string) =>
      Object.entries(selector as Record<string, string>).every(
        ([key, value]) =>
          (named(render(), 'Deployment', `flink-chatops-${role}`) as Loose).spec.template.metadata.labels[key] ===
          value,
      );
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    expect(selects('bot')).toBe(true);
    expect(selects('worker')).toBe(false);
  });

  it('exposes the bot on port 3000 and keeps one pod of each role through disruptions', () => {
    const service: Loose = named(render(), 'Service', 'flink-chatops-bot');
    expect(service.spec.selector).toEqual({
      'app.kubernetes.io/name': 'flink-chatops',
      'app.kubernetes.io/component': 'bot',
    });
    expect(service.spec.ports).toEqual([{ name: 'http', port: 3000, targetPort: 'http' }]);
    for (const role of ['bot', 'worker']) {
      const pdb: Loose = named(render(), 'PodDisruptionBudget', `flink-chatops-${role}`);
      expect(pdb.spec.minAvailable).toBe(1);
      expect(pdb.spec.selector.matchLabels).toEqual(
        (named(render(), 'Deployment', `flink-chatops-${role}`) as Loose).spec.selector.matchLabels,
      );
    }
  });
});

describe.each(COMPONENTS)('deploy/components/%s', (component) => {
  it('renders with kubectl kustomize on top of the base and the bundled Redis', () => {
    const objects = kustomizeWithComponent(component);
    expect(objects.length).toBeGreaterThan(byKind(base, 'Deployment').length);
    const names = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(new Set(names).size, 'no object twice').toBe(names.length);
  });
});

describe('the base policy', () => {
  it('is examples/policy.yaml, valid', () => {
    expect(read('deploy/base/policy.yaml')).toBe(read('examples/policy.yaml'));
    expect(parsePolicyText(read('deploy/base/policy.yaml')).ok).toBe(true);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = read('deploy/Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1) ?? '';

  it('builds on a Node LTS image the package supports, in two stages', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-[a-z]+-slim$/m.exec(dockerfile);
    const major = Number(image?.[1]);
    const minimum = Number(
      />=(\d+)/.exec((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node)?.[1],
    );
    expect(major % 2, 'even majors are the LTS lines').toBe(0);
    expect(major).toBeGreaterThanOrEqual(minimum);
    expect(stages.map((s) => s.split('\n')[0])).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime']);
    expect(stages[0]).toMatch(/^RUN npm ci\b/m);
    expect(stages[0]).toMatch(/^RUN npm run build\b/m);
  });

  it('runs production dependencies and the built dist/ (with its Lua scripts) as a non-root user under tini', () => {
    expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(runtime).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(read('package.json')).toContain("cpSync('src/store/lua','dist/store/lua'");
    expect(/^USER (\d+):\d+$/m.exec(runtime)?.[1]).not.toBe('0');
    expect(/^ENTRYPOINT (.*)$/m.exec(runtime)?.[1]).toBe('["/usr/bin/tini", "--", "node", "dist/cli/main.js"]');
    expect(/^CMD (.*)$/m.exec(runtime)?.[1]).toBe('["serve", "--role", "bot"]');
    expect(runtime).toMatch(/apt-get install -y --no-install-recommends tini/);
  });

  it('keeps local builds and secrets out of the context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', 'dist', '.git']) expect(ignored).toContain(entry);
  });

  it('needs nothing at run time that `npm ci --omit=dev` leaves out', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const builtins = new Set(builtinModules);
    const missing = tsFiles(ROOT, 'src', []).flatMap((file) =>
      [
        ...read(file).matchAll(
          /^(?:import|export) (?!type\b)[^;]*? from '([^'.][^']*)';$|\bimport\('([^'.][^']*)'\)/gms,
        ),
      ]
        .map((m) => m[1] ?? m[2] ?? '')
        .filter((spec) => !spec.startsWith('node:') && !builtins.has(spec))
        .map((spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? '')))
        .filter((name) => !(name in pkg.dependencies))
        .map((name) => `${file}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('ships no simulator: the build compiles src/ alone, and the runtime copies neither packages/ nor a ws of its own', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const listed = execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--listFilesOnly'], {
      encoding: 'utf8',
    });
    const ours = listed.split('\n').filter((f) => f.startsWith(ROOT) && !f.includes('/node_modules/'));
    expect(ours.length).toBeGreaterThan(100);
    expect(ours.filter((f) => !f.startsWith(join(ROOT, 'src') + '/'))).toEqual([]);
    expect(ours.filter((f) => /sandbox|[/]sim[/-]/.test(f))).toEqual([]);
    expect(runtime).not.toMatch(/packages/);
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('ws');
  });
});
