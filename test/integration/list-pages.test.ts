// `list` in pages (docs/commands.md#paging-through-list), end to end: the real Bolt app and client-node against three
// simulated API servers holding 2,000 resources each; typing `list` and clicking Next through every page shows each
// resource exactly once, every cluster says what it shows of how many, and every message passes Slack's validation.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSimApiServer, validateSpec, type SimApiServer } from '@flink-chatops/sim/kube/server';
import { SimStore } from '@flink-chatops/sim/kube/store';
import { validateBlocks } from '@flink-chatops/sim/slack-api';
import { deployment, sessionJob } from '@flink-chatops/sim/testing/sim-resources';
import { LIST_ACTION_IDS } from '../../src/slack/blocks/index.js';
import { SECRET, startBotEnv, USERS, type BotEnv } from '../support/bot-env.js';
import { visibleText } from '../support/blocks.js';
import { blockActionsBody, postSigned } from '../support/slack.js';

const CLUSTERS = ['c1', 'c2', 'c3'];
const NAMESPACES = ['analytics-dev', 'ingest-dev', 'payments-dev', 'streaming-dev'];
/** Per cluster: 475 deployments and 25 session jobs in each of the four namespaces. */
const PER_CLUSTER = 2000;

let dir: string;
let kubeconfigPath: string;
const servers: SimApiServer[] = [];
const open: BotEnv[] = [];

/** Every resource straight into the store (no operator: nothing reconciles them), with the status it would show. */
function fill(store: SimStore): void {
  for (const [n, namespace] of NAMESPACES.entries())
    for (let i = 0; i < PER_CLUSTER / NAMESPACES.length; i++) {
      const name = `job-${String(i).padStart(3, '0')}`;
      const object = i % 20 === 19 ? sessionJob(name, namespace, 'session') : deployment(name, namespace);
      const state = (i + n) % 3 === 0 ? 'SUSPENDED' : 'RUNNING';
      object.status = { lifecycleState: state === 'RUNNING' ? 'STABLE' : 'SUSPENDED', jobStatus: { state } };
      store.create(i % 20 === 19 ? 'flinksessionjobs' : 'flinkdeployments', object);
    }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'list-pages-'));
  for (let i = 0; i < CLUSTERS.length; i++) {
    const store = new SimStore({ validate: validateSpec });
    fill(store);
    servers.push(await startSimApiServer({ store }));
  }
  kubeconfigPath = join(dir, 'kubeconfig');
  const entries = CLUSTERS.map((name, i) => ({ name, url: `http://127.0.0.1:${servers[i]?.port}` }));
  await writeFile(
    kubeconfigPath,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      // client-node talks plain http only with insecure-skip-tls-verify (docs/development.md#the-simulated-cluster).
      clusters: entries.map((c) => ({ name: c.name, cluster: { server: c.url, 'insecure-skip-tls-verify': true } })),
      users: entries.map((c) => ({ name: `${c.name}-user`, user: {} })),
      contexts: entries.map((c) => ({ name: c.name, context: { cluster: c.name, user: `${c.name}-user` } })),
      'current-context': 'c1',
    }),
    { mode: 0o600 },
  );
});
afterEach(async () => {
  for (const env of open.splice(0)) await env.close();
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function bot(): Promise<BotEnv> {
  const env = await startBotEnv(
    { kubeconfigPath },
    {
      policy: (channel) => ({
        version: 1,
        namespaces: NAMESPACES.map((name) => ({ name })),
        channels: { [channel]: { defaultNamespace: 'streaming-dev' } },
      }),
      env: { KUBE_CONTEXTS: CLUSTERS.join(',') },
    },
  );
  open.push(env);
  return env;
}

interface Answer {
  body: Record<string, unknown>;
  blocks: Record<string, unknown>[];
  text: string;
}

const asAnswer = (body: Record<string, unknown>): Answer => {
  const blocks = (body.blocks ?? []) as Record<string, unknown>[];
  return { body, blocks, text: visibleText({ text: String(body.text ?? ''), blocks }) };
};

async function typed(env: BotEnv, text: string): Promise<Answer> {
  return asAnswer((await (await env.command(text)).reply()).body);
}

let clicks = 0;

/** A click on a button of a private (or, `ephemeral: false`, in-channel) answer; the reply to its response_url. */
async function click(env: BotEnv, button: Button, ephemeral = true): Promise<Answer> {
  const id = `list-click-${++clicks}`;
  const form = new URLSearchParams(
    blockActionsBody({
      user: USERS.bob,
      channel: env.channel,
      message_ts: '1700000000.000100',
      action_id: button.action_id,
      value: button.value,
      block_id: 'list_pages',
      response_url: env.sim.responseUrl(id, { channel: env.channel, user: USERS.bob }),
    }),
  );
  const payload = JSON.parse(form.get('payload') ?? '{}') as { container: Record<string, unknown> };
  payload.container.is_ephemeral = ephemeral;
  const res = await postSigned(env.bot.url as string, `payload=${encodeURIComponent(JSON.stringify(payload))}`, SECRET);
  expect(res.status).toBe(200);
  const reply = await env.sim.waitFor(() => env.sim.responses.find((r) => r.id === id), 10_000);
  expect(reply.status).toBe(200);
  return asAnswer(reply.body as Record<string, unknown>);
}

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}

const buttons = (a: Answer): Button[] =>
  a.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements as Button[]);
const nextOf = (a: Answer) => buttons(a).find((b) => b.action_id === LIST_ACTION_IDS.next);

/** The targets a message lists, by the cluster section they are under, and what each section claims. */
function read(a: Answer): { targets: string[]; claims: { cluster: string; first: number; last: number }[] } {
  const targets: string[] = [];
  const claims: { cluster: string; first: number; last: number }[] = [];
  for (const block of a.blocks) {
    const texts =
      block.type === 'context'
        ? (block.elements as { text: string }[]).map((e) => e.text)
        : block.type === 'section'
          ? [(block.text as { text: string }).text]
          : [];
    for (const text of texts) {
      const claim = /^\*(c\d)\* · showing ([\d,]+)–([\d,]+) of [\d,]+ · page \d+ of \d+$/.exec(text);
      if (claim) {
        const [, cluster = '', first = '', last = ''] = claim;
        claims.push({ cluster, first: Number(first.replace(',', '')), last: Number(last.replace(',', '')) });
      }
      for (const m of text.matchAll(/^• `((?:sessionjob:)?c\d\/[a-z-]+\/job-\d{3})`/gm)) targets.push(m[1] ?? '');
    }
  }
  return { targets, claims };
}

describe('list over 3 clusters × 2,000 resources', () => {
  it('typing list, then Next through every page: every resource once, each page claims exactly what it shows', async () => {
    const env = await bot();
    const seen = new Map<string, number>();
    let answer = await typed(env, 'list');
    expect(answer.body.response_type).toBe('ephemeral');
    let pages = 0;
    for (;;) {
      pages += 1;
      expect(validateBlocks(answer.blocks)).toEqual({ ok: true });
      const { targets, claims } = read(answer);
      // One cluster a page, its claim the count of its lines; the fallback text never names a bare total.
      expect(claims).toHaveLength(1);
      const [claim] = claims;
      expect(targets).toHaveLength((claim?.last ?? 0) - (claim?.first ?? 0) + 1);
      expect(targets.every((t) => t.replace('sessionjob:', '').startsWith(`${claim?.cluster}/`))).toBe(true);
      expect(String(answer.body.text)).toMatch(/^Flink resources [\d,]+–[\d,]+ of 2,000 in c\d \(page \d+ of \d+\)$/);
      for (const t of targets) seen.set(t, (seen.get(t) ?? 0) + 1);
      const next = nextOf(answer);
      if (next === undefined) break;
      answer = await click(env, next);
      // In place of the private page clicked, privately.
      expect(answer.body).toMatchObject({ response_type: 'ephemeral', replace_original: true });
    }
    expect(pages).toBe(60);
    expect(seen.size).toBe(3 * PER_CLUSTER);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(seen.has('sessionjob:c3/streaming-dev/job-499')).toBe(true);
    expect(seen.has('c2/analytics-dev/job-000')).toBe(true);
  }, 60_000);

  it('--page and --cluster start anywhere; Previous goes back across clusters; bad pages change nothing', async () => {
    const env = await bot();
    const c2 = await typed(env, 'list --cluster c2 --page 1');
    expect(read(c2).claims).toEqual([{ cluster: 'c2', first: 1, last: 100 }]);
    const previous = buttons(c2).find((b) => b.action_id === LIST_ACTION_IDS.previous);
    expect(previous).toBeDefined();
    const c1Last = await click(env, previous as Button);
    expect(read(c1Last).claims).toEqual([{ cluster: 'c1', first: 1901, last: 2000 }]);
    expect(nextOf(c1Last)?.value).toBe(JSON.stringify({ cluster: 'c2', page: 1 }));

    const inDev = await typed(env, 'list streaming-dev --cluster c3 --page last');
    expect(read(inDev).claims).toEqual([{ cluster: 'c3', first: 401, last: 500 }]);
    expect(read(inDev).targets.every((t) => t.includes('/streaming-dev/'))).toBe(true);

    const before = env.sim.messages(env.channel).length;
    for (const [text, message] of [
      ['list --page 21', 'there is no page 21 of cluster c1: it has 20 pages (2,000 resources); nothing was listed'],
      ['list --page 0', '--page takes a page number from 1 to 10000 or `last`; got "0"'],
      ['list --page x', '--page takes a page number from 1 to 10000 or `last`; got "x"'],
      ['list --cluster c9', 'there is no cluster c9: the clusters are c1, c2, c3; nothing was listed'],
    ] as const) {
      const refused = await typed(env, `${text} --public`);
      expect(refused.text).toContain(message);
      expect(refused.body.response_type).toBe('ephemeral');
    }
    expect(env.sim.messages(env.channel)).toHaveLength(before);

    // A button whose page is gone: said privately, the page clicked stays.
    const gone = await click(env, {
      action_id: LIST_ACTION_IDS.next,
      value: '{"cluster":"c1","page":99}',
      text: { text: '' },
    });
    expect(gone.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(gone.text).toContain('there is no page 99 of cluster c1');
  }, 30_000);

  it('status and ops answer within the limits beside 6,000 resources', async () => {
    const env = await bot();
    const status = await typed(env, 'status c2/streaming-dev/job-001');
    expect(validateBlocks(status.blocks)).toEqual({ ok: true });
    expect(status.text).toContain('Status of c2/streaming-dev/job-001');
    const ops = await typed(env, 'ops --limit 100');
    expect(validateBlocks(ops.blocks)).toEqual({ ok: true });
    expect(ops.text).toContain('Recent operations');
  }, 30_000);

  it('a page asked from a public list comes privately, and the channel message stays', async () => {
    const env = await bot();
    const inChannel = await typed(env, 'list --public');
    expect(inChannel.body.response_type).toBe('in_channel');
    const second = await click(env, nextOf(inChannel) as Button, false);
    expect(second.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(read(second).claims).toEqual([{ cluster: 'c1', first: 101, last: 200 }]);
  }, 30_000);
});
