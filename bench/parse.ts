// Benchmark of parseCommand on a realistic mix of commands (valid, refused, quoted, with mentions).
import { parseCommand, type ParseContext } from '../src/domain/engines/language/parse.js';

const MIX = [
  'status analytics/clickstream',
  'status clickstream --public',
  'list',
  'ops analytics/clickstream --limit 20',
  'op op-7f3c2a9b',
  'locks',
  'help scale',
  'suspend analytics/clickstream --mode savepoint --reason "schema migration"',
  'resume sessionjob:analytics/sessionizer',
  'restart clickstream --reason “stuck checkpoints, paging <@U0123ABC>” --incident <#C0123ABCD|inc-4711>',
  'scale analytics/clickstream 12',
  'scale clickstream 100000',
  'upgrade analytics/clickstream --image=registry.example.com/analytics/clickstream:2.4.1 --mode last-state',
  'savepoint analytics/clickstream',
  'restore analytics/clickstream --from s3://flink-state/savepoints/savepoint-4c1d2e --allow-non-restored-state',
  'resources analytics/clickstream --tm-memory 1.5gb --tm-cpu 2 --reason "OOM loop"',
  'config analytics/clickstream set execution.checkpointing.interval=30s restart-strategy.type=fixed-delay',
  'config clickstream unset execution.checkpointing.interval',
  'config clickstream set "bad key=1"',
  'undo op-7f3c2a9b',
  'explain scale analytics/clickstream 16 --public',
  'cancel op-7f3c2a9b',
  'lock analytics/clickstream --reason "quarter-end close"',
  'sacle analytics/clickstream 8',
];
const CTX: ParseContext = { defaultNamespace: 'analytics' };
const BATCH = 1_000;
const BATCHES = 200;

function runBatch(offset: number): number {
  let replies = 0;
  for (let i = 0; i < BATCH; i++) {
    if (parseCommand(MIX[(offset + i) % MIX.length] as string, CTX).type === 'reply') replies++;
  }
  return replies;
}

for (let i = 0; i < 20; i++) runBatch(i);

const perCommandMs: number[] = [];
let replies = 0;
for (let b = 0; b < BATCHES; b++) {
  const start = process.hrtime.bigint();
  replies += runBatch(b);
  perCommandMs.push(Number(process.hrtime.bigint() - start) / 1e6 / BATCH);
}
const mean = perCommandMs.reduce((a, b) => a + b, 0) / perCommandMs.length;
const sorted = [...perCommandMs].sort((a, b) => a - b);
const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] as number;
const total = BATCH * BATCHES;
console.log(
  `parse: ${mean.toFixed(4)} ms/command (p99 batch ${p99.toFixed(4)} ms) over ${total} commands` +
    ` (${MIX.length} kinds, ${((replies / total) * 100).toFixed(0)}% refused)`,
);
