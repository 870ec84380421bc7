// `/flink logs` end to end (docs/commands.md#flink-logs): the real Bolt app reads the simulated cluster's pods and their
// logs through @kubernetes/client-node, answers privately with the pod, the container and the masked lines; refuses
// users outside logs.allowedFor before reading anything, and out-of-range --lines before any call.
import { describe, expect, it } from 'vitest';
import type { RequestInfo } from '@flink-chatops/sim/kube/server';
import { PLANTED_SECRETS } from '@flink-chatops/sim/kube/pod-logs';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { USERS, testPolicy, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';

const bots = useBotEnvs();

async function ask(e: BotEnv, text: string, user: string = USERS.alice) {
  const sent = await e.command(text, user);
  expect(sent.status).toBe(200);
  const reply = await sent.reply();
  return { ...reply, all: JSON.stringify(reply.body) };
}

/** The pods requests the simulated API server answered while `run` ran. */
async function podRequests<T>(run: () => Promise<T>): Promise<{ result: T; seen: RequestInfo[] }> {
  const seen: RequestInfo[] = [];
  const stop = bots.cluster.server.onRequest((info) => {
    if (info.resource === 'pods') seen.push(info);
  });
  try {
    return { result: await run(), seen };
  } finally {
    stop();
  }
}

const jobManager = (namespace: string, app: string) =>
  bots.cluster.pods.list(namespace, `app=${app},component=jobmanager`)[0]?.metadata.name ?? '';

/** A job of its own in streaming-dev (anyone may read logs there): no checkpointing, so its log stays short. */
async function probe(name: string, conf: Record<string, unknown> = {}): Promise<string> {
  if (!bots.cluster.store.get('flinkdeployments', 'streaming-dev', name))
    bots.cluster.store.create('flinkdeployments', deployment(name, 'streaming-dev', { conf }));
  await waitStable(bots.cluster.store, 'streaming-dev', name);
  return eventually(`${name}'s JobManager pod`, () => jobManager('streaming-dev', name));
}

describe('/flink logs', () => {
  it("the JobManager's last N lines, privately, with the pod and container named; the read carried tailLines", async () => {
    const e = await bots.start();
    const pod = jobManager('streaming-prod', 'orders');
    expect(pod).toMatch(/^orders-[a-z0-9]{10}-[a-z0-9]{5}$/);
    const { result: reply, seen } = await podRequests(() => ask(e, 'logs streaming-prod/orders --lines 7'));
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.all).toContain(pod);
    expect(reply.all).toContain('flink-main-container');
    expect(reply.all).toContain('Logs of streaming-prod/orders — JobManager');
    const code = /```\\n([\s\S]*?)\\n```/.exec(reply.all)?.[1] ?? '';
    expect(code.split('\\n')).toHaveLength(7);
    expect(code).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARN|ERROR) /);
    const read = seen.find((s) => s.subresource === 'log');
    expect(read).toMatchObject({ verb: 'get', name: pod, namespace: 'streaming-prod' });
    expect(read?.query).toMatchObject({ tailLines: '7', container: 'flink-main-container' });
    expect(seen.find((s) => s.subresource === undefined)?.query?.labelSelector).toBe('app=orders,component=jobmanager');
    expect(e.sim.messages(e.channel)).toHaveLength(0);
  });

  it("--tm 1 reads TaskManager 1's pod", async () => {
    const e = await bots.start();
    const { result: reply, seen } = await podRequests(() => ask(e, 'logs streaming-prod/orders --tm 1'));
    expect(reply.all).toContain('TaskManager 1');
    expect(reply.all).toContain('orders-taskmanager-1-1');
    expect(reply.all).toContain('Starting TaskManager');
    expect(seen.find((s) => s.subresource === 'log')).toMatchObject({
      name: 'orders-taskmanager-1-1',
      query: { tailLines: '50' },
    });
    const none = await ask(e, 'logs streaming-prod/orders --tm 9');
    expect(none.text).toContain('orders has no TaskManager 9 in streaming-prod (running: 1, 2)');
  });

  it('the planted secrets are masked, a redact pattern hides whole lines, and --grep searches the masked text', async () => {
    const policy = (channel: string) => ({
      ...testPolicy(channel),
      logs: { redact: ['JobDispatcherLeaderProcess'] },
    });
    const e = await bots.start({ policy });
    await probe('logs-probe');
    const reply = await ask(e, 'logs streaming-dev/logs-probe --lines 500', USERS.bob);
    expect(reply.all).toContain('Starting KubernetesApplicationClusterEntrypoint');
    expect(reply.all).not.toContain(PLANTED_SECRETS.accessKey);
    expect(reply.all).not.toContain(PLANTED_SECRETS.password);
    expect(reply.all).toContain('-Ds3.secret-key=•••');
    expect(reply.all).toContain('password=•••');
    expect(reply.all).not.toContain('Start JobDispatcherLeaderProcess');
    expect(reply.all).toContain("line redacted by the policy's logs.redact");
    const searched = await ask(e, `logs streaming-dev/logs-probe --grep ${PLANTED_SECRETS.password}`, USERS.bob);
    expect(searched.all).toContain('No line containing');
    const grep = await ask(e, 'logs streaming-dev/logs-probe --grep "switched from state"', USERS.bob);
    expect(grep.all).toMatch(/switched from state CREATED to RUNNING/);
    expect(grep.all).toContain('searched in the last');
  });

  it('a 1 MB line is read with limitBytes, answered cut at 512 KB, and the JSON secret before it is masked', async () => {
    const e = await bots.start();
    // Flink logs every configuration property as it starts: one holds JSON with a password, one a megabyte.
    await probe('logs-huge', {
      'app.settings': '{"user":"flink","password":"json-s3cret-9"}',
      'app.payload': 'x'.repeat(1_048_576),
    });
    const { result: reply, seen } = await podRequests(() =>
      ask(e, 'logs streaming-dev/logs-huge --lines 500', USERS.bob),
    );
    expect(reply.all).not.toContain('json-s3cret-9');
    expect(seen.find((s) => s.subresource === 'log')?.query).toMatchObject({ tailLines: '500', limitBytes: '524288' });
    expect(reply.all).toContain(
      'Loading configuration property: app.settings, {\\"user\\":\\"flink\\",\\"password\\":•••}',
    );
    expect(reply.all).toContain('cut at 512 KB: the lines asked for hold more than that');
    expect(reply.all).toMatch(/app\.payload, x{800,}… \(cut\)/);
    expect(reply.all.length).toBeLessThan(60_000);
  });

  it('an 8 KB line of secret-named runs is cut before masking, answered, and the next command answered too', async () => {
    const e = await bots.start();
    await probe('logs-runs', { 'app.trace': 'key.'.repeat(2_048) });
    const reply = await ask(e, 'logs streaming-dev/logs-runs --lines 500', USERS.bob);
    expect(reply.all).toMatch(/app\.trace, (key\.){100,}[a-z.]*… \(cut\)/);
    const other = await ask(e, 'logs streaming-dev/logs-runs --lines 1', USERS.bob);
    expect(other.all).toContain('Logs of streaming-dev/logs-runs');
  });

  it('a user outside logs.allowedFor is refused naming the groups, and nothing is read', async () => {
    const e = await bots.start();
    const { result: reply, seen } = await podRequests(() => ask(e, 'logs streaming-prod/orders', USERS.bob));
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.text).toContain('you may not read logs in streaming-prod: only members of oncall and leads may');
    expect(seen).toEqual([]);
  });

  it('--lines 9999 is refused clearly before any call', async () => {
    const e = await bots.start();
    const { result: reply, seen } = await podRequests(() => ask(e, 'logs streaming-prod/orders --lines 9999'));
    expect(reply.text).toContain('--lines must be a whole number from 1 to 500; got "9999"');
    expect(seen).toEqual([]);
  });

  it('a 403 on pods/log names the pod-logs component', async () => {
    const e = await bots.start();
    const fault = bots.cluster.server.faults.inject({ kind: 'error-403', resource: 'pods', subresource: 'log' });
    try {
      const reply = await ask(e, 'logs streaming-prod/orders');
      expect(reply.text).toContain(
        'the bot may not read pod logs in streaming-prod: enable the `pod-logs` component (docs/deployment.md#pod-logs)',
      );
    } finally {
      bots.cluster.server.faults.clear();
    }
    expect(fault).toBeGreaterThan(0);
  });

  it("a session job: its session cluster's JobManager, and the answer says so", async () => {
    const e = await bots.start();
    const reply = await ask(e, 'logs sessionjob:streaming-prod/sessionjob-etl --lines 5');
    expect(reply.all).toContain(jobManager('streaming-prod', 'session-cluster'));
    expect(reply.all).toContain('runs on session cluster session-cluster');
  });
});
