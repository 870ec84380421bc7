// KUBE_IMPERSONATE (docs/deployment.md#kubernetes-attribution): off unless set to slack; any other value is a
// configuration problem naming the variable and the two values.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('KUBE_IMPERSONATE', () => {
  it.each([
    [undefined, 'off'],
    ['off', 'off'],
    ['slack', 'slack'],
    [' slack ', 'slack'],
  ])('%j → %s', (value, expected) => {
    const loaded = loadConfig({ KUBE_IMPERSONATE: value }, 'worker');
    expect(loaded.ok && loaded.config.kubeImpersonate).toBe(expected);
  });

  it.each(['Slack', 'on', 'true', 'oidc'])('%j is refused with one line saying what it must be', (value) => {
    expect(loadConfig({ KUBE_IMPERSONATE: value }, 'worker')).toEqual({
      ok: false,
      problems: [
        `KUBE_IMPERSONATE: must be off or slack (docs/deployment.md#kubernetes-attribution) (got ${JSON.stringify(value)})`,
      ],
    });
  });
});
