// PolicyFileSource (docs/policy.md#changing-the-policy): an invalid edit leaves the last valid policy in force, is
// logged once with every problem by path, and `valid` says so until the file is fixed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadPolicyFile } from '../../../src/app/policy-load.js';
import { PolicyFileSource } from '../../../src/app/policy-source.js';
import { POLICY_YAML } from '../../support/worker-env.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function recorder() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const log = (level: string) => (fields: Record<string, unknown>, msg: string) =>
    void lines.push({ level, fields, msg });
  return { lines, logger: { error: log('error'), info: log('info') } as never };
}

it('keeps the last valid policy through an invalid edit, logs every problem once, and recovers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, POLICY_YAML);
  const { lines, logger } = recorder();
  const source = new PolicyFileSource(file, { logger });
  const first = await source.current();
  expect(first.ok && source.valid).toBe(true);

  await writeFile(file, `${POLICY_YAML.replace('from: [leads]', 'from: [lead]')}\nbogus: 1\n`);
  const during = await source.current();
  expect(during).toEqual(first);
  expect(source.valid).toBe(false);
  await source.current();
  const errors = lines.filter((l) => l.level === 'error');
  expect(errors).toHaveLength(1);
  const problems = errors[0]?.fields.problems as string[];
  expect(problems.some((p) => /^rules\[\d+\]\.require\.from\[0\]/.test(p))).toBe(true);
  expect(problems.some((p) => p.includes('bogus'))).toBe(true);

  await writeFile(file, POLICY_YAML);
  expect(await source.current()).toEqual(first);
  expect(source.valid).toBe(true);
  expect(lines.at(-1)?.msg).toContain('valid again');
});

it('with no valid policy ever read, an invalid file refuses every operation naming the problem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, 'version: 2\n');
  const source = new PolicyFileSource(file);
  const state = await source.current();
  expect(state.ok).toBe(false);
  expect(state.ok ? '' : state.message).toContain('not valid');
  expect(source.valid).toBe(false);
});

const CLUSTER_POLICY = `version: 1
namespaces:
  - name: streaming
    clusters: [prod-eu]
  - name: streaming
    clusters: [prod-us]
`;

it('with the installation’s clusters, refuses a file naming an unknown cluster and keeps the last valid policy', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, CLUSTER_POLICY);
  const { lines, logger } = recorder();
  const source = new PolicyFileSource(file, { logger, clusters: ['prod-eu', 'prod-us'] });
  const first = await source.current();
  expect(first.ok && source.valid).toBe(true);

  await writeFile(
    file,
    `${CLUSTER_POLICY.replace('[prod-us]', '[prod-usa]')}channels:\n  C0EU: { defaultCluster: prod-eux }\n`,
  );
  expect(await source.current()).toEqual(first);
  expect(source.valid).toBe(false);
  const errors = lines.filter((l) => l.level === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]?.fields.problems).toEqual([
    'namespaces[1].clusters[0]: unknown cluster "prod-usa" (this installation has prod-eu, prod-us)',
    'channels.C0EU.defaultCluster: unknown cluster "prod-eux" (this installation has prod-eu, prod-us)',
  ]);

  // The same file is valid for a source that does not check cluster names (single-cluster or unknown clusters).
  const unchecked = new PolicyFileSource(file);
  expect((await unchecked.current()).ok).toBe(true);
  expect(unchecked.valid).toBe(true);
});

it('with the installation’s clusters, refuses a cluster glob matching none of them at start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, CLUSTER_POLICY.replace('[prod-eu]', '["dev-*"]'));
  const source = new PolicyFileSource(file, { clusters: ['prod-eu', 'prod-us'] });
  const state = await source.current();
  expect(state.ok).toBe(false);
  expect(state.ok ? '' : state.message).toContain(
    'namespaces[0].clusters[0]: "dev-*" matches no cluster (this installation has prod-eu, prod-us)',
  );
  expect(source.valid).toBe(false);
});

it('tells onLoad of each read of a changed file, with its SHA-256, once for a burst of readers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, POLICY_YAML);
  const loads: { accepted: boolean; sha256?: string; problems: string[] }[] = [];
  const source = new PolicyFileSource(file, { onLoad: (load) => void loads.push(load) });
  const burst = await Promise.all(Array.from({ length: 100 }, () => source.current()));
  expect(burst.every((state) => state.ok)).toBe(true);
  expect(loads).toEqual([
    { path: file, accepted: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), problems: [] },
  ]);
  await writeFile(file, `${POLICY_YAML}\n  broken: [`);
  await source.current();
  await source.current();
  expect(loads).toHaveLength(2);
  expect(loads[1]).toMatchObject({ accepted: false, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(loads[1]?.sha256).not.toBe(loads[0]?.sha256);
  expect(loads[1]?.problems.length).toBeGreaterThan(0);
});

const MAX_POLICY_BYTES = 1024 * 1024;

it('refuses a policy file over 1 MiB, even a valid one, keeping the last valid policy; 1 MiB exactly is read', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'policy-source-'));
  dirs.push(dir);
  const file = join(dir, 'policy.yaml');
  await writeFile(file, POLICY_YAML);
  const { lines, logger } = recorder();
  const loads: { accepted: boolean; problems: string[] }[] = [];
  const source = new PolicyFileSource(file, { logger, onLoad: (load) => void loads.push(load) });
  const first = await source.current();
  expect(first.ok).toBe(true);

  const padded = (size: number) => `${POLICY_YAML}\n#${'x'.repeat(size - POLICY_YAML.length - 2)}`;
  await writeFile(file, padded(MAX_POLICY_BYTES + 1));
  expect(await source.current()).toEqual(first);
  expect(source.valid).toBe(false);
  const problem = `${file}: the file is larger than 1 MiB, the most a policy may be`;
  expect(lines.filter((l) => l.level === 'error').map((l) => l.fields.problems)).toEqual([[problem]]);
  expect(loads.at(-1)).toEqual({ path: file, accepted: false, problems: [problem] });

  await writeFile(file, padded(MAX_POLICY_BYTES));
  const loaded = await loadPolicyFile(file);
  expect(loaded.ok).toBe(true);
  expect((await source.current()).ok && source.valid).toBe(true);
});
