// Several clusters behind one installation (issue 14): 3 simulated clusters × 2,000 FlinkDeployments, 3 bot and 3
// worker processes (`flink-chatops serve`, KUBE_CONTEXTS=c1,c2,c3, one worker per cluster), 100 operations spread over
// the clusters. Prints the ack p99 and its ratio to bare Bolt apps in the same run, the `list` answer p99, the RSS of
// each process, Kubernetes requests and Slack calls per operation, each against its target.
// The simulators run in child processes of their own; this process only sends load and reads results.
// Usage: npm run bench:scale [-- --per-cluster 2000 --ops 100 --burst 25 --lists 30]   (BENCH_DEBUG=1: Slack call counts while settling)
import { performance } from 'node:perf_hooks';
import { CLUSTERS, NAMESPACES, startRig, type Rig } from './scale-env.js';
import { burst, CHANNELS, commandBody, post, summarize } from './scale-load.js';
import { eventually, GiveUp } from '../test/support/poll.js';
import { OpsTracker } from './scale-ops.js';
import { stopAll, type Metrics } from './scale-procs.js';
import { printReport, type Results } from './scale-report.js';

interface Params {
  perCluster: number;
  ops: number;
  burst: number;
  lists: number;
}

function parseParams(argv: string[]): Params {
  const p: Params = { perCluster: 2000, ops: 100, burst: 25, lists: 30 };
  const keys: Record<string, keyof Params> = {
    '--per-cluster': 'perCluster',
    '--ops': 'ops',
    '--burst': 'burst',
    '--lists': 'lists',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = keys[argv[i] as string];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < 1)
      throw new Error(
        `usage: bench/scale.ts [--per-cluster N] [--ops N] [--burst N] [--lists N]; bad "${argv[i]} ${argv[i + 1]}"`,
      );
    p[key] = value;
  }
  return p;
}

/** The running rig, closed on Ctrl-C. */
let active: Rig | undefined;
const t0 = performance.now();
const log = (line: string): void =>
  void process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
let tag = 0;
const nextId = (what: string): string => `${what}-${++tag}`;

/** One operation per cluster and namespace, so every worker's shared watches are open before anything is counted. */
async function warmUp(rig: Rig, tracker: OpsTracker): Promise<void> {
  const texts = CLUSTERS.flatMap((c, i) =>
    NAMESPACES.map((ns, k) => ({ text: `scale ${c}/${ns}/job-${k} 3`, channel: CHANNELS[i] as string })),
  );
  const before = tracker.recorded.size;
  await burst(
    rig.bare,
    texts.map((t) => commandBody(rig.slackUrl, t.text, nextId('warm-bare'), t.channel)),
  );
  await burst(
    rig.bots.map((b) => `http://127.0.0.1:${b.port}/slack/events`),
    texts.map((t) => commandBody(rig.slackUrl, t.text, nextId('warm'), t.channel)),
  );
  await tracker.until(
    () => tracker.recorded.size >= before + texts.length && tracker.terminal.size >= tracker.recorded.size,
    120_000,
    'the warm-up operations',
  );
  const refused = [...tracker.terminal.values()].filter((s) => s !== 'COMPLETED');
  if (refused.length > 0) log(`  warning: warm-up outcomes include ${refused.join(', ')}`);
}

/**
 * Operation j: `scale <cluster j%3>/<namespace>/job-(100+j) 3` from that cluster's channel; each target once, so no
 * operation waits on a lock.
 */
function opCommand(slackUrl: string, j: number, id: string): string {
  const index = 100 + j;
  const c = j % CLUSTERS.length;
  return commandBody(
    slackUrl,
    `scale ${CLUSTERS[c]}/${NAMESPACES[index % NAMESPACES.length]}/job-${index} 3`,
    id,
    CHANNELS[c],
  );
}

interface OpsPhase {
  ours: number[];
  bare: number[];
  roundRatios: number[];
  ops: string[];
  seconds: number;
}

/** The operations in bursts, each next to a burst of the same bodies against the bare apps (alternating order). */
async function opsPhase(rig: Rig, tracker: OpsTracker, p: Params): Promise<OpsPhase> {
  const botUrls = rig.bots.map((b) => `http://127.0.0.1:${b.port}/slack/events`);
  const known = new Set(tracker.recorded);
  const result: OpsPhase = { ours: [], bare: [], roundRatios: [], ops: [], seconds: 0 };
  const started = performance.now();
  for (let from = 0, round = 0; from < p.ops; from += p.burst, round++) {
    const js = Array.from({ length: Math.min(p.burst, p.ops - from) }, (_, i) => from + i);
    const bareBurst = () =>
      burst(
        rig.bare,
        js.map((j) => opCommand(rig.slackUrl, j, nextId('bare'))),
      );
    const theirsFirst = round % 2 === 0 ? await bareBurst() : [];
    const mine = await burst(
      botUrls,
      js.map((j) => opCommand(rig.slackUrl, j, nextId('op'))),
    );
    // Rounds do not overlap: the next starts once this one's operations are recorded (as bench:ack does).
    await tracker.until(
      () => tracker.recorded.size >= known.size + from + js.length,
      60_000,
      `the operations of round ${round + 1}`,
    );
    const theirs = round % 2 === 0 ? theirsFirst : await bareBurst();
    result.ours.push(...mine);
    result.bare.push(...theirs);
    result.roundRatios.push(summarize(mine).p99 / summarize(theirs).p99);
  }
  await tracker.until(
    () => [...tracker.recorded].filter((op) => !known.has(op)).every((op) => tracker.terminal.has(op)),
    600_000,
    'every operation to finish',
  );
  result.seconds = (performance.now() - started) / 1000;
  result.ops = [...tracker.recorded].filter((op) => !known.has(op));
  return result;
}

/**
 * Waits until the simulated Slack has seen no new Web API call for 2 s: card edits and thread replies are sent by
 * the bots' notifiers, paced at one post per second per channel and process.
 */
async function slackSettled(rig: Rig): Promise<Record<string, number>> {
  let last = '';
  const unchanged = async () => {
    const calls = await rig.slackCalls().catch((error: unknown) => {
      throw new GiveUp(`the simulated Slack did not answer: ${String(error)}`);
    });
    const now = JSON.stringify(calls);
    if (process.env.BENCH_DEBUG) log(`    slack calls: ${now}`);
    const same = now === last;
    last = now;
    return same && calls;
  };
  return eventually('the Slack calls to settle', unchanged, { timeoutMs: 900_000, intervalMs: 2000 }).catch(
    (error: unknown) => {
      if (error instanceof Error && error.cause instanceof GiveUp) throw error;
      log('  warning: Slack calls still arriving after 900 s');
      return rig.slackCalls();
    },
  );
}

export interface ListPhase {
  /** ms from sending the command to its response_url answer arriving at the simulated Slack. */
  answers: number[];
  acks: number[];
  bytes: number;
  blocks: number;
  text: string;
  errors: string[];
  /** Lists sent, the unmeasured first ones included. */
  sent: number;
}

/** `list` commands one at a time, round-robin over the bots (a first one per bot unmeasured). */
async function listPhase(rig: Rig, count: number): Promise<ListPhase> {
  const out: ListPhase = { answers: [], acks: [], bytes: 0, blocks: 0, text: '', errors: [], sent: 0 };
  for (let i = -rig.bots.length; i < count; i++) {
    const bot = rig.bots[(i + rig.bots.length) % rig.bots.length] as Rig['bots'][number];
    const id = nextId('list');
    const sent = await post(`http://127.0.0.1:${bot.port}/slack/events`, commandBody(rig.slackUrl, 'list', id));
    const answer = await rig.responses.wait(id, 60_000);
    out.sent++;
    if (i < 0) continue;
    out.acks.push(sent.ms);
    out.answers.push(answer.at - sent.sentAt);
    Object.assign(out, { bytes: answer.bytes, blocks: answer.blocks, text: answer.text });
    if (answer.error) out.errors.push(answer.error);
  }
  return out;
}

async function allMetrics(rig: Rig): Promise<Map<string, Metrics>> {
  return new Map(
    await Promise.all([...rig.bots, ...rig.workers].map(async (p) => [p.name, await p.metrics()] as const)),
  );
}

async function run(p: Params): Promise<Results> {
  log(
    `bench:scale — ${CLUSTERS.length} clusters × ${p.perCluster} FlinkDeployments, ${p.ops} operations in bursts of ${p.burst}, ${p.lists} lists; setting up…`,
  );
  const rig = await startRig(p.perCluster, log);
  active = rig;
  const tracker = new OpsTracker(rig.redisUrl, rig.prefix);
  try {
    await tracker.start();
    log("  warm-up: one operation per cluster and namespace (opens the workers' shared watches)…");
    await warmUp(rig, tracker);
    log('  warm-up operations finished; waiting for Slack to settle');
    await slackSettled(rig);
    await Promise.all(rig.clusters.map((c) => c.stats('DELETE')));
    const slackBefore = await rig.slackCalls();
    const metricsBefore = await allMetrics(rig);
    log(`  ${p.ops} operations…`);
    const ops = await opsPhase(rig, tracker, p);
    log(`  operations finished in ${ops.seconds.toFixed(1)} s; waiting for Slack to settle`);
    const settleStart = performance.now();
    const slackAfter = await slackSettled(rig);
    const settled = (performance.now() - settleStart) / 1000 - 2;
    const kube = await Promise.all(rig.clusters.map(async (c) => ({ name: c.name, stats: await c.stats('GET') })));
    await Promise.all(rig.clusters.map((c) => c.stats('DELETE')));
    const metricsAfter = await allMetrics(rig);
    log(`  ${p.lists} list commands…`);
    const list = await listPhase(rig, p.lists);
    const listKube = await Promise.all(rig.clusters.map(async (c) => ({ name: c.name, stats: await c.stats('GET') })));
    const rss = await Promise.all(
      [...rig.bots, ...rig.workers].map(async (proc) => ({
        name: proc.name,
        metrics: await proc.metrics(),
        peak: await proc.peakRss(),
      })),
    );
    return {
      params: p,
      setup: rig.setup,
      ops: { ...ops, outcomes: tracker.outcomes(ops.ops), slackLagSeconds: settled },
      kube,
      listKube,
      slackBefore,
      slackAfter,
      metricsBefore,
      metricsAfter,
      list,
      rss,
    };
  } finally {
    await tracker.stop();
    await rig.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`bench:scale: ${signal}; stopping the child processes and deleting the run's Redis keys…`);
    void (active?.close() ?? stopAll()).finally(() => process.exit(130));
  });
}

try {
  const results = await run(parseParams(process.argv.slice(2)));
  printReport(results);
} catch (error) {
  log(`bench:scale failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
}
