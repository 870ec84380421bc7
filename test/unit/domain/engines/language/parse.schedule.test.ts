// `--at`, `--window` and `--break-glass` on every operation verb (docs/policy.md#scheduled-operations,
// docs/policy.md#break-glass): what the intent keeps, and the refusals.
import { describe, expect, it } from 'vitest';
import { parseCommand, type ParseContext } from '../../../../../src/domain/engines/language/parse.js';
import { looksLikeZone, parseAt } from '../../../../../src/domain/kit/schedule/run-at.js';

const CTX: ParseContext = { defaultNamespace: 'analytics' };
const X = { kind: 'FlinkDeployment', namespace: 'prod', name: 'x' };

function intentOf(text: string): Record<string, unknown> {
  const result = parseCommand(text, CTX);
  if (result.type !== 'intent') throw new Error(`${text} → ${JSON.stringify(result)}`);
  return result.intent as unknown as Record<string, unknown>;
}

function refusal(text: string): string {
  const result = parseCommand(text, CTX);
  if (result.type !== 'reply') throw new Error(`${text} was not refused: ${JSON.stringify(result)}`);
  return result.message;
}

describe('--at', () => {
  it.each([
    ['restart prod/x --at 02:00', { kind: 'clock', hour: 2, minute: 0 }],
    ['restart prod/x --at 2:05', { kind: 'clock', hour: 2, minute: 5 }],
    ['restart prod/x --at 02:00 Europe/Berlin', { kind: 'clock', hour: 2, minute: 0, zone: 'Europe/Berlin' }],
    ['restart prod/x --at "02:00 Europe/Berlin"', { kind: 'clock', hour: 2, minute: 0, zone: 'Europe/Berlin' }],
    ['restart prod/x --at “23:59 america/new_york”', { kind: 'clock', hour: 23, minute: 59, zone: 'America/New_York' }],
    ['restart --at 02:00 UTC prod/x', { kind: 'clock', hour: 2, minute: 0, zone: 'UTC' }],
    ['restart prod/x --at=02:00 Europe/Berlin', { kind: 'clock', hour: 2, minute: 0, zone: 'Europe/Berlin' }],
    ['restart prod/x --at 2026-12-02T02:00:00+01:00', { kind: 'instant', ms: Date.UTC(2026, 11, 2, 1, 0, 0) }],
    ['restart prod/x --at 2026-12-02T02:00+01:00', { kind: 'instant', ms: Date.UTC(2026, 11, 2, 1, 0, 0) }],
    ['restart prod/x --at 2026-12-02T02:00:30.5Z', { kind: 'instant', ms: Date.UTC(2026, 11, 2, 2, 0, 30, 500) }],
    ['restart prod/x --at 2026-03-08T01:30:00-05:00', { kind: 'instant', ms: Date.UTC(2026, 2, 8, 6, 30) }],
  ])('%s', (text, at) => {
    expect(intentOf(text)).toStrictEqual({ kind: 'restart', target: X, incidentChannels: [], at });
  });

  it('works on every operation verb, undo included', () => {
    expect(intentOf('scale prod/x 4 --at 02:00').at).toStrictEqual({ kind: 'clock', hour: 2, minute: 0 });
    expect(intentOf('undo op-abcdef12 --window nightly').window).toBe('nightly');
    expect(intentOf('upgrade prod/x --image ghcr.io/a/b:1 --at 03:00 Europe/Berlin').at).toMatchObject({
      zone: 'Europe/Berlin',
    });
  });

  it.each([
    ['restart prod/x --at 25:00', /the time must be HH:MM from 00:00 to 23:59/],
    ['restart prod/x --at 02:60', /from 00:00 to 23:59/],
    ['restart prod/x --at 02:00 Europe/Berln', /unknown time zone "Europe\/Berln"; use an IANA name/],
    ['restart prod/x --at "02:00 Mars/Olympus"', /unknown time zone "Mars\/Olympus"/],
    ['restart prod/x --at 2026-12-02T02:00:00', /needs a UTC offset or Z at the end/],
    ['restart prod/x --at 2026-02-30T02:00:00Z', /is not a real date and time/],
    ['restart prod/x --at 2026-12-02T02:00:00+25:00', /impossible UTC offset/],
    [
      'restart prod/x --at tomorrow',
      /--at takes a time: `02:00`, `02:00 Europe\/Berlin` or `2026-12-02T02:00:00\+01:00`; got "tomorrow"/,
    ],
    ['restart prod/x --at', /--at needs a value: --at <time>/],
    ['restart prod/x --at 02:00 --window nightly', /give either --at or --window, not both/],
    ['restart prod/x --at 02:00 --at 03:00', /--at was given 2 times with different values/],
    [
      'restart prod/x --window "night shift"',
      /--window takes the name of a window in the policy's `windows`; got "night shift"/,
    ],
    ['restart prod/x --break-glass=yes', /--break-glass takes no value/],
    ['status prod/x --at 02:00', /--at is not an option of status/],
  ])('refuses %s', (text, message) => {
    expect(refusal(text)).toMatch(message);
  });

  it('leaves a lowercase word after the time to be the target', () => {
    expect(intentOf('restart --at 02:00 prod/x')).toMatchObject({
      target: X,
      at: { kind: 'clock', hour: 2, minute: 0 },
    });
    expect(looksLikeZone('02:00', 'prod/x')).toBe(false);
    expect(looksLikeZone('2026-12-02T02:00Z', 'UTC')).toBe(false);
  });

  it('never throws on odd input', () => {
    for (const text of ['', ' ', '99:99 X/Y', '2026-13-01T00:00Z', '--', '02:00 Europe/Berlin extra', '\u0000']) {
      expect(parseAt(text).ok === true || parseAt(text).ok === false).toBe(true);
    }
    expect(parseAt('02:00 Europe/Berlin extra').ok).toBe(false);
  });
});

describe('--window and --break-glass', () => {
  it('keeps the window name, and the switch', () => {
    expect(intentOf('suspend prod/x --window nightly --reason "sev1"')).toStrictEqual({
      kind: 'suspend',
      target: X,
      incidentChannels: [],
      window: 'nightly',
      reason: 'sev1',
    });
    expect(intentOf('suspend prod/x --break-glass --reason "sev1"')).toStrictEqual({
      kind: 'suspend',
      target: X,
      incidentChannels: [],
      breakGlass: true,
      reason: 'sev1',
    });
  });

  it.each(['--window nightly', '--at 02:00'])('refuses --break-glass with %s: it runs now or not at all', (when) => {
    const result = parseCommand(`suspend prod/x ${when} --break-glass --reason "sev1"`, {});
    expect(result.type).toBe('reply');
    expect(result.type === 'reply' ? result.message : '').toContain('--break-glass runs now or not at all');
  });

  it('leaves breakGlass out when not given', () => {
    expect(intentOf('restart prod/x')).not.toHaveProperty('breakGlass');
  });
});
