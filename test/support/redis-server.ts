// The tests find their Redis the way the sandbox does: the same helpers, from src/sandbox/redis.ts.
export { freePort, redisAnswers, startPrivateRedis, type PrivateRedis } from '../../src/sandbox/redis.js';
