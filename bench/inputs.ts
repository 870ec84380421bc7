// Benchmark of the bot's bounded inputs (docs/deep-verification.md#bounded-answers, docs/commands.md#flink-logs): the
// event-loop time `/flink logs` spends masking and rendering a 1 MB log line, and the time a Flink REST read spends on
// a 32 MB answer through the real client-node, against an API server in a worker thread (its own event loop, so only
// the bot's side is counted). Target: under 100 ms each.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { KubeConfig } from '@kubernetes/client-node';
import type { LogsView } from '../src/app/views.js';
import { maskedLines } from '../src/domain/kit/logs/mask.js';
import { compileRedact } from '../src/domain/kit/policy/logs.js';
import { ClientNodeFlinkRest, type RestResult } from '../src/kube/flink-rest.js';
import { renderLogs } from '../src/slack/blocks/logs.js';

const MB = 1024 * 1024;
const TARGET_MS = 100;

/** Lines `/flink logs` may meet: a record quoted in an exception, secret-named runs, a JSON secret, schemes. */
const SHAPES: Record<string, string> = {
  'quoted record': `Caused by: java.io.IOException: bad record {"password":"hunter2","data":"${'x'.repeat(MB)}"}`,
  'secret-named runs': `ERROR ${'key.'.repeat(MB / 4)}`,
  'URL schemes': 'a.b-c+d://x:'.repeat(MB / 12),
  'JWT starts': 'eyJ-eyJ-'.repeat(MB / 8),
};

function logsView(line: string): LogsView {
  const lines = maskedLines(['INFO starting', line, 'INFO done'], {
    redact: compileRedact(['customer-\\d+', 'IBAN']),
    limit: 50,
  });
  return {
    target: { kind: 'FlinkDeployment', namespace: 'bench', name: 'orders' },
    cluster: 'orders',
    pod: 'orders-0',
    container: 'flink-main-container',
    role: { kind: 'jobmanager' },
    lines,
    requested: 50,
    read: 3,
    masked: 1,
    notes: [],
  };
}

function benchLogLines(): void {
  for (const [shape, line] of Object.entries(SHAPES)) {
    const start = performance.now();
    const message = renderLogs(logsView(line), { now: Date.now(), command: '/flink' });
    const ms = performance.now() - start;
    const size = JSON.stringify(message).length;
    console.log(
      `logs: a ${(line.length / MB).toFixed(1)} MB line (${shape}) masked and rendered in ${ms.toFixed(1)} ms of event-loop time` +
        ` → ${size} characters of answer ${ms < TARGET_MS ? 'ok' : `OVER ${TARGET_MS} ms`}`,
    );
  }
}

/** An API server whose service proxy answers with `bytes` of JSON, chunked or with a Content-Length (`/warm`: `{}`). */
const SERVER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const body = Buffer.from('{"jid":"' + 'a'.repeat(workerData.bytes - 10) + '"}');
http.createServer((req, res) => {
  if (req.url.includes('warm')) return res.end('{}');
  const chunked = req.url.includes('chunked');
  res.writeHead(200, chunked ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json', 'Content-Length': body.length });
  if (!chunked) return res.end(body);
  let at = 0;
  const more = () => { while (at < body.length) { const part = body.subarray(at, at += 65536); if (!res.write(part)) return res.once('drain', more); } res.end(); };
  res.on('error', () => {});
  more();
}).listen(0, '127.0.0.1', function () { parentPort.postMessage(this.address().port); });
`;

/** The answer a body over the cap must give: too-large, not read whole nor refused unread. */
const cut = (answer: RestResult): boolean => !answer.ok && answer.reason === 'too-large';

async function benchRest(bytes: number): Promise<void> {
  const server = new Worker(SERVER, { eval: true, workerData: { bytes } });
  const port = await new Promise<number>((resolve) => server.once('message', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'bench', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench', token: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const rest = new ClientNodeFlinkRest(kubeConfig, { timeoutMs: 30_000 });
  await rest.get('bench', 'orders', '/warm'); // client-node's first call compiles and loads what every later one reuses
  for (const how of ['content-length', 'chunked', 'content-length', 'chunked']) {
    const before = performance.eventLoopUtilization();
    const start = performance.now();
    // A real job's path: the path check refuses anything else before a request is sent.
    const answer = await rest.get('bench', 'orders', `/jobs/${'b'.repeat(32)}/${how}`);
    const wall = performance.now() - start;
    const busy = performance.eventLoopUtilization(before).active;
    const said = answer.ok ? 'read whole' : `${answer.reason}: ${answer.message}`;
    console.log(
      `rest: a ${bytes / MB} MB answer (${how}) took ${busy.toFixed(1)} ms of event-loop time (${wall.toFixed(1)} ms wall)` +
        ` → ${said} ${busy >= TARGET_MS ? `OVER ${TARGET_MS} ms` : cut(answer) ? 'ok' : 'NOT CUT'}`,
    );
  }
  await server.terminate();
}

benchLogLines();
await benchRest(32 * MB);
