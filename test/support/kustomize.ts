// Renders kustomize directories with the real kubectl (the deploy tests' one way to read deploy/).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const KUBECTL = '/usr/bin/kubectl';
export const ROOT = new URL('../..', import.meta.url).pathname;

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

/** `kubectl kustomize <dir>` (relative to the repository) as objects; a failure names the directory and kubectl's error. */
export function kustomize(dir: string): Obj[] {
  let out: string;
  try {
    out = execFileSync(KUBECTL, ['kustomize', join(ROOT, dir)], { encoding: 'utf8', timeout: 60_000 });
  } catch (error) {
    const e = error as { code?: string; stderr?: string; message: string };
    throw new Error(
      e.code === 'ENOENT'
        ? `kubectl is not installed at ${KUBECTL}`
        : `kubectl kustomize ${dir} failed: ${e.stderr ?? e.message}`,
      {
        cause: error,
      },
    );
  }
  return parseAllDocuments(out).map((doc) => doc.toJS() as Obj);
}

/** The base (and the bundled Redis) with one component switched on, rendered from a throwaway overlay. */
export function kustomizeWithComponent(component: string): Obj[] {
  const dir = mkdtempSync(join(ROOT, 'deploy', 'overlays', '.render-'));
  try {
    const rel = (path: string) => join('..', '..', path);
    const text = [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `resources: [${rel('base')}, ${rel('redis')}]`,
      `components: [${rel(join('components', component))}]`,
    ].join('\n');
    writeFileSync(join(dir, 'kustomization.yaml'), `${text}\n`);
    return kustomize(join('deploy', 'overlays', dir.split('/').at(-1) as string));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
