// Tests that set themselves up (README.md#the-two-commands): the pretest script installs what is missing (redis-server,
// Chromium, promtool) when it may, else prints the exact command and fails; .ci/run runs `npm ci`, exactly the
// README's test command, then the same under Node 24.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kustomize.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const setup = (env: Record<string, string>) =>
  spawnSync('bash', ['scripts/test-setup.sh'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });

/** The README's test command: the `sh` block under "The two commands" that is not the sandbox's. */
function readmeTestCommand(): string {
  const blocks = [...read('README.md').matchAll(/```sh\n([^\n]+)\n```/g)].map((m) => m[1] ?? '');
  const command = blocks.find((b) => /\bnpm (run )?test\b/.test(b));
  if (!command) throw new Error('README.md shows no test command');
  return command;
}

describe('scripts/test-setup.sh (npm pretest)', () => {
  it('runs before every `npm test`', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.pretest).toBe('bash scripts/test-setup.sh');
    expect(scripts['test:setup']).toBe('bash scripts/test-setup.sh');
  });

  /** Every prerequisite present (any executable will do), so each test names only what it takes away. */
  const present = { TEST_SETUP_CHROMIUM: '/bin/sh', TEST_SETUP_REDIS: '/bin/sh', TEST_SETUP_PROMTOOL: '/bin/sh' };

  it('as root with apt-get, installs the missing Chromium', () => {
    const run = setup({
      ...present,
      TEST_SETUP_CHROMIUM: '/nonexistent/chromium',
      TEST_SETUP_UID: '0',
      TEST_SETUP_DRY_RUN: '1',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('would run: apt-get update && apt-get install -y chromium\n');
  });

  it("as root with apt-get, installs promtool from Debian's prometheus package", () => {
    const run = setup({
      ...present,
      TEST_SETUP_PROMTOOL: '/nonexistent/promtool',
      TEST_SETUP_UID: '0',
      TEST_SETUP_DRY_RUN: '1',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('would run: apt-get update && apt-get install -y prometheus\n');
  });

  it('as another user, prints the exact install command for everything missing and fails', () => {
    const run = setup({
      TEST_SETUP_CHROMIUM: '/nonexistent/chromium',
      TEST_SETUP_REDIS: '/nonexistent/redis-server',
      TEST_SETUP_PROMTOOL: '/nonexistent/promtool',
      TEST_SETUP_UID: '1000',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("sudo sh -c 'apt-get update && apt-get install -y redis-server chromium prometheus'");
  });

  it('does nothing when all are there', () => {
    const run = setup({ ...present, TEST_SETUP_UID: '1000' });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });
});

describe('.ci/run', () => {
  const steps = read('.ci/run')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#') && !/^(set|cd) /.test(l));

  it('installs cleanly, runs exactly the README test command, then the same under Node 24', () => {
    const command = readmeTestCommand();
    expect(steps).toEqual(['npm ci --no-audit --no-fund', command, `npx -y -p node@24 -c '${command}'`]);
  });
});
