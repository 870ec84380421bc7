// Renders kustomize directories with the real kubectl (the deploy tests' one way to read deploy/), cached: kubectl
// takes up to a second a render, and the deploy tests render the same directories in many files. A render is kept in
// this process and in a directory under os.tmpdir() that every test worker shares, under a key that hashes the
// directory, every path and byte under deploy/, and the kubectl binary: any change to deploy/ renders afresh.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const KUBECTL = '/usr/bin/kubectl';
export const ROOT = new URL('../..', import.meta.url).pathname;
/** Where rendered output is kept between test files: one directory per content of deploy/. */
export const CACHE_PREFIX = join(tmpdir(), 'flink-chatops-kustomize-');
/** Scratch overlays and copies the deploy tests write into deploy/ (and delete): not part of deploy/'s content. */
const SCRATCH = '.render-';

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

let kubectlRuns = 0;
const inProcess = new Map<string, string>();

/** How many times this process has started kubectl: a render served from a cache starts none. */
export function kubectlRunCount(): number {
  return kubectlRuns;
}

/** Forgets this process's renders, so that the next ones come from the shared directory (for the cache's test). */
export function forgetProcessRenders(): void {
  inProcess.clear();
}

/** Adds every file under `dir` to `hash`, by path relative to `from` and bytes, in a fixed order; skips scratch dirs. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string, from: string, skipScratch: boolean): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (skipScratch && entry.name.startsWith(SCRATCH)) continue;
    const path = join(dir, entry.name);
    if (statSync(path).isDirectory()) {
      hashTree(hash, path, from, skipScratch);
      continue;
    }
    const bytes = readFileSync(path);
    hash.update(`${relative(from, path)}\0${bytes.length}\0`);
    hash.update(bytes);
  }
}

/**
 * The cache key of rendering `dir` (relative to `root`): deploy/'s content without scratch directories, and when
 * `dir` lies in a scratch directory, that directory's content with its random name left out — the same throwaway
 * overlay written twice is the same render.
 */
function renderKey(root: string, dir: string): { content: string; key: string } {
  const deploy = createHash('sha256');
  hashTree(deploy, join(root, 'deploy'), root, true);
  const kubectl = statSync(KUBECTL, { throwIfNoEntry: false });
  deploy.update(`kubectl\0${kubectl?.size ?? 0}\0${kubectl?.mtimeMs ?? 0}`);
  const content = deploy.digest('hex');
  const parts = dir.split(sep);
  const scratch = parts.findIndex((p) => p.startsWith(SCRATCH));
  const key = createHash('sha256').update(`${content}\0`);
  if (scratch < 0) key.update(`dir\0${parts.join('/')}`);
  else {
    const scratchDir = join(root, ...parts.slice(0, scratch + 1));
    key.update(`scratch\0${[...parts.slice(0, scratch), SCRATCH, ...parts.slice(scratch + 1)].join('/')}\0`);
    hashTree(key, scratchDir, scratchDir, false);
  }
  return { content, key: key.digest('hex') };
}

/** kubectl's output for `dir`; a failure names the directory and kubectl's error (and is not cached). */
function runKubectl(root: string, dir: string): string {
  kubectlRuns++;
  try {
    // stderr only into the error (not echoed to the test output): the message below carries it.
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
    return execFileSync(KUBECTL, ['kustomize', join(root, dir)], { encoding: 'utf8', timeout: 60_000, stdio });
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
}

/** Where the render of `dir` with deploy/ as it is now is kept between processes, and its key. */
export function renderCacheFile(root: string, dir: string): { key: string; cacheDir: string; file: string } {
  const { content, key } = renderKey(root, dir);
  const cacheDir = `${CACHE_PREFIX}${content.slice(0, 16)}`;
  return { key, cacheDir, file: join(cacheDir, `${key}.yaml`) };
}

/** The rendered text from this process, else the shared directory, else kubectl (then kept in both). */
function rendered(root: string, dir: string): string {
  const { key, cacheDir, file } = renderCacheFile(root, dir);
  const kept = inProcess.get(key);
  if (kept !== undefined) return kept;
  let out: string;
  try {
    out = readFileSync(file, 'utf8');
  } catch {
    out = runKubectl(root, dir);
    // Written beside and renamed into place: a worker rendering the same directory at once reads a whole file or
    // none, and the last rename wins with the same bytes.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(temp, out);
      renameSync(temp, file);
    } catch {
      // Keeping it is only an optimisation (a full disk, the directory removed meanwhile): the render stands.
      rmSync(temp, { force: true });
    }
  }
  inProcess.set(key, out);
  return out;
}

/**
 * `kubectl kustomize <dir>` (relative to the repository, or to `root`) as objects, fresh objects on every call; a
 * failure names the directory and kubectl's error.
 */
export function kustomize(dir: string, root: string = ROOT): Obj[] {
  return parseAllDocuments(rendered(root, dir)).map((doc) => doc.toJS() as Obj);
}

/**
 * A throwaway overlay in deploy/overlays with the given kustomization (paths relative to deploy/overlays/<it>, as in
 * deploy/overlays/example) and, optionally, more files beside it, rendered and deleted.
 */
export function kustomizeOverlay(
  kustomization: string,
  root: string = ROOT,
  files: Record<string, string> = {},
): Obj[] {
  const dir = mkdtempSync(join(root, 'deploy', 'overlays', SCRATCH));
  try {
    writeFileSync(join(dir, 'kustomization.yaml'), kustomization);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return kustomize(join('deploy', 'overlays', dir.split('/').at(-1) as string), root);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The base (and the bundled Redis) with components switched on, rendered from a throwaway overlay. */
export function kustomizeWithComponent(component: string | string[], root: string = ROOT): Obj[] {
  const rel = (path: string) => join('..', '..', path);
  const components = (Array.isArray(component) ? component : [component]).map((c) => rel(join('components', c)));
  const text = [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    `resources: [${rel('base')}, ${rel('redis')}]`,
    `components: [${components.join(', ')}]`,
  ].join('\n');
  return kustomizeOverlay(`${text}\n`, root);
}
