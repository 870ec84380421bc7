// Runs `flink-chatops sandbox` as a child process (as `npm start` would) and waits for the page it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/flink-chatops.js', import.meta.url));
const URL_LINE = /open (http:\/\/127\.0\.0\.1:\d+)/;

export interface SandboxProcess {
  url: string;
  child: ChildProcess;
  /** ms from spawn to the printed URL. */
  startedInMs: number;
  output(): { stdout: string; stderr: string };
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  args?: string[];
  /** The whole environment of the child (nothing is inherited implicitly). */
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

function spawnSandbox(opts: SpawnOptions): { child: ChildProcess; out: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [BIN, 'sandbox', ...(opts.args ?? ['--speed', 'fast', '--port', '0'])], {
    cwd: REPO_ROOT,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return { child, out };
}

/** Starts the sandbox and resolves once it printed its URL; rejects with its output when it exits first. */
export async function startSandboxProcess(opts: SpawnOptions): Promise<SandboxProcess> {
  const started = Date.now();
  const { child, out } = spawnSandbox(opts);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`the sandbox printed no URL within ${opts.timeoutMs ?? 30_000} ms\n${out.stdout}\n${out.stderr}`),
      );
    }, opts.timeoutMs ?? 30_000);
    child.stdout?.on('data', () => {
      const m = URL_LINE.exec(out.stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited (${signal ?? code}) before printing its URL\n${out.stdout}\n${out.stderr}`));
    });
  });
  return {
    url,
    child,
    startedInMs: Date.now() - started,
    output: () => ({ ...out }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig };
    },
  };
}

/** Runs the sandbox until it exits by itself (for failures at start). */
export async function runSandboxToExit(
  opts: SpawnOptions,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, out } = spawnSandbox(opts);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, ...out };
}

/** The environment a developer's shell would give the sandbox, minus anything Redis- or Slack-related. */
export function baseEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, LOG_LEVEL: 'warn', ...extra };
}
