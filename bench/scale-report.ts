// The printed result of bench/scale.ts: one table of figures against their targets, then the details behind them.
import type { RequestStatsSnapshot } from '@flink-chatops/sim/kube/faults';
import { summarize, type Summary } from './scale-load.js';
import { sumBy, type Metrics } from './scale-procs.js';
import type { ListPhase } from './scale.js';

export interface Results {
  params: { perCluster: number; ops: number; burst: number; lists: number };
  setup: Record<string, number>;
  ops: {
    ours: number[];
    bare: number[];
    roundRatios: number[];
    ops: string[];
    seconds: number;
    outcomes: Map<string, number>;
    slackLagSeconds: number;
  };
  /** Each API server's requests during the operations phase. */
  kube: { name: string; stats: RequestStatsSnapshot }[];
  /** … and during the list phase. */
  listKube: { name: string; stats: RequestStatsSnapshot }[];
  slackBefore: Record<string, number>;
  slackAfter: Record<string, number>;
  metricsBefore: Map<string, Metrics>;
  metricsAfter: Map<string, Metrics>;
  list: ListPhase;
  rss: { name: string; metrics: Metrics; peak: number | undefined }[];
}

const TARGET = { ackRatio: 1.2, listP99Ms: 500, rssMb: 250, kubePerOp: 3 };
const MB = 1024 * 1024;
const ms = (v: number): string => `${v.toFixed(1)} ms`;
const verdict = (ok: boolean): string => (ok ? 'PASS' : 'ABOVE TARGET');
const out = (line = ''): void => void process.stdout.write(`${line}\n`);

function table(rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const [n, row] of rows.entries()) {
    out(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
    if (n === 0) out(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

/** Requests of the operations phase, API servers summed: watch streams, Flink REST (service proxy), the rest. */
function kubeSplit(kube: Results['kube']) {
  const all = new Map<string, number>();
  for (const { stats } of kube) for (const [k, v] of Object.entries(stats.requests)) all.set(k, (all.get(k) ?? 0) + v);
  const sum = (pick: (k: string) => boolean) => [...all].filter(([k]) => pick(k)).reduce((s, [, v]) => s + v, 0);
  const watch = sum((k) => k.startsWith('watch '));
  const rest = sum((k) => k.includes('services/proxy'));
  return {
    all,
    watch,
    rest,
    api: sum((k) => !k.startsWith('watch ') && !k.includes('services/proxy')),
    lists: sum((k) => k.startsWith('list ')),
  };
}

/** Kubernetes calls each role's processes counted (kube_api_calls_total), operations phase. */
function kubeByRole(before: Map<string, Metrics>, after: Map<string, Metrics>): Map<string, Map<string, number>> {
  const roles = new Map<string, Map<string, number>>();
  for (const [name, samples] of after) {
    const role = name.startsWith('bot') ? 'bots' : 'workers';
    const key = (l: Record<string, string>) => `${l.method} ${l.resource}`;
    const was = sumBy(before.get(name) ?? new Map(), 'flink_chatops_kube_api_calls_total', key);
    const into = roles.get(role) ?? new Map<string, number>();
    for (const [k, v] of sumBy(samples, 'flink_chatops_kube_api_calls_total', key))
      into.set(k, (into.get(k) ?? 0) + v - (was.get(k) ?? 0));
    roles.set(role, into);
  }
  return roles;
}

/**
 * Per bot, from the operations phase to the end of the settling (prom-client's default metrics): the longest
 * event-loop delay (reset at each scrape) and the garbage collections, what an ack behind them waits for.
 */
function botPauses(before: Map<string, Metrics>, after: Map<string, Metrics>): string {
  /** The growth of `name`'s samples whose labels `pick` keeps (sumBy groups them under one key). */
  const grown = (bot: string, name: string, pick: (l: Record<string, string>) => boolean) => {
    const sum = (m: Metrics | undefined) =>
      sumBy(m ?? new Map(), name, (l) => (pick(l) ? 'kept' : 'other')).get('kept');
    return (sum(after.get(bot)) ?? 0) - (sum(before.get(bot)) ?? 0);
  };
  const major = (l: Record<string, string>) => l.kind === 'major';
  return [...after.keys()]
    .filter((bot) => bot.startsWith('bot'))
    .map((bot) => {
      const lagMs = (after.get(bot)?.get('nodejs_eventloop_lag_max_seconds') ?? 0) * 1000;
      const majors = grown(bot, 'nodejs_gc_duration_seconds_count', major);
      const majorMs = grown(bot, 'nodejs_gc_duration_seconds_sum', major) * 1000;
      const long =
        grown(bot, 'nodejs_gc_duration_seconds_count', () => true) -
        grown(bot, 'nodejs_gc_duration_seconds_bucket', (l) => l.le === '0.01');
      return `${bot} longest delay ${lagMs.toFixed(0)} ms, ${majors} major GCs (${majorMs.toFixed(0)} ms), ${long} GC pauses ≥ 10 ms`;
    })
    .join('; ');
}

const total = (m: Map<string, number>): number => [...m.values()].reduce((s, v) => s + v, 0);
const breakdown = (m: Map<string, number> | [string, number][], per: number): string =>
  [...m]
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / per).toFixed(2)}`)
    .join(', ');

function slackDelta(r: Results): Map<string, number> {
  return new Map(
    Object.entries(r.slackAfter)
      .map(([k, v]) => [k, v - (r.slackBefore[k] ?? 0)] as [string, number])
      .filter(([, v]) => v > 0),
  );
}

function summaryRows(r: Results, ours: Summary, bare: Summary, list: Summary): string[][] {
  const n = r.ops.ops.length;
  const kube = kubeSplit(r.kube);
  const slack = total(slackDelta(r));
  const pooled = ours.p99 / bare.p99;
  const rows = [
    ['figure', 'value', 'target', 'verdict'],
    [
      `ack p99, ${n} operations over 3 bots`,
      `${ms(ours.p99)} (bare Bolt ${ms(bare.p99)})`,
      '< 3 s (Slack)',
      verdict(ours.p99 < 3000),
    ],
    [
      'ack p99 ratio ours / bare Bolt',
      pooled.toFixed(2),
      `≤ ${TARGET.ackRatio.toFixed(2)}`,
      verdict(pooled <= TARGET.ackRatio),
    ],
    [
      `list answer p99 (${list.n} lists, one at a time)`,
      ms(list.p99),
      `≤ ${TARGET.listP99Ms} ms`,
      verdict(list.p99 <= TARGET.listP99Ms),
    ],
  ];
  for (const p of r.rss) {
    const now = (p.metrics.get('process_resident_memory_bytes') ?? NaN) / MB;
    const peak = p.peak === undefined ? now : p.peak / MB;
    rows.push([
      `RSS ${p.name} (end / peak)`,
      `${now.toFixed(0)} / ${peak.toFixed(0)} MB`,
      `≤ ${TARGET.rssMb} MB`,
      verdict(Math.max(now, peak) <= TARGET.rssMb),
    ]);
  }
  const workers = kubeByRole(r.metricsBefore, r.metricsAfter).get('workers') ?? new Map<string, number>();
  const workerApi = total(new Map([...workers].filter(([k]) => !k.includes('services/proxy')))) / n;
  rows.push([
    'Kubernetes requests / operation, workers',
    workerApi.toFixed(2),
    `≤ ${TARGET.kubePerOp} beyond shared watches`,
    verdict(workerApi <= TARGET.kubePerOp),
  ]);
  rows.push(['Kubernetes requests / operation, bots + workers', (kube.api / n).toFixed(2), '(reported)', '-']);
  rows.push(['Slack Web API calls / operation', (slack / n).toFixed(2), '(reported)', '-']);
  return rows;
}

function details(r: Results, ours: Summary, bare: Summary): void {
  const n = r.ops.ops.length;
  const kube = kubeSplit(r.kube);
  out(
    `ack: ours n=${ours.n} p50 ${ms(ours.p50)} p99 ${ms(ours.p99)} max ${ms(ours.max)}; bare Bolt n=${bare.n} p50 ${ms(bare.p50)} p99 ${ms(bare.p99)} max ${ms(bare.max)}`,
  );
  out(
    `     per-round p99 ratios (${r.params.burst} concurrent commands per round): ${r.ops.roundRatios.map((x) => x.toFixed(2)).join(' ')}`,
  );
  out(`     bots' event loops: ${botPauses(r.metricsBefore, r.metricsAfter)}`);
  out(
    `operations: ${n} (${[...r.ops.outcomes].map(([s, c]) => `${c} ${s}`).join(', ')}) in ${r.ops.seconds.toFixed(1)} s from the first command to the last outcome`,
  );
  out(
    `Kubernetes, operations phase, API servers summed: ${kube.api} requests counted (${(kube.api / n).toFixed(2)}/op, of them ${kube.lists} list),`,
  );
  out(
    `  not counted: ${kube.watch} watch streams (re)opened, ${kube.rest} Flink REST reads through the service proxy (${(kube.rest / n).toFixed(2)}/op)`,
  );
  for (const { name, stats } of r.kube)
    out(
      `  ${name}: ${Object.entries(stats.requests)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  for (const [role, calls] of kubeByRole(r.metricsBefore, r.metricsAfter))
    out(`  ${role} (their kube_api_calls_total): ${(total(calls) / n).toFixed(2)}/op — ${breakdown(calls, n)}`);
  const slack = slackDelta(r);
  out(
    `Slack Web API calls, operations phase: ${total(slack)} (${(total(slack) / n).toFixed(2)}/op) — ${breakdown(slack, n)}`,
  );
  const posts = [...slack].reduce(
    (sum, [method, count]) => (method.startsWith('chat.postMessage') ? sum + count : sum),
    0,
  );
  out(
    `  Slack posts per operation: ${(posts / n).toFixed(2)} (card, thread replies, digests; target ≤ 3 for an uneventful one), card edits ${((slack.get('chat.update') ?? 0) / n).toFixed(2)}/op`,
  );
  out(
    `  backlog: the last of them arrived ~${r.ops.slackLagSeconds.toFixed(0)} s after the last outcome (target ≤ 30 s; posts are paced at 1/s per channel, installation-wide; 3 channels here)`,
  );
  out(
    `  (the simulator ran without rate limits; at Slack's chat.update tier of ~50/min, ${slack.get('chat.update') ?? 0} card edits take ≥ ${((slack.get('chat.update') ?? 0) / 50).toFixed(1)} min per workspace)`,
  );
  const l = r.list;
  const listRequests = r.listKube.reduce((s, { stats }) => s + stats.total, 0);
  const ls = summarize(l.answers);
  out(
    `list: answer p50 ${ms(ls.p50)} p99 ${ms(ls.p99)} max ${ms(ls.max)} (send → response_url POST at the simulated Slack)`,
  );
  out(
    `  answer ${l.bytes} bytes, ${l.blocks} blocks, "${l.text}"; ${(listRequests / l.sent).toFixed(1)} Kubernetes requests per list; ack p99 ${ms(summarize(l.acks).p99)}`,
  );
  if (l.errors.length > 0)
    out(`  the simulated Slack refused ${l.errors.length} answers: ${[...new Set(l.errors)].join(', ')}`);
  out(
    `set-up: ${Object.entries(r.setup)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join('; ')}`,
  );
}

export function printReport(r: Results): void {
  const ours = summarize(r.ops.ours);
  const bare = summarize(r.ops.bare);
  const list = summarize(r.list.answers);
  out();
  out(
    `bench:scale — 3 simulated clusters × ${r.params.perCluster} FlinkDeployments, 3 bots + 3 workers (flink-chatops serve, built as in the image), ${r.params.ops} operations`,
  );
  out();
  table(summaryRows(r, ours, bare, list));
  out();
  details(r, ours, bare);
  out();
  out(
    'Kubernetes requests / operation: the shared watches (list + watch per namespace and kind) were opened by one warm-up',
  );
  out(
    'operation per cluster and namespace before anything was counted. "workers": the calls the worker processes counted',
  );
  out(
    '(kube_api_calls_total delta) from the first operation command to the last Slack call, Flink REST reads excluded, as',
  );
  out(
    'bench:worker counts; "bots + workers": every request the three API servers answered in that window except watch',
  );
  out("streams and Flink REST reads (the bots' planning reads included).");
}
