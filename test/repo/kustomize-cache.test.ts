// The render cache of test/support/kustomize.ts, on a throwaway copy of deploy/: the same content renders once (in
// this process, and from the directory the test workers share), a change to any file a render reads renders afresh,
// the throwaway overlays of kustomizeWithComponent hash by the component's content, and a failure is not kept.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  forgetProcessRenders,
  kubectlRunCount,
  kustomize,
  kustomizeWithComponent,
  renderCacheFile,
  ROOT,
  type Obj,
} from '../support/kustomize.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const REDIS = join('deploy', 'redis');

let root: string;
/** Every cache directory this test's renders used: each holds only this copy's renders (its nonce is in the hash). */
const cacheDirs = new Set<string>();

const file = (path: string) => join(root, path);
const edit = (path: string, change: (text: string) => string) =>
  writeFileSync(file(path), change(readFileSync(file(path), 'utf8')));
const configMap = (objects: Obj[]): Loose => objects.find((o) => o.kind === 'ConfigMap');

/** `render()`, and how many times it started kubectl; notes the cache directory of deploy/'s content as it is now. */
function counted(render: () => Obj[]): { objects: Obj[]; runs: number } {
  cacheDirs.add(renderCacheFile(root, REDIS).cacheDir);
  const before = kubectlRunCount();
  const objects = render();
  return { objects, runs: kubectlRunCount() - before };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kustomize-cache-'));
  // Scratch overlays other deploy tests are writing right now are not part of deploy/.
  cpSync(join(ROOT, 'deploy'), file('deploy'), {
    recursive: true,
    filter: (source) => !source.split('/').some((part) => part.startsWith('.render-')),
  });
  // A content of deploy/ no other run has had: the first render below cannot come from an earlier run's cache.
  writeFileSync(file('deploy/cache-test-nonce.txt'), `${process.pid} ${Date.now()} ${Math.random()}\n`);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  for (const dir of cacheDirs) rmSync(dir, { recursive: true, force: true });
});

describe('kustomize renders, cached by the content of deploy/', () => {
  it('renders once for the same content: in this process, then from the shared directory; fresh objects each time', () => {
    const first = counted(() => kustomize(REDIS, root));
    expect(first.runs).toBe(1);
    expect(first.objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'PodDisruptionBudget',
      'Service',
      'StatefulSet',
    ]);
    expect(existsSync(renderCacheFile(root, REDIS).file)).toBe(true);

    const again = counted(() => kustomize(REDIS, root));
    expect(again.runs).toBe(0);
    expect(again.objects).toEqual(first.objects);
    // A caller that changes what it got changes nobody else's render.
    again.objects[0]!.metadata.name = 'changed-by-a-caller';
    expect(kustomize(REDIS, root)).toEqual(first.objects);

    // Another worker (nothing in its process yet) reads the file the first render left.
    forgetProcessRenders();
    const elsewhere = counted(() => kustomize(REDIS, root));
    expect(elsewhere.runs).toBe(0);
    expect(elsewhere.objects).toEqual(first.objects);
    const left = readdirSync(renderCacheFile(root, REDIS).cacheDir);
    expect(
      left.filter((name) => !name.endsWith('.yaml')),
      'no half-written file left',
    ).toEqual([]);
  });

  it('renders afresh when a file the render reads changes, and shows the change', () => {
    const before = counted(() => kustomize(REDIS, root));
    edit('deploy/redis/redis.conf', (text) => `${text}# cache test\n`);
    const after = counted(() => kustomize(REDIS, root));
    expect(after.runs).toBe(1);
    expect(JSON.stringify(configMap(after.objects).data)).toContain('# cache test');
    expect(JSON.stringify(configMap(before.objects).data)).not.toContain('# cache test');
    expect(configMap(after.objects).metadata.name).not.toBe(configMap(before.objects).metadata.name);
  });

  it("hashes a component's throwaway overlay by the component's content, not the overlay's random name", () => {
    const component = join('deploy', 'components', 'pod-logs', 'kustomization.yaml');
    const first = counted(() => kustomizeWithComponent('pod-logs', root));
    const again = counted(() => kustomizeWithComponent('pod-logs', root));
    expect([first.runs, again.runs]).toEqual([1, 0]);
    expect(again.objects).toEqual(first.objects);
    expect(JSON.stringify(first.objects)).toContain('pods/log');

    edit(component, (text) => text.replaceAll('pods/log', 'pods/status'));
    const changed = counted(() => kustomizeWithComponent('pod-logs', root));
    expect(changed.runs).toBe(1);
    expect(JSON.stringify(changed.objects)).toContain('pods/status');
    expect(JSON.stringify(changed.objects)).not.toContain('pods/log');
    expect(readdirSync(file('deploy/overlays')).filter((name) => name.startsWith('.render-'))).toEqual([]);
  });

  it('keeps no failure: kubectl runs again, with its error, until the directory renders', () => {
    const good = readFileSync(file('deploy/redis/kustomization.yaml'), 'utf8');
    edit('deploy/redis/kustomization.yaml', (text) => text.replace('statefulset.yaml', 'missing.yaml'));
    for (let i = 0; i < 2; i++) {
      const before = kubectlRunCount();
      expect(() => kustomize(REDIS, root)).toThrow(/^kubectl kustomize deploy\/redis failed: .*missing\.yaml/s);
      expect(kubectlRunCount() - before).toBe(1);
    }
    writeFileSync(file('deploy/redis/kustomization.yaml'), good);
    expect(counted(() => kustomize(REDIS, root)).objects.map((o) => o.kind)).toContain('StatefulSet');
  });
});
