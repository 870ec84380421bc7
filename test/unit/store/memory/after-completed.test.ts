// The in-memory after-COMPLETED watches: the conformance suite the Redis store passes too.
import { MemoryAfterCompletedWatches } from '../../../../src/store/memory/after-completed.js';
import { describeAfterCompletedConformance } from '../../../support/conformance/after-completed.js';

describeAfterCompletedConformance('memory', async () => {
  const watches = new MemoryAfterCompletedWatches();
  // One object holds the data; racers still interleave between their awaits.
  return { watches, racers: (n) => Array.from({ length: n }, () => watches), cleanup: async () => undefined };
});
