// The in-memory shared readings: the conformance suite.
import { MemorySharedReadings } from '../../../../src/store/memory/shared-readings.js';
import { describeSharedReadingsConformance } from '../../../support/conformance/shared-readings.js';

describeSharedReadingsConformance('memory', async () => ({
  readings: new MemorySharedReadings(),
  cleanup: async () => undefined,
}));
