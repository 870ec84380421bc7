// Every kustomize component says what it needs before it is switched on (docs/deployment.md#prerequisites): its
// kustomization.yaml ends its header with a `Prerequisites:` paragraph, docs/deployment.md has a row for it in the
// prerequisites table, and both name every custom resource kind the component renders (rendered with the real kubectl
// on top of the base) — the monitoring component's PodMonitor and PrometheusRule need the Prometheus Operator's CRDs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kustomize, kustomizeWithComponent, ROOT } from '../support/kustomize.js';

const COMPONENTS_DIR = join(ROOT, 'deploy', 'components');
/** API groups every Kubernetes cluster serves; a kind of any other group needs its CRD installed first. */
const BUILT_IN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'policy',
  'autoscaling',
  'rbac.authorization.k8s.io',
  'networking.k8s.io',
  'discovery.k8s.io',
  'coordination.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'node.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
]);

/** Every directory under deploy/components whose kustomization.yaml is a Component, as `multi-cluster/remote`. */
function components(dir: string = COMPONENTS_DIR): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) return [];
    const file = join(path, 'kustomization.yaml');
    const own = /^kind: Component$/m.test(readFileSync(file, 'utf8')) ? [relative(COMPONENTS_DIR, path)] : [];
    return [...own, ...components(path)];
  });
}

/** The `# Prerequisites:` paragraph of a component's header: from that line to the end of the comment block. */
function headerPrerequisites(component: string): string | undefined {
  const lines = readFileSync(join(COMPONENTS_DIR, component, 'kustomization.yaml'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('# Prerequisites:'));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('#'));
  return lines
    .slice(start, end)
    .map((l) => l.replace(/^# ?/, ''))
    .join(' ');
}

/** docs/deployment.md's prerequisites table: component path (from its link) → the row's text. */
function docsRows(): Map<string, string> {
  const text = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  const section = text.slice(text.indexOf('### Prerequisites'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| component | needs |')));
  const rows = new Map<string, string>();
  for (const [, path, rest] of table.matchAll(
    /^\| \[[^\]]+\]\(\.\.\/deploy\/components\/(.+?)\/kustomization\.yaml\) \|(.*)$/gm,
  ))
    rows.set(path as string, rest as string);
  return rows;
}

/** Kinds a component renders that the base does not and that belong to no built-in API group. */
function customKinds(component: string, baseKinds: Set<string>): string[] {
  return kustomizeWithComponent(component)
    .filter((o) => !BUILT_IN_GROUPS.has(o.apiVersion.includes('/') ? (o.apiVersion.split('/')[0] as string) : ''))
    .map((o) => o.kind)
    .filter((kind) => !baseKinds.has(kind));
}

const ALL = components();
let baseKinds: Set<string>;
const rendered = new Map<string, string[]>();

beforeAll(() => {
  baseKinds = new Set(kustomize('deploy/base').map((o) => o.kind));
  for (const component of ALL) rendered.set(component, [...new Set(customKinds(component, baseKinds))]);
}, 240_000);

describe('deploy/components prerequisites', () => {
  it('finds the components, nested ones included', () => {
    expect(ALL).toEqual(expect.arrayContaining(['monitoring', 'networkpolicy', 'multi-cluster/remote']));
  });

  it.each(ALL)('%s: its kustomization.yaml states its prerequisites', (component) => {
    const text = headerPrerequisites(component);
    expect(text, `deploy/components/${component}/kustomization.yaml has no "# Prerequisites:" line`).toBeDefined();
    expect((text as string).length).toBeGreaterThan('Prerequisites: '.length + 10);
  });

  it.each(ALL)('%s: docs/deployment.md#prerequisites has a row for it', (component) => {
    expect([...docsRows().keys()]).toContain(component);
    expect((docsRows().get(component) as string).trim().length).toBeGreaterThan(10);
  });

  it.each(ALL)('%s: both name every custom resource kind it renders', (component) => {
    const kinds = rendered.get(component) as string[];
    for (const kind of kinds) {
      expect(headerPrerequisites(component), `header of ${component}`).toContain(kind);
      expect(docsRows().get(component), `docs row of ${component}`).toContain(kind);
    }
  });

  it('monitoring renders the Prometheus Operator kinds, so its prerequisites name their CRDs', () => {
    expect((rendered.get('monitoring') as string[]).sort()).toEqual(['PodMonitor', 'PrometheusRule']);
    expect(headerPrerequisites('monitoring')).toMatch(/Prometheus Operator's CRDs/);
    expect(docsRows().get('monitoring')).toMatch(/Prometheus Operator's CRDs/);
  });
});
