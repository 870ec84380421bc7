// The egress proxy rule (src/slack-client/proxy.ts): NO_PROXY matching, which proxy a URL takes, the agent's routing
// through a local CONNECT proxy (HTTP, a second proxy, a WebSocket as Socket Mode opens it, response_url posts, the
// WebClient), credentials sent as Proxy-Authorization and never shown.
import { once } from 'node:events';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createLogger } from '../../../src/log.js';
import { startSimSlack } from '@flink-chatops/sim/slack-api';
import { createBotApp } from '../../../src/slack/app.js';
import { FetchResponder } from '../../../src/slack/slack-ports.js';
import { clientOptions, createSlackClient, slackErrorCode } from '../../../src/slack-client/client.js';
import {
  noProxyMatcher,
  postJson,
  proxyFor,
  redactProxyUrl,
  slackAgent,
  SlackProxyAgent,
  targetOf,
  type ProxyConfig,
} from '../../../src/slack-client/proxy.js';
import { startConnectProxy, type TestProxy } from '../../support/connect-proxy.js';

describe('NO_PROXY', () => {
  const cases: [string, string, number, boolean][] = [
    ['', 'slack.com', 443, false],
    ['*', 'slack.com', 443, true],
    [' * ', 'anything', 1, true],
    ['slack.com', 'slack.com', 443, true],
    ['slack.com', 'wss-primary.slack.com', 443, true],
    ['slack.com', 'notslack.com', 443, false],
    ['.slack.com', 'api.slack.com', 443, true],
    ['.slack.com', 'slack.com', 443, false],
    ['*.slack.com', 'api.slack.com', 443, true],
    ['*.slack.com', 'slack.com', 443, false],
    ['SLACK.com', 'Api.Slack.COM', 443, true],
    ['slack.com.', 'api.slack.com', 443, true],
    ['example.org, slack.com', 'slack.com', 443, true],
    ['example.org,,', 'slack.com', 443, false],
    ['slack.com:443', 'slack.com', 443, true],
    ['slack.com:443', 'slack.com', 8443, false],
    ['127.0.0.1', '127.0.0.1', 8080, true],
    ['127.0.0.1:8080', '127.0.0.1', 8080, true],
    ['127.0.0.1:8080', '127.0.0.1', 9090, false],
    ['127.0.0.2', '127.0.0.1', 8080, false],
    ['10.0.0.0/8', '10.20.30.40', 443, true],
    ['10.0.0.0/8', '11.0.0.1', 443, false],
    ['10.0.0.0/8', 'ten.example', 443, false],
    ['::1', '[::1]', 80, true],
    ['[::1]:80', '::1', 80, true],
    ['[::1]:80', '::1', 81, false],
    ['fd00::/8', 'fd12::1', 443, true],
    // Loopback is not special: unless listed, it takes the proxy.
    ['slack.com', '127.0.0.1', 80, false],
    ['slack.com', 'localhost', 80, false],
  ];
  it.each(cases)('NO_PROXY=%j bypasses %s:%d: %s', (noProxy, host, port, bypass) => {
    expect(noProxyMatcher(noProxy)(host, port)).toBe(bypass);
  });
});

describe('which proxy a URL takes', () => {
  const both: ProxyConfig = {
    https: 'http://secure-proxy:3128',
    http: 'http://plain-proxy:3128',
    noProxy: 'internal.example',
  };
  it('HTTPS_PROXY for https: and wss:, HTTP_PROXY for http: and ws:, NO_PROXY for neither', () => {
    expect(proxyFor('https://slack.com/api/', both)).toBe('http://secure-proxy:3128');
    expect(proxyFor('wss://wss-primary.slack.com/link', both)).toBe('http://secure-proxy:3128');
    expect(proxyFor('http://127.0.0.1:3000/api/', both)).toBe('http://plain-proxy:3128');
    expect(proxyFor('ws://127.0.0.1:3000/link', both)).toBe('http://plain-proxy:3128');
    expect(proxyFor('https://hooks.internal.example/x', both)).toBeUndefined();
  });
  it('neither falls back to the other; no proxy config means direct', () => {
    expect(proxyFor('http://127.0.0.1/', { https: 'http://p:1', http: undefined, noProxy: undefined })).toBeUndefined();
    expect(
      proxyFor('https://slack.com/', { https: undefined, http: 'http://p:1', noProxy: undefined }),
    ).toBeUndefined();
    expect(proxyFor('https://slack.com/', undefined)).toBeUndefined();
    expect(slackAgent({ https: undefined, http: undefined, noProxy: 'x' })).toBeUndefined();
  });
  it('default ports by scheme', () => {
    expect(targetOf('https://slack.com/api')).toEqual({ host: 'slack.com', port: 443, secure: true });
    expect(targetOf('ws://[::1]/x')).toEqual({ host: '::1', port: 80, secure: false });
  });
  it('one agent per proxy config, shared by every client built from it', () => {
    const config: ProxyConfig = { https: 'http://p:1', http: undefined, noProxy: undefined };
    expect(slackAgent(config)).toBe(slackAgent(config));
    expect(clientOptions({ slack: { apiUrl: 'https://slack.com/api/' } as never, proxy: config }).agent).toBe(
      slackAgent(config),
    );
    expect(clientOptions({ slack: { apiUrl: 'https://slack.com/api/' } as never }).agent).toBeUndefined();
  });
});

describe('credentials', () => {
  it('never show in the agent, its JSON or its inspection', () => {
    const agent = new SlackProxyAgent({
      https: 'http://ops:hunter2@proxy.example:3128',
      http: 'http://ops:hunter3@proxy.example:3129',
      noProxy: undefined,
    });
    for (const shown of [
      JSON.stringify(agent),
      inspect(agent),
      inspect(agent, { showHidden: true, depth: 5 }),
      JSON.stringify({ config: { httpAgent: agent } }),
    ]) {
      expect(shown).not.toContain('hunter');
    }
    expect(JSON.stringify(agent)).toContain('proxy.example:3128');
    expect(redactProxyUrl('http://ops:hunter2@proxy.example:3128')).toBe('http://***@proxy.example:3128/');
    expect(redactProxyUrl('http://proxy.example:3128')).toBe('http://proxy.example:3128/');
    agent.destroy();
  });
});

describe('through a local CONNECT proxy', () => {
  const closers: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function proxy(credentials?: string): Promise<TestProxy> {
    const p = await startConnectProxy(credentials === undefined ? {} : { credentials });
    closers.push(() => p.close());
    return p;
  }

  async function origin(): Promise<{ server: Server; port: number; peers: number[] }> {
    const peers: number[] = [];
    const server = createServer((req, res) => {
      peers.push(req.socket.remotePort ?? -1);
      res.end('hello');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { server, port: (server.address() as AddressInfo).port, peers };
  }

  function fetchText(url: string, agent: SlackProxyAgent): Promise<string> {
    return new Promise((resolve, reject) => {
      get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
  }

  it('tunnels http: targets through HTTP_PROXY with Proxy-Authorization, and NO_PROXY hosts go direct', async () => {
    const p = await proxy('ops:p@ss');
    const o = await origin();
    const agent = new SlackProxyAgent({
      https: undefined,
      http: `http://ops:${encodeURIComponent('p@ss')}@127.0.0.1:${p.port}`,
      noProxy: `localhost:${o.port}`,
    });
    closers.push(() => agent.destroy());
    expect(await fetchText(`http://127.0.0.1:${o.port}/a`, agent)).toBe('hello');
    expect(await fetchText(`http://127.0.0.1:${o.port}/b`, agent)).toBe('hello');
    expect(p.tunnels).toEqual([
      expect.objectContaining({
        target: `127.0.0.1:${o.port}`,
        accepted: true,
        authorization: `Basic ${Buffer.from('ops:p@ss').toString('base64')}`,
      }),
    ]);
    expect(o.peers.every((port) => p.outgoingPorts.has(port))).toBe(true);
    // localhost is listed (with the port): it bypasses; 127.0.0.1 is not the same entry.
    expect(await fetchText(`http://localhost:${o.port}/c`, agent)).toBe('hello');
    expect(p.tunnels).toHaveLength(1);
    expect(p.outgoingPorts.has(o.peers.at(-1) ?? -1)).toBe(false);
  });

  it('sends http: through HTTP_PROXY even when HTTPS_PROXY is another proxy', async () => {
    const secure = await proxy();
    const plain = await proxy();
    const o = await origin();
    const agent = new SlackProxyAgent({ https: secure.url, http: plain.url, noProxy: undefined });
    closers.push(() => agent.destroy());
    expect(await fetchText(`http://127.0.0.1:${o.port}/`, agent)).toBe('hello');
    expect(plain.tunnels).toHaveLength(1);
    expect(secure.tunnels).toHaveLength(0);
  });

  it('carries a WebSocket (as Socket Mode opens it with clientOptions.agent)', async () => {
    const p = await proxy();
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    closers.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const peers: number[] = [];
    wss.on('connection', (socket, req) => {
      peers.push(req.socket.remotePort ?? -1);
      socket.on('message', (m: Buffer) => socket.send(`echo ${m.toString()}`));
    });
    const agent = new SlackProxyAgent({ https: undefined, http: p.url, noProxy: undefined });
    closers.push(() => agent.destroy());
    const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link`, { agent });
    await once(ws, 'open');
    ws.send('hi');
    const [reply] = (await once(ws, 'message')) as [Buffer];
    expect(reply.toString()).toBe('echo hi');
    ws.close();
    expect(p.tunnels).toHaveLength(1);
    expect(peers.every((port) => p.outgoingPorts.has(port))).toBe(true);
  });

  it('the WebClient and response_url posts go through it; a refused tunnel fails the call rather than going around', async () => {
    const p = await proxy('ops:right');
    const sim = await startSimSlack({ botToken: 'xoxb-proxy' });
    closers.push(() => sim.close());
    const good: ProxyConfig = { https: undefined, http: `http://ops:right@127.0.0.1:${p.port}`, noProxy: undefined };
    const client = createSlackClient(
      { slack: { botToken: 'xoxb-proxy', apiUrl: sim.apiUrl } as never, proxy: good },
      { logger: createLogger('silent') },
    );
    expect((await client.auth.test()).ok).toBe(true);
    await new FetchResponder(2_000, slackAgent(good)).respond(sim.responseUrl('r1'), { text: 'through the proxy' });
    expect(sim.responses.map((r) => r.id)).toEqual(['r1']);
    expect(p.tunnels.length).toBeGreaterThan(0);
    expect(p.tunnels.every((t) => t.accepted)).toBe(true);

    const wrong: ProxyConfig = { https: undefined, http: `http://ops:wrong@127.0.0.1:${p.port}`, noProxy: undefined };
    const refused = createSlackClient(
      { slack: { botToken: 'xoxb-proxy', apiUrl: sim.apiUrl } as never, proxy: wrong },
      { logger: createLogger('silent') },
    );
    const error = await refused.auth.test().catch((e: unknown) => e);
    expect(slackErrorCode(error)).toBe('http_error_407');
    await expect(
      new FetchResponder(2_000, slackAgent(wrong)).respond(sim.responseUrl('r2'), { text: 'x' }),
    ).rejects.toThrow(/answered 407/);
    expect(sim.calls).toHaveLength(1);
    expect(sim.responses).toHaveLength(1);
    slackAgent(good)?.destroy();
    slackAgent(wrong)?.destroy();
  });

  it('postJson without an agent posts directly, with a deadline', async () => {
    const held = createServer(() => undefined);
    held.listen(0, '127.0.0.1');
    await once(held, 'listening');
    closers.push(() => {
      held.closeAllConnections();
      held.close();
    });
    await expect(
      postJson(`http://127.0.0.1:${(held.address() as AddressInfo).port}/`, {}, { timeoutMs: 100 }),
    ).rejects.toThrow(/abort|timeout/i);
  });
});

describe('Bolt', () => {
  it('hands the agent to its client and, in Socket Mode, to the socket client (apps.connections.open and the WebSocket)', () => {
    const proxy: ProxyConfig = { https: 'http://proxy.example:3128', http: undefined, noProxy: undefined };
    const agent = slackAgent(proxy);
    const app = createBotApp({
      config: {
        slack: {
          botToken: 'xoxb-x',
          appToken: 'xapp-x',
          socketMode: true,
          apiUrl: 'https://slack.com/api/',
          command: '/flink',
        } as never,
        port: 0,
        proxy,
      },
      identity: { botId: 'B1', botUserId: 'U1' },
      handlers: { logger: createLogger('silent') } as never,
      logger: createLogger('silent'),
    });
    // Bolt's internals (4.7): the app's WebClient options, the SocketModeClient's options, used for its WebClient
    // and as the WebSocket's httpAgent.
    const internals = app as unknown as {
      clientOptions: { agent?: unknown };
      receiver: { client: { webClientOptions: { agent?: unknown } } };
    };
    expect(internals.clientOptions.agent).toBe(agent);
    expect(internals.receiver.client.webClientOptions.agent).toBe(agent);
  });
});
