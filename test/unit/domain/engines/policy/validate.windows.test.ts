// Policy keys for scheduled operations (docs/policy.md#scheduled-operations): `timezone` and `windows`, each problem
// named by its path.
import { describe, expect, it } from 'vitest';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';

const base = { version: 1, namespaces: [{ name: 'streaming-prod' }] };

describe('timezone and windows', () => {
  it('accepts a zone and windows with and without their own zone', () => {
    const result = validatePolicy({
      ...base,
      timezone: 'Europe/Berlin',
      windows: {
        nightly: { days: ['mon', 'tue'], from: '02:00', to: '04:00' },
        'late.ny': { days: ['sat'], from: '22:00', to: '06:00', timezone: 'America/New_York' },
      },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.timezone).toBe('Europe/Berlin');
    expect(result.policy.windows).toStrictEqual({
      nightly: { days: ['mon', 'tue'], from: '02:00', to: '04:00' },
      'late.ny': { days: ['sat'], from: '22:00', to: '06:00', timezone: 'America/New_York' },
    });
  });

  it('leaves both out by default (UTC, no windows)', () => {
    const result = validatePolicy(base);
    expect(result.ok && result.policy.timezone === undefined && result.policy.windows === undefined).toBe(true);
  });

  it.each([
    [
      { timezone: 'Mars/Olympus' },
      'timezone: unknown time zone "Mars/Olympus"; use an IANA name such as Europe/Berlin',
    ],
    [
      { windows: { nightly: { days: ['wed'], from: '02:00', to: '04:00', timezone: 'Europe/Berln' } } },
      'windows.nightly.timezone: unknown time zone "Europe/Berln"',
    ],
    [
      { windows: { nightly: { days: ['wed'], from: '2:00', to: '04:00' } } },
      'windows.nightly.from: must be HH:MM between 00:00 and 23:59, not "2:00"',
    ],
    [
      { windows: { nightly: { days: ['someday'], from: '02:00', to: '04:00' } } },
      'windows.nightly.days[0]: unknown day "someday"',
    ],
    [{ windows: { nightly: { days: [], from: '02:00', to: '04:00' } } }, 'windows.nightly.days: list at least one day'],
    [
      { windows: { nightly: { days: ['wed'], from: '02:00', to: '04:00', zone: 'UTC' } } },
      'windows.nightly.zone: unknown key (did you mean "timezone"?)',
    ],
    [
      { windows: { 'night shift': { days: ['wed'], from: '02:00', to: '04:00' } } },
      'windows["night shift"]: window name "night shift" must be letters, digits',
    ],
  ])('names the path of %j', (extra, message) => {
    const result = validatePolicy({ ...base, ...extra });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.join('\n')).toContain(message);
  });
});
