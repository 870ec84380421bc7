// The egress proxy of every Slack call (docs/configuration.md#configuration): one agent decides, per connection,
// whether a Slack URL goes through HTTPS_PROXY / HTTP_PROXY or straight out (NO_PROXY), for the Web API client, Bolt's
// own client, Socket Mode's apps.connections.open and WebSocket, and response_url posts (postJson below, since global
// fetch takes no agent).
//
// The rule (Go's net/http/httpproxy and curl agree on it, except where noted):
// - https: and wss: targets use HTTPS_PROXY; http: and ws: targets use HTTP_PROXY. Neither falls back to the other.
// - NO_PROXY is a comma list, case-insensitive, blanks ignored: `*` bypasses everything; `example.com` matches the
//   host and its subdomains; `.example.com` and `*.example.com` only subdomains (Go; curl also matches the bare
//   host); an IP matches that address, a CIDR (`10.0.0.0/8`) every address in it; `host:port` (`[v6]:port`) matches
//   that port only. Unlike Go, loopback and `localhost` are not bypassed unless listed (curl does the same).
// - Through a proxy every target is tunnelled with CONNECT (https-proxy-agent), http: ones too: a WebSocket needs
//   the tunnel anyway, and one kind of proxy request keeps one rule for the proxy's ACLs. Slack itself is https-only,
//   so plain http targets only occur in the sandbox and tests.
// - Credentials in the proxy URL (http://user:pass@proxy:3128) become `Proxy-Authorization: Basic …`; the agent
//   never shows them: its JSON and inspect forms carry the redacted URL.
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { HttpsProxyAgent } from 'https-proxy-agent';
import type { Config } from '../config.js';

export type ProxyConfig = Config['proxy'];

/** Where a connection goes: what agent-base hands `connect()` (`secureEndpoint` is true for https: and wss:). */
export interface ProxyTarget {
  host: string;
  port: number;
  secure: boolean;
}

type Rule =
  | { kind: 'all' }
  | { kind: 'ip'; ip: string; port?: number }
  | { kind: 'cidr'; list: BlockList; port?: number }
  | { kind: 'domain'; host: string; bare: boolean; port?: number };

function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

function parseRule(entry: string): Rule | undefined {
  if (entry === '*') return { kind: 'all' };
  let host = entry;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed?.[1] !== undefined) {
    host = bracketed[1];
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else {
    const hostPort = /^([^:]+):(\d+)$/.exec(entry);
    if (hostPort?.[1] !== undefined && hostPort[2] !== undefined) {
      host = hostPort[1];
      port = Number(hostPort[2]);
    }
  }
  const withPort = port === undefined ? {} : { port };
  const cidr = /^(.+)\/(\d{1,3})$/.exec(host);
  if (cidr?.[1] !== undefined && cidr[2] !== undefined) {
    const family = isIP(cidr[1]);
    const prefix = Number(cidr[2]);
    if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
    const list = new BlockList();
    list.addSubnet(cidr[1], prefix, family === 4 ? 'ipv4' : 'ipv6');
    return { kind: 'cidr', list, ...withPort };
  }
  host = normalizeHost(host);
  if (isIP(host) !== 0) return { kind: 'ip', ip: host, ...withPort };
  if (host.startsWith('*.')) host = host.slice(1);
  if (host === '' || host === '.') return undefined;
  return host.startsWith('.')
    ? { kind: 'domain', host, bare: false, ...withPort }
    : { kind: 'domain', host: `.${host}`, bare: true, ...withPort };
}

function matches(rule: Rule, host: string, port: number): boolean {
  if (rule.kind === 'all') return true;
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.kind === 'ip') return host === rule.ip;
  if (rule.kind === 'cidr') {
    const family = isIP(host);
    return family !== 0 && rule.list.check(host, family === 4 ? 'ipv4' : 'ipv6');
  }
  return host.endsWith(rule.host) || (rule.bare && host === rule.host.slice(1));
}

/** NO_PROXY as a predicate: does a connection to `host:port` bypass the proxy? */
export function noProxyMatcher(noProxy: string | undefined): (host: string, port: number) => boolean {
  const rules = (noProxy ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '')
    .map(parseRule)
    .filter((r): r is Rule => r !== undefined);
  if (rules.length === 0) return () => false;
  return (host, port) => {
    const h = normalizeHost(host);
    return rules.some((rule) => matches(rule, h, port));
  };
}

/** The target of a URL (ws: and wss: count as http: and https:), with the scheme's default port. */
export function targetOf(url: string | URL): ProxyTarget {
  const u = typeof url === 'string' ? new URL(url) : url;
  const secure = u.protocol === 'https:' || u.protocol === 'wss:';
  return { host: normalizeHost(u.hostname), port: u.port === '' ? (secure ? 443 : 80) : Number(u.port), secure };
}

/** The proxy URL a connection to `target` goes through, or undefined for a direct connection. */
export function proxyFor(target: ProxyTarget | string | URL, proxy: ProxyConfig | undefined): string | undefined {
  if (!proxy) return undefined;
  const t = typeof target === 'string' || target instanceof URL ? targetOf(target) : target;
  const via = t.secure ? proxy.https : proxy.http;
  if (via === undefined || via === '') return undefined;
  return noProxyMatcher(proxy.noProxy)(t.host, t.port) ? undefined : via;
}

/** A proxy URL fit for a log line: the password (and a user name) replaced. */
export function redactProxyUrl(proxyUrl: string): string {
  try {
    const u = new URL(proxyUrl);
    if (u.username === '' && u.password === '') return u.href;
    u.username = 'redacted';
    u.password = '';
    return u.href.replace('redacted@', '***@');
  } catch {
    return '[unparseable proxy URL]';
  }
}

/**
 * The agent of every Slack connection: per connection it tunnels through the proxy `proxyFor` names, or hands the
 * request to a plain keep-alive agent. It is an https-proxy-agent (hence an agent-base Agent, whose `connect()` may
 * return another agent to delegate the request to — that is how the other proxy and direct connections are served).
 */
export class SlackProxyAgent extends HttpsProxyAgent<string> {
  readonly #config: ProxyConfig;
  readonly #bypass: (host: string, port: number) => boolean;
  readonly #tunnels = new Map<string, HttpsProxyAgent<string>>();
  readonly #direct = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  readonly #primary: string;

  constructor(config: ProxyConfig) {
    const primary = config.https || config.http;
    if (!primary) throw new Error('SlackProxyAgent needs HTTPS_PROXY or HTTP_PROXY');
    super(primary, { keepAlive: true });
    this.#primary = primary;
    this.#config = config;
    this.#bypass = noProxyMatcher(config.noProxy);
    // The parent keeps the proxy URL (with any password) in `proxy`: out of enumeration, so out of JSON and logs.
    Object.defineProperty(this, 'proxy', { enumerable: false, value: this.proxy });
  }

  /** Where a connection to `target` goes: a proxy URL, or undefined for direct. */
  route(target: ProxyTarget): string | undefined {
    const via = target.secure ? this.#config.https : this.#config.http;
    if (via === undefined || via === '') return undefined;
    return this.#bypass(target.host, target.port) ? undefined : via;
  }

  override connect(req: http.ClientRequest, opts: Parameters<HttpsProxyAgent<string>['connect']>[1]): Promise<Socket> {
    const secure = opts.secureEndpoint;
    const via = this.route({ host: opts.host ?? '', port: opts.port, secure });
    if (via === this.#primary) return super.connect(req, opts);
    // agent-base hands the request to an agent returned from connect() (addRequest): the declared type says Socket.
    const delegate: http.Agent =
      via === undefined ? (secure ? this.#direct.https : this.#direct.http) : this.#tunnel(via);
    return Promise.resolve(delegate as unknown as Socket);
  }

  #tunnel(via: string): HttpsProxyAgent<string> {
    let agent = this.#tunnels.get(via);
    if (!agent) {
      agent = new HttpsProxyAgent(via, { keepAlive: true });
      Object.defineProperty(agent, 'proxy', { enumerable: false, value: agent.proxy });
      this.#tunnels.set(via, agent);
    }
    return agent;
  }

  override destroy(): void {
    super.destroy();
    for (const agent of this.#tunnels.values()) agent.destroy();
    this.#direct.http.destroy();
    this.#direct.https.destroy();
  }

  toJSON(): Record<string, unknown> {
    return {
      https: this.#config.https === undefined ? undefined : redactProxyUrl(this.#config.https),
      http: this.#config.http === undefined ? undefined : redactProxyUrl(this.#config.http),
      noProxy: this.#config.noProxy,
    };
  }

  [inspect.custom](): string {
    return `SlackProxyAgent ${JSON.stringify(this.toJSON())}`;
  }
}

const agents = new WeakMap<ProxyConfig, SlackProxyAgent>();

/**
 * The agent for Slack calls under `proxy` (config.proxy), or undefined when neither HTTPS_PROXY nor HTTP_PROXY is
 * set (Node's default agents then). One per config, shared by every client built from it.
 */
export function slackAgent(proxy: ProxyConfig | undefined): SlackProxyAgent | undefined {
  if (!proxy || (!proxy.https && !proxy.http)) return undefined;
  let agent = agents.get(proxy);
  if (!agent) {
    agent = new SlackProxyAgent(proxy);
    agents.set(proxy, agent);
  }
  return agent;
}

/**
 * POSTs `body` as JSON to `url` through `agent` (global fetch ignores agents) within `timeoutMs`; resolves with the
 * status and up to 64 KiB of the answer.
 */
export function postJson(
  url: string,
  body: unknown,
  opts: { agent?: http.Agent | undefined; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  const request = target.protocol === 'https:' ? https.request : target.protocol === 'http:' ? http.request : undefined;
  if (!request) return Promise.reject(new Error(`cannot post to a ${target.protocol} URL`));
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
        signal: AbortSignal.timeout(opts.timeoutMs),
        ...(opts.agent ? { agent: opts.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < 65_536) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('the answer was cut short'));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
