// Environment → frozen Config, validated once at start; nothing else reads process.env.
import { z } from 'zod';
import { describeIssue, readFileVariables } from './config/files.js';
import { nodeList, parseRedisUrl, redisProblems, redisSettings, type RedisSettings } from './config/redis.js';
import { MIN_EVENT_RETENTION_MS, MIN_RECORD_RETENTION_MS, retention, retentionProblems } from './config/retention.js';
import { parseDuration } from './domain/model/duration.js';
import { isClusterName } from './domain/model/target.js';
import { MIN_RECORD_KEY_LENGTH, RecordKey } from './config/record-key.js';

// The parts in ./config/, re-exported so every reader imports the configuration from one place.
export { redactUrl } from './config/redact.js';
export { FILE_VARIABLES } from './config/files.js';
export {
  parseRedisUrl,
  type RedisMode,
  type RedisNode,
  type RedisSettings,
  type RedisUrlParts,
} from './config/redis.js';

export const ROLES = ['bot', 'worker', 'all'] as const;
export type Role = (typeof ROLES)[number];

/** KUBE_IMPERSONATE: `slack` makes the worker's writes as the requester (docs/deployment.md#kubernetes-attribution). */
export const KUBE_IMPERSONATE_MODES = ['off', 'slack'] as const;
export type KubeImpersonate = (typeof KUBE_IMPERSONATE_MODES)[number];

const duration = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const parsed = parseDuration(text);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      return parsed.ms;
    })
    .describe(name);

const CLUSTER_NAME_RULE = 'must be a DNS-1123 label (lowercase letters, digits and "-", at most 63)';
export const DEFAULT_CLUSTER = 'default';

/** A comma-separated list of cluster names, each a DNS-1123 label, none twice; unset or empty → undefined. */
const clusterList = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const names = text.split(',').map((n) => n.trim());
      for (const n of names)
        if (!isClusterName(n)) ctx.addIssue({ code: 'custom', message: `"${n}" ${CLUSTER_NAME_RULE}` });
      const twice = names.filter((n, i) => names.indexOf(n) !== i);
      if (twice.length > 0) ctx.addIssue({ code: 'custom', message: `names ${twice[0]} twice` });
      return names;
    })
    .describe(name);

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const EnvSchema = z.object({
  SLACK_BOT_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xoxb-'), 'must start with xoxb-'),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xapp-'), 'must start with xapp-'),
  SLACK_API_URL: z
    .string()
    .default('https://slack.com/api/')
    .refine((v) => /^https?:\/\/[^\s]+\/api\/$/.test(v), 'must be a full http(s) URL ending in /api/'),
  SLACK_COMMAND: z
    .string()
    .default('/flink')
    .refine(
      (v) => /^\/[a-z0-9_-]{1,31}$/.test(v),
      'must look like /flink (a slash and up to 31 lowercase letters, digits, - or _)',
    ),
  PORT: z.coerce.number().int('must be an integer').min(0).max(65535).default(3000),
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .refine(
      (v) => /^rediss?:\/\/\S+$/.test(v) && parseRedisUrl(v) !== undefined,
      'must be a redis:// or rediss:// URL (a database, if given, as /<number>)',
    ),
  REDIS_PREFIX: z
    .string()
    .default('fco')
    .refine((v) => /^[A-Za-z0-9_.-]{1,64}$/.test(v), 'must be 1-64 letters, digits, _, . or -'),
  REDIS_SENTINELS: nodeList('REDIS_SENTINELS', 26379),
  REDIS_SENTINEL_MASTER: z
    .string()
    .default('mymaster')
    .transform((v) => v.trim())
    .refine(
      (v) => /^[A-Za-z0-9_.-]{1,128}$/.test(v),
      'must be the master name the sentinels monitor (letters, digits, _, . or -)',
    ),
  REDIS_CLUSTER_NODES: nodeList('REDIS_CLUSTER_NODES', 6379),
  SLACK_BOT_TOKEN_FILE: optionalText,
  SLACK_SIGNING_SECRET_FILE: optionalText,
  SLACK_APP_TOKEN_FILE: optionalText,
  REDIS_URL_FILE: optionalText,
  KUBECONFIG: optionalText,
  KUBE_CONTEXTS: clusterList('KUBE_CONTEXTS'),
  CLUSTER_NAME: z
    .string()
    .default(DEFAULT_CLUSTER)
    .transform((v) => v.trim())
    .refine(isClusterName, CLUSTER_NAME_RULE),
  WORKER_CLUSTERS: clusterList('WORKER_CLUSTERS'),
  KUBE_IMPERSONATE: z
    .string()
    .default('off')
    .transform((v) => v.trim())
    .pipe(
      z.enum(KUBE_IMPERSONATE_MODES, {
        error: `must be ${KUBE_IMPERSONATE_MODES.join(' or ')} (docs/deployment.md#kubernetes-attribution)`,
      }),
    ),
  POLICY_FILE: z.string().default('policy.yaml'),
  WORKER_CONCURRENCY: z.coerce.number().int('must be an integer').min(1).max(256).default(8),
  LEASE_TTL: duration('LEASE_TTL', '30s'),
  VERIFY_TIMEOUT: duration('VERIFY_TIMEOUT', '10m'),
  VERIFY_TIMEOUT_SAVEPOINT: duration('VERIFY_TIMEOUT_SAVEPOINT', '15m'),
  FAILURE_GRACE: duration('FAILURE_GRACE', '2m'),
  RECORD_RETENTION: retention('RECORD_RETENTION', '35d', MIN_RECORD_RETENTION_MS, '30d'),
  EVENT_RETENTION: retention('EVENT_RETENTION', '7d', MIN_EVENT_RETENTION_MS, '1d'),
  HTTPS_PROXY: optionalText.refine(
    (v) => v === undefined || /^https?:\/\/\S+$/.test(v),
    'must be an http(s):// URL of the proxy',
  ),
  HTTP_PROXY: optionalText.refine(
    (v) => v === undefined || /^https?:\/\/\S+$/.test(v),
    'must be an http(s):// URL of the proxy',
  ),
  NO_PROXY: optionalText,
  AUDIT_WEBHOOK_URL: optionalText.refine(
    (v) => v === undefined || /^https?:\/\/\S+$/.test(v),
    'must be an http(s):// URL (docs/audit.md#the-webhook)',
  ),
  AUDIT_WEBHOOK_SECRET: optionalText,
  AUDIT_WEBHOOK_SECRET_FILE: optionalText,
  RECORD_SIGNING_KEY: optionalText.refine(
    (v) => v === undefined || v.length >= MIN_RECORD_KEY_LENGTH,
    `must be at least ${MIN_RECORD_KEY_LENGTH} characters (e.g. openssl rand -hex 32; docs/deployment.md#record-signing)`,
  ),
  RECORD_SIGNING_KEY_FILE: optionalText,
  SLACK_ALLOWED_TEAMS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const ids = text.split(',').map((t) => t.trim());
      for (const id of ids)
        if (!/^[TE][A-Z0-9]{2,}$/.test(id))
          ctx.addIssue({ code: 'custom', message: `"${id}" is not a Slack team (T…) or enterprise (E…) id` });
      return ids;
    }),
  // Slash commands per person and minute (docs/configuration.md#rate-limit); 0: no limit.
  COMMAND_RATE_LIMIT: z.coerce.number().int('must be an integer').min(0).max(100_000).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  readonly role: Role;
  readonly slack: {
    readonly botToken: string | undefined;
    readonly signingSecret: string | undefined;
    readonly appToken: string | undefined;
    readonly apiUrl: string;
    readonly command: string;
    /** SLACK_ALLOWED_TEAMS (docs/configuration.md#who-may-use-the-bot); undefined: the bot token's own team. */
    readonly allowedTeams: readonly string[] | undefined;
    /** COMMAND_RATE_LIMIT (docs/configuration.md#rate-limit): slash commands per user and minute; 0: no limit. */
    readonly commandsPerMinute: number;
    readonly socketMode: boolean;
  };
  readonly port: number;
  readonly redis: RedisSettings;
  readonly kubeconfig: string | undefined;
  /**
   * The clusters this process sees (docs/deployment.md#several-clusters); `contexts` when they are KUBE_CONTEXTS, else
   * the one current context.
   */
  readonly clusters: {
    readonly names: readonly string[];
    readonly fromContexts: boolean;
    /** Worker role: the clusters whose operations this process executes. */
    readonly worker: readonly string[];
  };
  /** Worker role: whether its writes impersonate the requester (docs/deployment.md#kubernetes-attribution). */
  readonly kubeImpersonate: KubeImpersonate;
  readonly policyFile: string;
  readonly workerConcurrency: number;
  readonly leaseTtlMs: number;
  readonly verifyTimeoutMs: number;
  readonly verifyTimeoutSavepointMs: number;
  /**
   * How long a JobManager or container failure may persist before the operation is FAILED (docs/lifecycle.md#evidence).
   */
  readonly failureGraceMs: number;
  /** RECORD_RETENTION and EVENT_RETENTION, ms (docs/configuration.md#retention). */
  readonly retention: { readonly recordsMs: number; readonly eventsMs: number };
  readonly logLevel: string;
  /**
   * The egress proxy of every Slack call (docs/configuration.md#configuration): HTTPS_PROXY for https URLs, HTTP_PROXY
   * for http ones.
   */
  readonly proxy: {
    readonly https: string | undefined;
    readonly http: string | undefined;
    readonly noProxy: string | undefined;
  };
  readonly audit: {
    /** AUDIT_WEBHOOK_URL and its signing secret (docs/audit.md#the-webhook); undefined: no webhook. */
    readonly webhook: { readonly url: string; readonly secret: string } | undefined;
  };
  /**
   * RECORD_SIGNING_KEY (docs/deployment.md#record-signing): the key of the operation records' MAC; undefined: the
   * process's own random key (the sandbox, tests), which `serve` refuses.
   */
  readonly recordKey: RecordKey | undefined;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Parses the environment; every problem comes back as one readable line, naming the variable. */
export function loadConfig(given: Record<string, string | undefined>, role: Role = 'all'): ConfigResult {
  const { env, problems, fromFile } = readFileVariables(given);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success)
    problems.push(
      ...parsed.error.issues.map((issue) => describeIssue(String(issue.path[0] ?? ''), issue.message, env, fromFile)),
    );
  problems.push(...roleProblems(env, role, fromFile), ...auditWebhookProblems(env, fromFile));
  if (parsed.success)
    problems.push(...clusterProblems(parsed.data), ...redisProblems(parsed.data), ...retentionProblems(parsed.data));
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  const e = parsed.data;
  const config: Config = {
    role,
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      command: e.SLACK_COMMAND,
      allowedTeams: e.SLACK_ALLOWED_TEAMS,
      commandsPerMinute: e.COMMAND_RATE_LIMIT,
      socketMode: e.SLACK_APP_TOKEN !== undefined,
    },
    port: e.PORT,
    redis: redisSettings(e),
    kubeconfig: e.KUBECONFIG,
    clusters: clustersOf(e),
    kubeImpersonate: e.KUBE_IMPERSONATE,
    policyFile: e.POLICY_FILE,
    workerConcurrency: e.WORKER_CONCURRENCY,
    leaseTtlMs: e.LEASE_TTL,
    verifyTimeoutMs: e.VERIFY_TIMEOUT,
    verifyTimeoutSavepointMs: e.VERIFY_TIMEOUT_SAVEPOINT,
    failureGraceMs: e.FAILURE_GRACE,
    retention: { recordsMs: e.RECORD_RETENTION, eventsMs: e.EVENT_RETENTION },
    logLevel: e.LOG_LEVEL,
    proxy: { https: e.HTTPS_PROXY, http: e.HTTP_PROXY, noProxy: e.NO_PROXY },
    audit: {
      webhook:
        e.AUDIT_WEBHOOK_URL === undefined || e.AUDIT_WEBHOOK_SECRET === undefined
          ? undefined
          : { url: e.AUDIT_WEBHOOK_URL, secret: e.AUDIT_WEBHOOK_SECRET },
    },
    recordKey: e.RECORD_SIGNING_KEY === undefined ? undefined : RecordKey.fromSecret(e.RECORD_SIGNING_KEY),
  };
  return { ok: true, config: deepFreeze(config) };
}

function clustersOf(e: z.infer<typeof EnvSchema>): Config['clusters'] {
  const names = e.KUBE_CONTEXTS ?? [e.CLUSTER_NAME];
  return { names, fromContexts: e.KUBE_CONTEXTS !== undefined, worker: e.WORKER_CLUSTERS ?? names };
}

function clusterProblems(e: z.infer<typeof EnvSchema>): string[] {
  const { names } = clustersOf(e);
  const unknown = (e.WORKER_CLUSTERS ?? []).filter((n) => !names.includes(n));
  if (unknown.length === 0) return [];
  const source = e.KUBE_CONTEXTS ? 'KUBE_CONTEXTS' : 'CLUSTER_NAME';
  return [
    `WORKER_CLUSTERS: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among the clusters this process sees (${source}: ${names.join(', ')})`,
  ];
}

function roleProblems(env: Record<string, string | undefined>, role: Role, fromFile: ReadonlySet<string>): string[] {
  if (role === 'worker') return [];
  // A variable named by a `_FILE` that could not be read already has its problem.
  const set = (name: string) => fromFile.has(name) || (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  if (!set('SLACK_BOT_TOKEN')) problems.push(`SLACK_BOT_TOKEN: required for role "${role}" (xoxb-…)`);
  if (!set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET')) {
    problems.push(
      `SLACK_SIGNING_SECRET: required for role "${role}" in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)`,
    );
  }
  return problems;
}

/** A webhook needs its secret (an unreadable AUDIT_WEBHOOK_SECRET_FILE already has its problem). */
function auditWebhookProblems(env: Record<string, string | undefined>, fromFile: ReadonlySet<string>): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (!set('AUDIT_WEBHOOK_URL') || set('AUDIT_WEBHOOK_SECRET') || fromFile.has('AUDIT_WEBHOOK_SECRET')) return [];
  return ['AUDIT_WEBHOOK_SECRET: required when AUDIT_WEBHOOK_URL is set (or AUDIT_WEBHOOK_SECRET_FILE)'];
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child as object);
  }
  return Object.freeze(value);
}
