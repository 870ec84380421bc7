// docs/security.md#what-servicesproxy-reaches narrows the `services/proxy` rule to the Flink REST Services with
// `resourceNames`. Its patch, applied to the example overlay with the real kubectl, adds the names to exactly the
// `services/proxy` rule of the bot's and the worker's Role in that namespace and changes nothing else; and the names
// are what the API server authorises a proxied read by: the Service segment of the path src/kube/proxy-path.ts builds.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { proxyPath } from '../../src/kube/proxy-path.js';
import { kustomize, kustomizeOverlay, ROOT, type Obj } from '../support/kustomize.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const EXAMPLE = 'deploy/overlays/example';
const NAMESPACE = 'streaming-prod';
const JOB_ID = 'a'.repeat(32);

/** The indented YAML block of docs/security.md that carries the resourceNames patch, unindented. */
function docsPatch(): string {
  const page = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8');
  const block = /\n( *)```yaml\n((?:(?!```)[\s\S])*?resourceNames[\s\S]*?)\n *```/.exec(page);
  if (!block) throw new Error('docs/security.md has no YAML block with resourceNames');
  const indent = (block[1] as string).length;
  return (block[2] as string)
    .split('\n')
    .map((l) => l.slice(indent))
    .join('\n');
}

/** The example overlay with the documented patches appended to its own. */
function exampleWithPatch(): Obj[] {
  const dir = join(ROOT, EXAMPLE);
  const own = readFileSync(join(dir, 'kustomization.yaml'), 'utf8');
  const patches = docsPatch().replace(/^patches:\n/, '');
  const files = Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== 'kustomization.yaml')
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
  return kustomizeOverlay(`${own.trimEnd()}\n${patches}\n`, ROOT, files);
}

const role = (objects: Obj[], name: string, namespace: string): Loose =>
  objects.find((o) => o.kind === 'Role' && o.metadata.name === name && o.metadata.namespace === namespace);

let example: Obj[];
let narrowed: Obj[];

beforeAll(() => {
  example = kustomize(EXAMPLE);
  narrowed = exampleWithPatch();
}, 180_000);

describe('narrowing services/proxy to the Flink REST Services (docs/security.md)', () => {
  it.each(['flink-chatops-bot', 'flink-chatops-worker'])(
    "adds the names to the services/proxy rule of %s's Role only",
    (name) => {
      const before = role(example, name, NAMESPACE).rules as Loose[];
      const after = role(narrowed, name, NAMESPACE).rules as Loose[];
      const proxy = (rules: Loose[]) => rules.findIndex((r) => (r.resources as string[]).includes('services/proxy'));
      expect(proxy(after)).toBeGreaterThanOrEqual(0);
      expect(after[proxy(after)]).toEqual({
        ...before[proxy(before)],
        resourceNames: ['orders-rest:rest', 'payments-rest:rest'],
      });
      expect(after.filter((_, i) => i !== proxy(after))).toEqual(before.filter((_, i) => i !== proxy(before)));
    },
  );

  it('leaves every other object as it was', () => {
    const inNamespace = (o: Obj) => o.kind === 'Role' && o.metadata.namespace === NAMESPACE;
    expect(narrowed.filter((o) => !inNamespace(o))).toEqual(example.filter((o) => !inNamespace(o)));
  });

  it('names the Service segment the proxy path carries, which is what RBAC matches', () => {
    const built = proxyPath(NAMESPACE, 'orders', `/jobs/${JOB_ID}/checkpoints`);
    expect(built.ok && built.pathname).toBe(
      `/api/v1/namespaces/${NAMESPACE}/services/orders-rest:rest/proxy/jobs/${JOB_ID}/checkpoints`,
    );
    const parts = built.ok ? built.pathname.split('/') : [];
    const segment = parts[parts.indexOf('services') + 1];
    expect(segment).toBe('orders-rest:rest');
    expect(
      (role(narrowed, 'flink-chatops-bot', NAMESPACE).rules as Loose[]).flatMap((r) => r.resourceNames ?? []),
    ).toContain(segment);
  });
});
