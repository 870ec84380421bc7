// The shared-readings conformance suite against Redis, each test its own key prefix.
import { RedisSharedReadings } from '../../../src/store/shared-readings.js';
import { describeSharedReadingsConformance } from '../../support/conformance/shared-readings.js';
import { redisForTest } from '../../support/redis.js';

describeSharedReadingsConformance('Redis', async () => {
  const t = await redisForTest('readings-conf');
  return { readings: new RedisSharedReadings(t.redis, t.prefix), cleanup: () => t.cleanup() };
});
