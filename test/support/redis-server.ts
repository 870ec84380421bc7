// The tests find their Redis the way the sandbox does: the same helpers, from packages/sim/src/redis.ts.
export { freePort, redisAnswers, startPrivateRedis, type PrivateRedis } from '@flink-chatops/sim/redis';
