// The operator's own status times (FlinkStateSnapshot triggerTimestamp/resultTimestamp, the JobException
// exception-timestamp) are java.time.Instant in ISO_INSTANT form (flink-kubernetes-operator DateTimeUtils.kubernetes):
// fractional seconds when there are some, none on a whole second.
import { describe, expect, it } from 'vitest';
import { isoInstant } from '../../../src/kube/instant.js';

describe('isoInstant (ISO_INSTANT, DateTimeUtils.kubernetes)', () => {
  it.each([
    ['2026-12-07T10:42:05.317Z', '2026-12-07T10:42:05.317Z'],
    ['2026-12-07T10:42:05.300Z', '2026-12-07T10:42:05.300Z'],
    ['2026-12-07T10:42:05.000Z', '2026-12-07T10:42:05Z'],
  ])('%s → %s', (at, expected) => {
    expect(isoInstant(new Date(at))).toBe(expected);
  });
});
