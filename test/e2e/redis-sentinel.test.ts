// Redis through Sentinel (docs/configuration.md#redis-modes): a primary, a replica and 3 sentinels; bot and workers
// connect through the sentinels only. Operations complete, serialize per target, and survive the primary's SIGKILL
// under load.
import { redisHaSuite } from '../support/redis-ha-suite.js';

redisHaSuite('sentinel');
