// The flink-chatops command as installed (bin/ and src/cli/main.ts): help, the simulators it does not offer, and
// configuration problems as readable lines with no password and no stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const BIN = new URL('../../../bin/flink-chatops.js', import.meta.url).pathname;

function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('flink-chatops CLI', () => {
  it('prints help with every subcommand', () => {
    const { code, stdout } = cli(['--help']);
    expect(code).toBe(0);
    for (const sub of ['serve', 'check-policy']) expect(stdout).toMatch(new RegExp(`^  flink-chatops ${sub}\\b`, 'm'));
    expect(stdout).not.toMatch(/^ {2}flink-chatops (sandbox|sim-cluster)\b/m);
  });

  it("the bot's own CLI (as built into the image) does not offer the simulators, and says where they are", async () => {
    const { main } = await import('../../../src/cli/main.js');
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    for (const sub of ['sandbox', 'sim-cluster']) expect(await main([sub])).toBe(1);
    write.mockRestore();
    expect(written.join('')).toContain(
      '"sandbox" is a development tool and not part of this installation: run it from a checkout (npm start)',
    );
    expect(written.join('')).toContain('"sim-cluster" is a development tool');
  });

  it('exits 1 with one readable line per configuration problem, and no stack trace', () => {
    const { code, stderr } = cli(['serve', '--role', 'bot'], { PORT: 'x', LEASE_TTL: 'soon' });
    expect(code).toBe(1);
    expect(stderr).toContain('PORT:');
    expect(stderr).toContain('LEASE_TTL:');
    expect(stderr).toContain('SLACK_BOT_TOKEN:');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('a REDIS_URL with a password and a stray newline, or set both plain and as _FILE: exit 1, a readable line, no password', () => {
    const stray = cli(['serve', '--role', 'worker'], { REDIS_URL: 'redis://app:s3cr3t-pw@redis.internal:6379\n' });
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(stray.stderr).toContain('redis://app:***@redis.internal:6379\\n');
    const dir = mkdtempSync(join(tmpdir(), 'cli-file-'));
    try {
      const file = join(dir, 'redis-url');
      writeFileSync(file, 'redis://app:s3cr3t-pw@redis.internal:6379\n');
      const both = cli(['serve', '--role', 'worker'], {
        REDIS_URL: 'redis://app:s3cr3t-pw@redis.internal:6379',
        REDIS_URL_FILE: file,
      });
      expect(both.code).toBe(1);
      expect(both.stderr).toContain('REDIS_URL_FILE: set REDIS_URL or REDIS_URL_FILE, not both');
      for (const run of [stray, both]) {
        expect(`${run.stdout}${run.stderr}`).not.toContain('s3cr3t-pw');
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve refuses to start without RECORD_SIGNING_KEY, naming it, and never shows a short one', () => {
    const missing = cli(['serve', '--role', 'worker']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('RECORD_SIGNING_KEY: required (or RECORD_SIGNING_KEY_FILE)');
    const short = cli(['serve', '--role', 'worker'], { RECORD_SIGNING_KEY: 'tooshort-s3cret' });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('RECORD_SIGNING_KEY: must be at least 32 characters');
    expect(short.stderr).not.toContain('tooshort-s3cret');
  });

  it('refuses an unknown subcommand and an unknown role', () => {
    expect(cli(['frobnicate']).code).toBe(1);
    const role = cli(['serve', '--role', 'janitor']);
    expect(role.code).toBe(1);
    expect(role.stderr).toContain('--role must be one of bot, worker, all');
  });
});
