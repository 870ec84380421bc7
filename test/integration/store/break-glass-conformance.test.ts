// The break-glass index conformance suite against Redis, each test its own key prefix.
import { BreakGlassIndex } from '../../../src/store/break-glass.js';
import { describeBreakGlassConformance } from '../../support/conformance/break-glass.js';
import { redisForTest } from '../../support/redis.js';

describeBreakGlassConformance('Redis', async () => {
  const t = await redisForTest('glass-conf');
  return { index: new BreakGlassIndex(t.redis, t.prefix), cleanup: () => t.cleanup() };
});
