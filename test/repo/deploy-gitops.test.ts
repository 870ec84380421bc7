// deploy/gitops (docs/deployment.md#installing-with-argo-cd-or-flux): the Argo CD Application and the Flux Kustomization
// install the bot from a kustomization and components that exist, with the base's image name and the same settings in
// both, using only fields the two controllers have; and each builds the way its controller builds it — its images,
// patches and components added to the kustomization at `path` (Argo CD through `kustomize edit`, which skips a
// component already listed; Flux by appending) — with the real kubectl, which deploy.test.ts requires too. The docs
// page maps the usual Helm values to these fields.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { kustomize, ROOT, type Obj } from '../support/kustomize.js';

// Parsed manifests are read through this loose shape; a missing field fails the assertion that reads it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

interface Image {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

/** What a controller adds to the kustomization at `path` before it builds. */
interface Install {
  path: string;
  images: Image[];
  components: string[];
  patches: { target?: Loose; patch: string }[];
}

const ARGO_FILE = 'deploy/gitops/argocd-application.yaml';
const FLUX_FILE = 'deploy/gitops/flux-kustomization.yaml';
// The fields of Argo CD's ApplicationSourceKustomize and of Flux's Kustomization spec (kustomize.toolkit.fluxcd.io/v1).
const ARGO_KUSTOMIZE_FIELDS = [
  'namePrefix',
  'nameSuffix',
  'images',
  'replicas',
  'commonLabels',
  'commonAnnotations',
  'commonAnnotationsEnvsubst',
  'forceCommonLabels',
  'forceCommonAnnotations',
  'labelWithoutSelector',
  'labelIncludeTemplates',
  'namespace',
  'patches',
  'components',
  'ignoreMissingComponents',
  'version',
  'kubeVersion',
  'apiVersions',
];
const FLUX_SPEC_FIELDS = [
  'sourceRef',
  'path',
  'interval',
  'retryInterval',
  'prune',
  'deletionPolicy',
  'wait',
  'timeout',
  'healthChecks',
  'healthCheckExprs',
  'dependsOn',
  'serviceAccountName',
  'commonMetadata',
  'namePrefix',
  'nameSuffix',
  'targetNamespace',
  'suspend',
  'patches',
  'images',
  'components',
  'ignoreMissingComponents',
  'buildMetadata',
  'postBuild',
  'force',
  'decryption',
  'kubeConfig',
];
const HELM_KEYS = [
  'image.repository',
  'image.tag',
  'replicaCount',
  'resources',
  'existingSecret',
  'podSecurityContext',
  'securityContext',
  'podMonitor.enabled',
  'networkPolicy.enabled',
  'extraEnv',
];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const documents = (path: string): Loose[] => parseAllDocuments(read(path)).map((d) => d.toJS() as Loose);

/** An Argo CD image, `[<name>=]<newName>[:<newTag>][@<digest>]`, as `kustomize edit set image` reads it. */
function argoImage(spec: string): Image {
  const eq = spec.indexOf('=');
  const [ref = '', digest] = (eq < 0 ? spec : spec.slice(eq + 1)).split('@');
  const colon = ref.lastIndexOf(':');
  const tagged = colon > ref.lastIndexOf('/');
  const image = tagged ? ref.slice(0, colon) : ref;
  return {
    name: eq < 0 ? image : spec.slice(0, eq),
    ...(eq < 0 ? {} : { newName: image }),
    ...(tagged ? { newTag: ref.slice(colon + 1) } : {}),
    ...(digest ? { digest } : {}),
  };
}

const argoApp = documents(ARGO_FILE)[0];
const fluxDocs = documents(FLUX_FILE);
const fluxKustomization = fluxDocs.find((d) => d.kind === 'Kustomization');
const argoSource = argoApp.spec.source;

const installs: Record<'Argo CD' | 'Flux', Install & { dedupeComponents: boolean }> = {
  'Argo CD': {
    path: normalize(argoSource.path as string),
    images: ((argoSource.kustomize?.images ?? []) as string[]).map(argoImage),
    components: argoSource.kustomize?.components ?? [],
    patches: argoSource.kustomize?.patches ?? [],
    dedupeComponents: true,
  },
  Flux: {
    path: normalize(fluxKustomization.spec.path as string),
    images: fluxKustomization.spec.images ?? [],
    components: fluxKustomization.spec.components ?? [],
    patches: fluxKustomization.spec.patches ?? [],
    dedupeComponents: false,
  },
};
const tools = Object.keys(installs) as (keyof typeof installs)[];

/** The kustomization at the install's path with the controller's fields added, built in a throwaway copy beside it. */
function build({ path, images, components, patches, dedupeComponents }: Install & { dedupeComponents: boolean }) {
  const dir = mkdtempSync(join(ROOT, dirname(path), '.render-gitops-'));
  try {
    cpSync(join(ROOT, path), dir, { recursive: true });
    const file = join(dir, 'kustomization.yaml');
    const k = parse(readFileSync(file, 'utf8')) as Loose;
    const merged: Image[] = [...(k.images ?? [])];
    for (const image of images) {
      const index = merged.findIndex((m) => m.name === image.name);
      if (index < 0) merged.push(image);
      else merged[index] = { ...merged[index], ...image };
    }
    const listed: string[] = k.components ?? [];
    k.images = merged;
    k.components = [...listed, ...components.filter((c) => !(dedupeComponents && listed.includes(c)))];
    k.patches = [...(k.patches ?? []), ...patches];
    writeFileSync(file, stringify(k));
    return kustomize(relative(ROOT, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The value at a JSON pointer (RFC 6901), `-` standing for the array it ends. */
function at(object: Loose, pointer: string): Loose {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  return parts.reduce((node: Loose, part) => (part === '-' ? node : node?.[part]), object);
}

const containers = (objects: Obj[], kind: string): Loose[] =>
  objects.filter((o) => o.kind === kind).flatMap((o: Loose) => o.spec.template.spec.containers as Loose[]);

let base: Obj[];
const renders = new Map<keyof typeof installs, Obj[]>();
/** The tool's build, once: in its own test, so that a failing build names the tool. */
function rendered(tool: keyof typeof installs): Obj[] {
  if (!renders.has(tool)) renders.set(tool, build(installs[tool]));
  return renders.get(tool) as Obj[];
}

beforeAll(() => {
  base = kustomize('deploy/base');
}, 60_000);

describe('the Argo CD Application', () => {
  it('syncs automatically, self-heals and prunes, with no ignoreDifferences and only real kustomize fields', () => {
    expect(argoApp).toMatchObject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' });
    expect(argoApp.spec.syncPolicy.automated).toMatchObject({ prune: true, selfHeal: true });
    expect(argoApp.spec.ignoreDifferences).toBeUndefined();
    expect(Object.keys(argoSource.kustomize).filter((f) => !ARGO_KUSTOMIZE_FIELDS.includes(f))).toEqual([]);
    expect(argoSource.kustomize.namespace, 'would move the Roles out of the managed namespaces').toBeUndefined();
  });
});

describe('the Flux Kustomization', () => {
  it('builds from its GitRepository, prunes, and uses only real Kustomization fields', () => {
    expect(fluxKustomization.apiVersion).toBe('kustomize.toolkit.fluxcd.io/v1');
    const source = fluxDocs.find((d) => d.kind === 'GitRepository');
    expect(source.apiVersion).toBe('source.toolkit.fluxcd.io/v1');
    expect(fluxKustomization.spec.sourceRef).toEqual({ kind: 'GitRepository', name: source.metadata.name });
    expect(fluxKustomization.spec.prune).toBe(true);
    expect(fluxKustomization.spec.interval).toMatch(/^\d+m$/);
    expect(Object.keys(fluxKustomization.spec).filter((f) => !FLUX_SPEC_FIELDS.includes(f))).toEqual([]);
    expect(fluxKustomization.spec.targetNamespace, 'would move the Roles').toBeUndefined();
  });
});

describe('Argo CD and Flux', () => {
  it('install the same thing', () => {
    const { dedupeComponents: _a, ...argo } = installs['Argo CD'];
    const { dedupeComponents: _f, ...flux } = installs.Flux;
    expect(argo).toEqual(flux);
  });
});

describe.each(tools)('%s', (tool) => {
  const install = installs[tool];

  it('points at a kustomization in this repository and lists only kustomize Components that exist', () => {
    expect(existsSync(join(ROOT, install.path, 'kustomization.yaml')), install.path).toBe(true);
    expect(install.components.length).toBeGreaterThan(0);
    for (const component of install.components) {
      const file = join(install.path, component, 'kustomization.yaml');
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      expect(parse(read(file))).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' });
    }
  });

  it('sets the image the base uses, and every container runs the new one', () => {
    const baseImages = new Set(containers(base, 'Deployment').map((c) => (c.image as string).replace(/:[^:/]+$/, '')));
    expect(install.images.map((i) => i.name)).toEqual([...baseImages]);
    const [image] = install.images;
    const images = containers(rendered(tool), 'Deployment').map((c) => c.image as string);
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(new Set(images)).toEqual(new Set([`${image?.newName}:${image?.newTag}`]));
  });

  it('builds with kubectl kustomize: each object once, the components’ objects there, every patch applied', () => {
    const objects = rendered(tool);
    const names = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(new Set(names).size, 'no object twice').toBe(names.length);
    for (const component of install.components) {
      const dir = join(install.path, component);
      for (const file of (parse(read(join(dir, 'kustomization.yaml'))) as Loose).resources as string[])
        for (const object of documents(join(dir, file)))
          expect(names, `${component}: ${object.kind} ${object.metadata.name}`).toContain(
            `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`,
          );
    }
    expect(install.patches.length).toBeGreaterThan(0);
    for (const { target, patch } of install.patches) {
      const object = objects.find((o) => o.kind === target.kind && o.metadata.name === target.name);
      expect(object, `${target.kind} ${target.name}`).toBeDefined();
      for (const op of parse(patch) as { op: string; path: string; value: unknown }[]) {
        if (op.path.endsWith('/-')) expect(at(object, op.path), op.path).toContainEqual(op.value);
        else expect(at(object, op.path), op.path).toEqual(op.value);
      }
    }
  });
});

describe('docs/deployment.md#installing-with-argo-cd-or-flux', () => {
  const page = read('docs/deployment.md');
  const heading = '\n## Installing with Argo CD or Flux\n';
  const start = page.indexOf(heading);
  const after = page.slice(start + heading.length);
  const end = after.search(/^## /m);
  const section = end < 0 ? after : after.slice(0, end);

  it('links both examples, and the page’s short path leads to the section', () => {
    expect(start).toBeGreaterThan(0);
    for (const file of [ARGO_FILE, FLUX_FILE]) expect(section).toContain(`](../${file})`);
    expect(page.slice(0, start)).toContain('](#installing-with-argo-cd-or-flux)');
  });

  it('maps each usual Helm values key to its kustomize form and the Argo CD and Flux fields', () => {
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
      .slice(1)
      .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()));
    const keys = rows.flatMap((row) => [...(row[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect(HELM_KEYS.filter((key) => !keys.includes(key))).toEqual([]);
    for (const row of rows)
      expect(
        row.slice(1, -1).every((cell) => cell !== ''),
        row[1],
      ).toBe(true);
  });

  it('shows a FlinkDeployment Application that lets the bot’s changes stick', () => {
    const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1] ?? '') as Loose);
    const app = blocks.find((b) => b?.spec?.ignoreDifferences);
    expect(app.spec.ignoreDifferences).toContainEqual(
      expect.objectContaining({ group: 'flink.apache.org', managedFieldsManagers: ['flink-chatops'] }),
    );
    expect(app.spec.syncPolicy.syncOptions).toContain('RespectIgnoreDifferences=true');
    expect(section).toContain('](policy.md#gitops-managed-targets)');
  });
});
