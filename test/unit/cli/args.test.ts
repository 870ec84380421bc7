// The argument parser the CLI and the simulators share.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/cli/args.js';

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
