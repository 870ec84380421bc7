// The in-memory break-glass index: the conformance suite.
import { MemoryBreakGlassIndex } from '../../../../src/store/memory/break-glass.js';
import { describeBreakGlassConformance } from '../../../support/conformance/break-glass.js';

describeBreakGlassConformance('memory', async () => ({
  index: new MemoryBreakGlassIndex(),
  cleanup: async () => undefined,
}));
