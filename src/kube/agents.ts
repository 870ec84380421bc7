// One keep-alive connection pool per API server credentials (docs/deployment.md#kubernetes-connections).
// @kubernetes/client-node 1.x builds a new http(s).Agent, without keep-alive, for every request, so each request opened
// its own TCP connection, and against a real API server its own TLS handshake. The API clients made here swap that
// agent, right where client-node sets it, for a pooled one made with the same options; watches stay as they are.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import {
  createConfiguration,
  ServerConfiguration,
  type Configuration,
  type KubeConfig,
  type RequestContext,
} from '@kubernetes/client-node';

/** Idle pooled connections close after this, before an API server or load balancer would drop them under a request. */
export const IDLE_SOCKET_MS = 30_000;

/** The options that make two agents interchangeable: where they connect and with which TLS material. */
const TLS_OPTIONS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'ciphers',
  'crl',
  'secureProtocol',
] as const;

const pool = new Map<string, http.Agent>();

/** `kubeConfig.makeApiClient(api)`, its requests on pooled connections. */
export function makeApiClient<T>(kubeConfig: KubeConfig, api: new (configuration: Configuration) => T): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  const auth = {
    getName: () => 'default',
    applySecurityAuthentication: async (ctx: RequestContext): Promise<void> => {
      await kubeConfig.applySecurityAuthentication(ctx);
      reuseConnections(ctx);
    },
  };
  return new api(
    createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: auth } }),
  );
}

/**
 * Gives the request a pooled keep-alive agent in place of the one client-node made for it. Agents of any other kind
 * (an HTTP or SOCKS proxy's) are left as they are.
 */
export function reuseConnections(ctx: RequestContext): void {
  const made = ctx.getAgent();
  if (made === undefined) return;
  const kind = made.constructor === https.Agent ? 'https' : made.constructor === http.Agent ? 'http' : undefined;
  if (kind === undefined) return;
  const options = (made as http.Agent & { options: https.AgentOptions }).options;
  const key = poolKey(kind, options);
  let agent = pool.get(key);
  if (agent === undefined) {
    const settings = { ...options, keepAlive: true, timeout: IDLE_SOCKET_MS };
    agent = kind === 'https' ? new https.Agent(settings) : new http.Agent(settings);
    pool.set(key, agent);
  }
  ctx.setAgent(agent);
}

function poolKey(kind: string, options: https.AgentOptions): string {
  const hash = createHash('sha256').update(kind);
  for (const name of TLS_OPTIONS) {
    const value: unknown = options[name];
    hash.update(`\0${name}=`);
    if (value === undefined) continue;
    for (const part of Array.isArray(value) ? value : [value]) {
      hash.update(Buffer.isBuffer(part) ? part : String(part));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}
