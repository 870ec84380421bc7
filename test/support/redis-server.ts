// The tests find their Redis the way the sandbox does: the same helpers, from packages/sim/src/redis.ts.
export { freePort } from '@flink-chatops/sim/ports';
export { redisAnswers, startPrivateRedis, type PrivateRedis } from '@flink-chatops/sim/redis';
