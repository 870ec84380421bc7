// Child processes of bench/scale.ts: the simulators and bare Bolt apps (tsx scripts printing one JSON line when
// ready) and the measured bot and worker processes (`flink-chatops serve --role …`), their /metrics and peak RSS.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually, GiveUp } from '../test/support/poll.js';

const ROOT = join(import.meta.dirname, '..');

export interface Child {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Every child still running: stopped by `stopAll` (end of the run, Ctrl-C, an error). */
const running = new Set<Child>();

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop()));
}

function track(name: string, child: ChildProcess, graceful: () => void): Child {
  const handle: Child = {
    name,
    child,
    stop: async () => {
      running.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      graceful();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(handle);
  return handle;
}

/** Keeps the last lines a child wrote to stderr, for the error when it dies. */
function stderrTail(child: ChildProcess): () => string {
  const lines: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    if (lines.length > 40) lines.shift();
  });
  return () => lines.join('\n');
}

/**
 * Starts `node --import tsx bench/<script> …args`; resolves with its first stdout line (JSON) once it printed it.
 * Later lines go to `onLine`. The child stops when its stdin closes.
 */
export async function startScript<T>(
  name: string,
  script: string,
  args: string[],
  onLine?: (value: unknown) => void,
): Promise<Child & { info: T; send(line: string): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const tail = stderrTail(child);
  const handle = track(name, child, () => child.stdin?.end());
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<T>((resolve, reject) => {
    let first = true;
    lines.on('line', (line) => {
      if (first) resolve(JSON.parse(line) as T);
      else onLine?.(JSON.parse(line));
      first = false;
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready:\n${tail()}`)));
  });
  return { ...handle, info, send: (line) => void child.stdin?.write(`${line}\n`) };
}

export interface RoleProcess extends Child {
  port: number;
  metrics(): Promise<Metrics>;
  /** Peak resident set size in bytes (VmHWM), Linux only; undefined elsewhere. */
  peakRss(): Promise<number | undefined>;
}

/**
 * Where the measured processes run from: a build of src into `.bench-build/` (as the production image runs
 * `node dist/cli/main.js`; tsx alone adds ~80 MB of RSS), made once per run. Not `dist/`: bin/flink-chatops.js
 * prefers dist/ when present, so a stale one would shadow the sources in tests.
 */
export const BUILD_DIR = join(ROOT, '.bench-build');

export async function buildForBench(): Promise<void> {
  const tsc = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      BUILD_DIR,
      '--sourceMap',
      'false',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const [code] = (await once(tsc, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`building into ${BUILD_DIR} failed (tsc exit ${code})`);
  await cp(join(ROOT, 'src', 'store', 'lua'), join(BUILD_DIR, 'store', 'lua'), { recursive: true });
}

/**
 * One record-signing key for every role this bench process starts (docs/deployment.md#record-signing): `serve`
 * refuses to start without one, and bot and workers must share it.
 */
const BENCH_RECORD_KEY = process.env.RECORD_SIGNING_KEY ?? randomBytes(32).toString('hex');

/** `flink-chatops serve --role <role>` (built) with `env`; resolves once its /readyz answers 200. */
export async function startRole(
  name: string,
  role: 'bot' | 'worker',
  port: number,
  env: Record<string, string>,
): Promise<RoleProcess> {
  const child = spawn(process.execPath, [join(BUILD_DIR, 'cli', 'main.js'), 'serve', '--role', role], {
    cwd: ROOT,
    env: {
      ...process.env,
      RECORD_SIGNING_KEY: BENCH_RECORD_KEY,
      ...env,
      PORT: String(port),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = stderrTail(child);
  // The audit trail's stdout lines (docs/audit.md) are the product's, not the bench's figures: only logs pass.
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    if (!line.includes('"audit":true')) process.stdout.write(`${line}\n`);
  });
  const handle = track(name, child, () => child.kill('SIGTERM'));
  const base = `http://127.0.0.1:${port}`;
  const ready = async () => {
    if (child.exitCode !== null) throw new GiveUp(`${name} (serve --role ${role}) exited with ${child.exitCode}`);
    const status = await fetch(`${base}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status !== 200) throw new Error(`/readyz answered ${status}`);
    return true;
  };
  await eventually(`${name} to be ready`, ready, { timeoutMs: 120_000, intervalMs: 200 }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}:\n${tail()}`);
  });
  return {
    ...handle,
    port,
    metrics: async () => parseMetrics(await (await fetch(`${base}/metrics`)).text()),
    peakRss: async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    },
  };
}

/** Prometheus samples: `name{labels}` → value. */
export type Metrics = Map<string, number>;

export function parseMetrics(text: string): Metrics {
  const samples: Metrics = new Map();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (m) samples.set(m[1] as string, Number(m[2]));
  }
  return samples;
}

/** The sum of a metric's samples whose labels match, grouped by `by(labels)`. */
export function sumBy(
  samples: Metrics,
  name: string,
  by: (labels: Record<string, string>) => string,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of samples) {
    if (!key.startsWith(`${name}{`)) continue;
    const labels = Object.fromEntries([...key.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])) as Record<
      string,
      string
    >;
    const group = by(labels);
    out.set(group, (out.get(group) ?? 0) + value);
  }
  return out;
}
