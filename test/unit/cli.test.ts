import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';

const BIN = new URL('../../bin/flink-chatops.js', import.meta.url).pathname;

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
    for (const sub of ['serve', 'sandbox', 'sim-cluster', 'check-policy']) expect(stdout).toContain(sub);
  });

  it('exits 1 with one readable line per configuration problem, and no stack trace', () => {
    const { code, stderr } = cli(['serve', '--role', 'bot'], { PORT: 'x', LEASE_TTL: 'soon' });
    expect(code).toBe(1);
    expect(stderr).toContain('PORT:');
    expect(stderr).toContain('LEASE_TTL:');
    expect(stderr).toContain('SLACK_BOT_TOKEN:');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an unknown subcommand and an unknown role', () => {
    expect(cli(['frobnicate']).code).toBe(1);
    const role = cli(['serve', '--role', 'janitor']);
    expect(role.code).toBe(1);
    expect(role.stderr).toContain('--role must be one of bot, worker, all');
  });
});

describe('parseArgs', () => {
  it('parses values, inline values and flags, and reports unknown options', () => {
    expect(parseArgs(['--port', '8080', '--seed=demo', 'x'], { port: 'value', seed: 'value' })).toEqual({
      ok: true,
      values: { port: '8080', seed: 'demo' },
      positional: ['x'],
    });
    expect(parseArgs(['--nope'], {})).toEqual({ ok: false, message: 'unknown option --nope' });
    expect(parseArgs(['--port'], { port: 'value' })).toEqual({ ok: false, message: '--port needs a value' });
  });
});
