// The sandbox CLI's arguments: defaults, values and the one-line refusals.
import { describe, expect, it } from 'vitest';
import { parseSandboxArgs } from '../../src/sandbox-command.js';
import { SANDBOX_POLICY } from '../../src/sandbox.js';

describe('parseSandboxArgs', () => {
  it.each([
    [[], { ok: true, options: { speed: 'realistic', policyFile: SANDBOX_POLICY } }],
    [['--speed', 'fast', '--port', '0'], { ok: true, options: { speed: 'fast', port: 0, policyFile: SANDBOX_POLICY } }],
    [['--speed', 'warp'], { ok: false, message: '--speed must be one of fast, realistic, not "warp"' }],
    [
      ['--port', '70000'],
      { ok: false, message: '--port must be a port number 0–65535 (0 = any free port), not "70000"' },
    ],
    [
      ['--event-ttl', '5m'],
      { ok: true, options: { speed: 'realistic', policyFile: SANDBOX_POLICY, eventTtlMs: 300_000 } },
    ],
    [['--event-ttl', 'never'], { ok: false, message: '--event-ttl must be a duration such as 90s or 5m, not "never"' }],
    [['--color'], { ok: false, message: 'unknown option --color' }],
    [['now'], { ok: false, message: 'unexpected argument "now"' }],
  ])('%j', (args, expected) => {
    expect(parseSandboxArgs(args)).toEqual(expected);
  });
});
