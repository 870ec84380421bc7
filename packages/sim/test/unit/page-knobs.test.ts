// The knobs' timings against the sandbox's FAILURE_GRACE (docs/sandbox.md#knob-timings): a failure the operator
// recovers from by itself must end before the worker's grace runs out, or the card says FAILED while the panel
// shows the change running.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';
import { laterFloorSeconds, RECOVERING_KNOBS, SANDBOX_LATER_FLOOR_MS } from '../../src/page-knobs.js';
import { SPEEDS, scaledMs } from '../../src/kube/speed.js';
import { sandboxEnv } from '../../src/sandbox.js';

/** The FAILURE_GRACE the sandbox's worker runs with at `speed`, read through the config it is given. */
function sandboxGraceMs(speed: (typeof SPEEDS)[number]): number {
  const env = sandboxEnv({
    slackApiUrl: 'http://127.0.0.1:1/api/',
    redisUrl: 'redis://127.0.0.1:6379',
    prefix: 'knob-timings',
    kubeconfig: '/dev/null',
    contexts: ['eu'],
    workerClusters: ['eu'],
    policyFile: '/dev/null',
    signingSecret: 'x'.repeat(32),
    speed,
  });
  const loaded = loadConfig(env, 'worker');
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config.failureGraceMs;
}

describe('knob timings in the sandbox', () => {
  it.each(SPEEDS)('at %s speed every recovering knob ends within half of FAILURE_GRACE', (speed) => {
    const graceMs = sandboxGraceMs(speed);
    expect(Object.keys(RECOVERING_KNOBS)).toContain('image-pull-recovers');
    for (const [knob, seconds] of Object.entries(RECOVERING_KNOBS))
      expect(scaledMs(speed, seconds), `${knob} at ${speed}: grace ${graceMs} ms`).toBeLessThanOrEqual(graceMs / 2);
  });

  it.each(SPEEDS)(
    'at %s speed the "later" knobs hold back past FAILURE_GRACE and the floor, so their incidents follow the evidence',
    (speed) => {
      const graceMs = sandboxGraceMs(speed);
      // Fails in 1 min (60 s) is the shortest "later" knob.
      const heldMs = scaledMs(speed, Math.max(60, laterFloorSeconds(speed)));
      expect(heldMs).toBeGreaterThanOrEqual(SANDBOX_LATER_FLOOR_MS);
      expect(heldMs).toBeGreaterThanOrEqual(2 * graceMs);
    },
  );
});
