// Redis round trips (and time) per operation lifecycle: create + 5 transitions through the operation store.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { newOperationId } from '../src/domain/engines/operation.js';
import type { ActorRole, OperationState } from '../src/domain/model/lifecycle.js';
import type { OperationIntent } from '../src/domain/kinds/index.js';
import type { Target } from '../src/domain/model/target.js';
import { redactUrl } from '../src/config.js';
import { OperationStore } from '../src/store/operations.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bench-${randomBytes(4).toString('hex')}`;
const ROUNDS = 200;
const STEPS: [OperationState, OperationState, ActorRole][] = [
  ['ACCEPTED', 'QUEUED', 'bot'],
  ['QUEUED', 'SUBMITTING', 'worker'],
  ['SUBMITTING', 'UNCERTAIN', 'worker'],
  ['UNCERTAIN', 'SUBMITTED', 'worker'],
  ['SUBMITTED', 'COMPLETED', 'worker'],
];

const redis = new Redis(url, { maxRetriesPerRequest: 1 });
let commands = 0;
// Every command ioredis sends (scripts included, NOSCRIPT fallbacks too) goes through sendCommand.
const send = redis.sendCommand.bind(redis);
redis.sendCommand = ((...args: Parameters<typeof send>) => {
  commands++;
  return send(...args);
}) as typeof redis.sendCommand;

const store = new OperationStore(redis, { prefix });

async function lifecycle(): Promise<void> {
  const id = newOperationId(() => randomBytes(16));
  const target: Target = { kind: 'FlinkDeployment', namespace: 'bench', name: `job-${id.slice(3)}` };
  const intent: OperationIntent = { kind: 'restart', target, incidentChannels: [] };
  const created = await store.create(
    { id, kind: 'restart', intent, target, requester: 'U0BENCH', channel: 'C0BENCH', incidentChannels: [] },
    'U0BENCH',
  );
  if (!created.ok) throw new Error('id taken');
  for (const [from, to, role] of STEPS) {
    const result = await store.transition(id, { from: [from], to, actor: role, role });
    if (!result.ok) throw new Error(result.reason);
  }
}

try {
  await lifecycle(); // loads the scripts into the server's cache (EVALSHA → NOSCRIPT → EVAL) before measuring
  commands = 0;
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) await lifecycle();
  const ms = performance.now() - started;
  console.log(
    `store: ${(commands / ROUNDS).toFixed(1)} Redis round trips per create + 5 transitions (${ROUNDS} rounds)`,
  );
  console.log(`store: ${(ms / ROUNDS).toFixed(2)} ms per create + 5 transitions against ${redactUrl(url)}`);
} finally {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*{${prefix}}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}
