// How to reach Redis (docs/configuration.md#redis-modes): REDIS_URL alone (standalone), with REDIS_SENTINELS (Sentinel)
// or with REDIS_CLUSTER_NODES (Cluster); REDIS_URL gives the credentials, TLS and database in every mode.
import { z } from 'zod';
import { redactUrl } from './redact.js';

/** A Redis server's address, as REDIS_SENTINELS and REDIS_CLUSTER_NODES list them. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** `host:port` (or `[v6]:port`); the port may be left out for `defaultPort`. */
function parseNode(text: string, defaultPort: number): RedisNode | string {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+))(?::(\d{1,5}))?$/.exec(text);
  // Credentials belong in REDIS_URL; any written here are not echoed.
  const shown = JSON.stringify(text.includes('@') ? `***${text.slice(text.lastIndexOf('@'))}` : text);
  if (!match) return `${shown} is not host:port`;
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (port < 1 || port > 65535) return `${shown}: port must be 1-65535`;
  return { host: (match[1] ?? match[2]) as string, port };
}

/** A comma-separated `host:port` list; unset or empty → undefined. */
export const nodeList = (name: string, defaultPort: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const nodes: RedisNode[] = [];
      for (const item of text.split(',').map((n) => n.trim())) {
        const node = item === '' ? 'has an empty entry' : parseNode(item, defaultPort);
        if (typeof node === 'string')
          ctx.addIssue({ code: 'custom', message: `${node} (a comma-separated list of host:port)` });
        else nodes.push(node);
      }
      return nodes;
    })
    .describe(name);

export type RedisMode = 'standalone' | 'sentinel' | 'cluster';

/**
 * How to reach Redis (docs/configuration.md#redis-modes): REDIS_URL alone (standalone), or with REDIS_SENTINELS
 * (Sentinel) or REDIS_CLUSTER_NODES (Cluster), where REDIS_URL still gives the user, password, TLS (`rediss://`) and
 * database.
 */
export interface RedisSettings {
  /** May carry a password: log it only through redactUrl. */
  readonly url: string;
  readonly prefix: string;
  readonly mode: RedisMode;
  /** Sentinel mode: the sentinels and the name of the master they monitor. */
  readonly sentinels: readonly RedisNode[];
  readonly sentinelMaster: string;
  /** Cluster mode: the seed nodes. */
  readonly clusterNodes: readonly RedisNode[];
}

/** What REDIS_URL says besides its host: credentials, TLS and database (used as such in every mode). */
export interface RedisUrlParts {
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
  readonly db: number;
}

/** The parts of a `redis://` or `rediss://` URL, or undefined when it is not one. */
export function parseRedisUrl(url: string): RedisUrlParts | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return undefined;
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path)) return undefined;
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    username: parsed.username === '' ? undefined : decode(parsed.username),
    password: parsed.password === '' ? undefined : decode(parsed.password),
    tls: parsed.protocol === 'rediss:',
    db: path === '' ? 0 : Number(path),
  };
}

/** The settings from the parsed variables. */
export function redisSettings(e: RedisVariables): RedisSettings {
  const mode: RedisMode = e.REDIS_SENTINELS ? 'sentinel' : e.REDIS_CLUSTER_NODES ? 'cluster' : 'standalone';
  return {
    url: e.REDIS_URL,
    prefix: e.REDIS_PREFIX,
    mode,
    sentinels: e.REDIS_SENTINELS ?? [],
    sentinelMaster: e.REDIS_SENTINEL_MASTER,
    clusterNodes: e.REDIS_CLUSTER_NODES ?? [],
  };
}

/** Modes set together, or a database a Cluster does not have. */
export function redisProblems(e: RedisVariables): string[] {
  if (e.REDIS_SENTINELS && e.REDIS_CLUSTER_NODES) {
    return ['REDIS_CLUSTER_NODES: set REDIS_SENTINELS (Sentinel) or REDIS_CLUSTER_NODES (Cluster), not both'];
  }
  const db = parseRedisUrl(e.REDIS_URL)?.db ?? 0;
  if (e.REDIS_CLUSTER_NODES && db !== 0) {
    return [
      `REDIS_URL: a Redis Cluster has only database 0; drop "/${db}" from the URL (got ${JSON.stringify(redactUrl(e.REDIS_URL))})`,
    ];
  }
  return [];
}

/** The parsed variables the Redis settings come from. */
export interface RedisVariables {
  REDIS_URL: string;
  REDIS_PREFIX: string;
  REDIS_SENTINELS?: RedisNode[] | undefined;
  REDIS_SENTINEL_MASTER: string;
  REDIS_CLUSTER_NODES?: RedisNode[] | undefined;
}
