// The real kubectl against the simulated API server, through a kubeconfig written by kubeconfig.ts.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { writeKubeconfig } from '../../src/kube/kubeconfig.js';
import { startSimApiServer, type SimApiServer } from '../../src/kube/server.js';
import { SimStore } from '../../src/kube/store.js';
import { validateSpec } from '../../src/kube/validation.js';
import { parse } from 'yaml';
import { flinkDeployment } from '../support/kube.js';

const run = promisify(execFile);
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const NS = 'streaming-prod';

let dir: string;
let store: SimStore;
let server: SimApiServer;
let baseArgs: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubectl-sim-'));
  store = new SimStore({ validate: validateSpec });
  store.create(
    'flinkdeployments',
    flinkDeployment('orders', NS, { status: { lifecycleState: 'STABLE', jobStatus: { state: 'RUNNING' } } }),
  );
  store.create('flinkdeployments', flinkDeployment('payments', NS));
  store.create(
    'flinkdeployments',
    flinkDeployment('orders', 'streaming-dev', {
      status: { lifecycleState: 'SUSPENDED', jobStatus: { state: 'FINISHED' } },
    }),
  );
  server = await startSimApiServer({ store });
  const kubeconfig = join(dir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, server.url);
  // A private discovery cache: ports differ between runs and the user's cache must stay untouched.
  baseArgs = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache')];
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(KUBECTL, [...baseArgs, ...args], { timeout: 20_000 });
    return stdout;
  } catch (error) {
    const e = error as { code?: string; stderr?: string; message: string };
    if (e.code === 'ENOENT')
      throw new Error(`kubectl not found (${KUBECTL}); install it or set KUBECTL to its path`, { cause: error });
    throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`, { cause: error });
  }
}

const rows = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe('kubectl against the simulated API server', () => {
  it('get flinkdeployments -A prints the CRD printer columns for every namespace', async () => {
    expect(rows(await kubectl('get', 'flinkdeployments', '-A'))).toEqual([
      ['NAMESPACE', 'NAME', 'JOB STATUS', 'LIFECYCLE STATE'],
      ['streaming-dev', 'orders', 'FINISHED', 'SUSPENDED'],
      [NS, 'orders', 'RUNNING', 'STABLE'],
      // No status yet: kube-apiserver sends null cells, which kubectl prints as blanks.
      [NS, 'payments'],
    ]);
  });

  it('get flinkdeployment NAME -n NS -o yaml prints the stored object', async () => {
    const object = parse(await kubectl('get', 'flinkdeployment', 'orders', '-n', NS, '-o', 'yaml'));
    const stored = store.get('flinkdeployments', NS, 'orders');
    expect(object).toEqual(stored);
  });

  it('the short name flinkdep resolves through discovery', async () => {
    expect(await kubectl('get', 'flinkdep', 'payments', '-n', NS, '-o', 'name')).toBe(
      'flinkdeployment.flink.apache.org/payments\n',
    );
  });

  it('patch --type merge changes the spec and moves the generation', async () => {
    const before = store.get('flinkdeployments', NS, 'payments');
    const out = await kubectl(
      'patch',
      'flinkdeployment',
      'payments',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      '{"spec":{"job":{"parallelism":3}}}',
    );
    expect(out.trim()).toBe('flinkdeployment.flink.apache.org/payments patched');
    const after = store.get('flinkdeployments', NS, 'payments');
    expect(after?.spec?.job).toMatchObject({ parallelism: 3 });
    expect(after?.metadata.generation).toBe((before?.metadata.generation ?? 0) + 1);
  });

  it('create -f validates through the server (fieldValidation) and creates the object', async () => {
    const file = join(dir, 'created.json');
    await writeFile(file, JSON.stringify(flinkDeployment('created', NS)));
    expect((await kubectl('create', '-f', file)).trim()).toBe('flinkdeployment.flink.apache.org/created created');
    expect(store.get('flinkdeployments', NS, 'created')?.metadata.generation).toBe(1);
  });

  it('get --watch prints the current row, then a row for each change', async () => {
    let stopListening: () => void = () => undefined;
    const watching = new Promise<void>((resolve) => {
      stopListening = server.onRequest((info) => info.verb === 'watch' && resolve());
    });
    const child = spawn(KUBECTL, [...baseArgs, 'get', 'flinkdeployment', 'orders', '-n', NS, '--watch']);
    try {
      const lines = lineReader(child);
      expect(await lines.next()).toMatch(/^NAME\s+JOB STATUS\s+LIFECYCLE STATE$/);
      expect(await lines.next()).toMatch(/^orders\s+RUNNING\s+STABLE$/);
      // kubectl suppresses the synthetic ADDED event of a single-object watch, so change only once it watches.
      await watching;
      store.update(
        'flinkdeployments',
        NS,
        'orders',
        (o) => ({ ...o, status: { lifecycleState: 'UPGRADING', jobStatus: { state: 'RECONCILING' } } }),
        {
          subresource: 'status',
        },
      );
      expect(await lines.next()).toMatch(/^orders\s+RECONCILING\s+UPGRADING$/);
    } finally {
      stopListening();
      child.kill('SIGTERM');
    }
  });
});

function lineReader(child: ChildProcessWithoutNullStreams): { next(timeoutMs?: number): Promise<string> } {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface(child.stdout).on('line', (line) => {
    queue.push(line);
    wake?.();
  });
  return {
    next(timeoutMs = 10_000) {
      if (queue.length > 0) return Promise.resolve(queue.shift() as string);
      return new Promise((resolve, reject) => {
        const fail = (why: string) => () => {
          cleanup();
          reject(new Error(`no line from kubectl --watch: ${why}; stderr: ${stderr}`));
        };
        const onExit = fail('it exited');
        const timer = setTimeout(fail(`nothing within ${timeoutMs} ms`), timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.off('exit', onExit);
          wake = undefined;
        };
        wake = () => {
          cleanup();
          resolve(queue.shift() as string);
        };
        child.once('exit', onExit);
      });
    },
  };
}

describe('kubectl against a simulated cluster with 1.15 CRDs (docs/sandbox.md#crd-schemas)', () => {
  let cluster: SimCluster | undefined;
  let args: string[] = [];
  afterAll(async () => {
    await cluster?.close();
  });

  async function run115(...rest: string[]): Promise<{ stdout: string; stderr: string }> {
    cluster ??= await startSimCluster({ seed: 'none', crdVersion: '1.15' });
    args = ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', join(dir, 'cache-crds')];
    return run(KUBECTL, [...args, ...rest], { timeout: 20_000 });
  }

  it('get crd lists the four Flink CRDs; a patch with a field they lack is pruned with the API server warning', async () => {
    const crds = await run115('get', 'crd', '-o', 'name');
    expect(crds.stdout.trim().split('\n').sort()).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/flinkbluegreendeployments.flink.apache.org',
      'customresourcedefinition.apiextensions.k8s.io/flinkdeployments.flink.apache.org',
      'customresourcedefinition.apiextensions.k8s.io/flinksessionjobs.flink.apache.org',
      'customresourcedefinition.apiextensions.k8s.io/flinkstatesnapshots.flink.apache.org',
    ]);
    cluster?.store.create('flinkdeployments', flinkDeployment('orders', NS));
    const patch = '{"spec":{"taskManager":{"resources":{"requests":{"memory":"4Gi"}}}}}';
    const pruned = await run115('patch', '-n', NS, 'flinkdeployment', 'orders', '--type', 'merge', '-p', patch);
    expect(pruned.stdout).toContain('flinkdeployment.flink.apache.org/orders patched (no change)');
    expect(pruned.stderr).toContain('Warning: unknown field "spec.taskManager.resources"');
    const dry = await run115(
      ...['patch', '-n', NS, 'flinkdeployment', 'orders', '--type', 'merge', '--dry-run=server'],
      ...['-p', '{"spec":{"job":{"parallelism":7}}}', '-o', 'jsonpath={.spec.job.parallelism}'],
    );
    expect(dry.stdout).toBe('7');
    expect(cluster?.store.get('flinkdeployments', NS, 'orders')?.spec?.job).toMatchObject({ parallelism: 2 });
  });
});
