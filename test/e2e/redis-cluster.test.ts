// Redis Cluster (docs/configuration.md#redis-modes): 3 primaries with a replica each; bot and workers connect through
// the seed nodes only. Operations complete, serialize per target, and survive the SIGKILL of the primary owning the
// prefix's slot.
import { redisHaSuite } from '../support/redis-ha-suite.js';

redisHaSuite('cluster');
