// loadConfig (src/config.ts): variables, Redis modes, <NAME>_FILE and redaction; also the duration syntax its values use
// (domain/model/duration.ts), tested here as the configuration reads it.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, parseRedisUrl, redactUrl, type ConfigResult } from '../../src/config.js';
import { formatDuration, parseDuration } from '../../src/domain/model/duration.js';

const slack = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'shh' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const result = loadConfig({ ...slack }, 'all');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const c = result.config;
    expect(c.slack.apiUrl).toBe('https://slack.com/api/');
    expect(c.slack.command).toBe('/flink');
    expect(c.slack.socketMode).toBe(false);
    expect(c.port).toBe(3000);
    expect(c.redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      prefix: 'fco',
      mode: 'standalone',
      sentinels: [],
      sentinelMaster: 'mymaster',
      clusterNodes: [],
    });
    expect(c.policyFile).toBe('policy.yaml');
    expect(c.workerConcurrency).toBe(8);
    expect(c.leaseTtlMs).toBe(30_000);
    expect(c.verifyTimeoutMs).toBe(600_000);
    expect(c.verifyTimeoutSavepointMs).toBe(900_000);
    expect(c.logLevel).toBe('info');
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.slack)).toBe(true);
  });

  it('switches to Socket Mode when an app token is set, without needing a signing secret', () => {
    const result = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }, 'bot');
    expect(result.ok && result.config.slack.socketMode).toBe(true);
  });

  it('needs no Slack settings for the worker role', () => {
    expect(loadConfig({}, 'worker').ok).toBe(true);
  });

  it('reports every problem as one line naming the variable, without echoing secrets', () => {
    const result = loadConfig(
      {
        SLACK_BOT_TOKEN: 'xoxp-personal-secret',
        PORT: 'eighty',
        LEASE_TTL: '30 seconds',
        REDIS_URL: 'http://localhost',
        WORKER_CONCURRENCY: '0',
        LOG_LEVEL: 'loud',
        SLACK_API_URL: 'https://slack.com/api',
      },
      'bot',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const text = result.problems.join('\n');
    for (const name of [
      'SLACK_BOT_TOKEN',
      'PORT',
      'LEASE_TTL',
      'REDIS_URL',
      'WORKER_CONCURRENCY',
      'LOG_LEVEL',
      'SLACK_API_URL',
    ]) {
      expect(text).toContain(`${name}:`);
    }
    expect(text).not.toContain('personal-secret');
    expect(result.problems.every((p) => !p.includes('\n'))).toBe(true);
  });

  it('requires the bot token and a signing secret for the bot role in HTTP mode', () => {
    const result = loadConfig({}, 'bot');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(2);
    expect(result.problems[0]).toMatch(/^SLACK_BOT_TOKEN: required/);
    expect(result.problems[1]).toMatch(/^SLACK_SIGNING_SECRET: required/);
  });

  it('accepts PORT=0 and custom durations', () => {
    const result = loadConfig({
      ...slack,
      PORT: '0',
      LEASE_TTL: '5s',
      VERIFY_TIMEOUT: '1m',
      VERIFY_TIMEOUT_SAVEPOINT: '250ms',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.port).toBe(0);
    expect(result.config.leaseTtlMs).toBe(5000);
    expect(result.config.verifyTimeoutMs).toBe(60_000);
    expect(result.config.verifyTimeoutSavepointMs).toBe(250);
  });
});

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
    expect(formatDuration(ms)).toBe(text);
  });

  it.each(['', '30', '1d', '-5s', '0s', 's', '1.5m'])('refuses %j with a readable message', (text) => {
    const result = parseDuration(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/duration/);
  });
});

describe('redactUrl', () => {
  it('hides a Redis password', () => {
    expect(redactUrl('redis://user:hunter2@redis:6379/0')).toBe('redis://user:***@redis:6379/0');
    expect(redactUrl('rediss://:hunter2@redis:6379')).toBe('rediss://:***@redis:6379');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it.each([
    ['an unencoded slash', 'redis://user:hun/ter2@redis:6379', 'redis://user:***@redis:6379'],
    ['an unencoded @', 'redis://user:hun@ter2@redis:6379', 'redis://user:***@redis:6379'],
    ['a newline', 'redis://user:hun\nter2@redis:6379\n', 'redis://user:***@redis:6379\n'],
    ['no user part', 'redis://hunter2@redis', 'redis://***@redis'],
    ['a proxy URL', 'http://me:hunter2@proxy:3128', 'http://me:***@proxy:3128'],
    ['a query password', 'redis://redis:6379?password=hunter2&db=1', 'redis://redis:6379?password=***&db=1'],
  ])('hides a password with %s', (_what, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('Redis modes', () => {
  const ok = (env: Record<string, string>) => {
    const result = loadConfig(env, 'worker');
    if (!result.ok) throw new Error(result.problems.join('; '));
    return result.config.redis;
  };

  it('reads Sentinel mode: the sentinels, the master name, and the rest from REDIS_URL', () => {
    const redis = ok({
      REDIS_SENTINELS: 's-0:26379, s-1:26380,[::1]:26381,s-3',
      REDIS_URL: 'rediss://app:pw@ignored:6379/2',
    });
    expect(redis.mode).toBe('sentinel');
    expect(redis.sentinels).toEqual([
      { host: 's-0', port: 26379 },
      { host: 's-1', port: 26380 },
      { host: '::1', port: 26381 },
      { host: 's-3', port: 26379 },
    ]);
    expect(redis.sentinelMaster).toBe('mymaster');
    expect(ok({ REDIS_SENTINELS: 's:1', REDIS_SENTINEL_MASTER: 'flink-redis' }).sentinelMaster).toBe('flink-redis');
  });

  it('reads Cluster mode: the seed nodes', () => {
    const redis = ok({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001,redis-2' });
    expect(redis.mode).toBe('cluster');
    expect(redis.clusterNodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: 'redis-2', port: 6379 },
    ]);
  });

  it('refuses Sentinel and Cluster together, bad node lists, and a database on a Cluster, without the password', () => {
    const both = loadConfig({ REDIS_SENTINELS: 's:26379', REDIS_CLUSTER_NODES: 'c:6379' }, 'worker');
    expect(both.ok).toBe(false);
    if (!both.ok)
      expect(both.problems).toEqual([
        'REDIS_CLUSTER_NODES: set REDIS_SENTINELS (Sentinel) or REDIS_CLUSTER_NODES (Cluster), not both',
      ]);
    const bad = loadConfig({ REDIS_SENTINELS: 's:26379,,x:99999,u:hunter2@s:1', REDIS_CLUSTER_NODES: 'a b' }, 'worker');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problems.filter((p) => p.startsWith('REDIS_SENTINELS:'))).toHaveLength(3);
      expect(bad.problems.join('\n')).not.toContain('hunter2');
      expect(bad.problems.some((p) => p.startsWith('REDIS_CLUSTER_NODES: "a b" is not host:port'))).toBe(true);
    }
    const db = loadConfig({ REDIS_CLUSTER_NODES: 'c:6379', REDIS_URL: 'redis://u:hunter2@x:6379/3' }, 'worker');
    expect(db.ok).toBe(false);
    if (!db.ok) {
      expect(db.problems).toHaveLength(1);
      expect(db.problems[0]).toMatch(/^REDIS_URL: a Redis Cluster has only database 0/);
      expect(db.problems[0]).toContain('redis://u:***@x:6379/3');
      expect(db.problems[0]).not.toContain('hunter2');
    }
  });

  it('parses REDIS_URL into credentials, TLS and database', () => {
    expect(parseRedisUrl('rediss://app:p%40ss@redis.example:6380/4')).toEqual({
      host: 'redis.example',
      port: 6380,
      username: 'app',
      password: 'p@ss',
      tls: true,
      db: 4,
    });
    expect(parseRedisUrl('redis://:pw@h')).toEqual({
      host: 'h',
      port: 6379,
      username: undefined,
      password: 'pw',
      tls: false,
      db: 0,
    });
    expect(parseRedisUrl('redis://h/db0')).toBeUndefined();
    expect(parseRedisUrl('http://h')).toBeUndefined();
  });
});

describe('<NAME>_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fco-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const problems = (result: ConfigResult) => (result.ok ? [] : result.problems);

  it('reads each variable from its file, trimming one trailing newline (\\n or \\r\\n) and nothing else', () => {
    const result = loadConfig(
      {
        SLACK_BOT_TOKEN_FILE: file('bot', 'xoxb-from-file\n'),
        SLACK_SIGNING_SECRET_FILE: file('signing', 'sign-secret\r\n'),
        SLACK_APP_TOKEN_FILE: file('app', 'xapp-from-file'),
        REDIS_URL_FILE: file('url', 'redis://app:pw@redis:6379/1\n'),
      },
      'bot',
    );
    expect(problems(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.config.slack.botToken).toBe('xoxb-from-file');
    expect(result.config.slack.signingSecret).toBe('sign-secret');
    expect(result.config.slack.appToken).toBe('xapp-from-file');
    expect(result.config.redis.url).toBe('redis://app:pw@redis:6379/1');
  });

  it('refuses both forms of one variable', () => {
    const result = loadConfig(
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_BOT_TOKEN_FILE: file('both', 'xoxb-2'), SLACK_SIGNING_SECRET: 's' },
      'bot',
    );
    expect(problems(result)).toEqual(['SLACK_BOT_TOKEN_FILE: set SLACK_BOT_TOKEN or SLACK_BOT_TOKEN_FILE, not both']);
  });

  it('names the path of a file it cannot read, once, and does not also call the variable missing', () => {
    const missing = join(dir, 'nope');
    const result = loadConfig({ SLACK_BOT_TOKEN_FILE: missing, SLACK_SIGNING_SECRET: 's' }, 'bot');
    expect(problems(result)).toEqual([`SLACK_BOT_TOKEN_FILE: cannot read ${JSON.stringify(missing)} (no such file)`]);
    const directory = loadConfig({ REDIS_URL_FILE: dir }, 'worker');
    expect(problems(directory)).toEqual([`REDIS_URL_FILE: cannot read ${JSON.stringify(dir)} (is a directory)`]);
    if (process.getuid?.() !== 0) {
      const locked = file('locked', 'xoxb-1');
      chmodSync(locked, 0o000);
      expect(problems(loadConfig({ SLACK_BOT_TOKEN_FILE: locked, SLACK_SIGNING_SECRET: 's' }, 'bot'))).toEqual([
        `SLACK_BOT_TOKEN_FILE: cannot read ${JSON.stringify(locked)} (permission denied)`,
      ]);
    }
  });

  it('shows a bad REDIS_URL on one line with its password replaced, however the newline got in', () => {
    const cases: Record<string, string>[] = [
      { REDIS_URL_FILE: file('two-newlines', 'redis://app:hunter2@redis:6379\n\n') },
      { REDIS_URL: 'redis://app:hunter2@redis:6379\n' },
      { REDIS_URL: 'redis://app:hun\nter2@redis:6379' },
      { REDIS_URL: 'redis://app:hun ter2/x@redis:6379' },
      { REDIS_URL: 'http://app:hunter2@redis:6379' },
    ];
    for (const env of cases) {
      const lines = problems(loadConfig(env, 'worker'));
      expect(lines, JSON.stringify(env)).toHaveLength(1);
      const line = lines[0] as string;
      expect(line).toMatch(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
      expect(line).toContain('app:***@');
      expect(line).not.toMatch(/hun|ter2/);
      expect(line).not.toContain('\n');
    }
    expect(problems(loadConfig(cases[0] as Record<string, string>, 'worker'))[0]).toContain('from REDIS_URL_FILE');
  });

  it('never shows a token or secret read from a file, nor a proxy password', () => {
    const result = loadConfig(
      {
        SLACK_BOT_TOKEN_FILE: file('personal', 'xoxp-personal-secret\n'),
        SLACK_SIGNING_SECRET: 's',
        HTTPS_PROXY: 'ftp://me:hunter2@proxy:3128',
      },
      'bot',
    );
    const text = problems(result).join('\n');
    expect(text).toContain('SLACK_BOT_TOKEN: must start with xoxb-');
    expect(text).toContain('HTTPS_PROXY:');
    expect(text).not.toContain('personal-secret');
    expect(text).not.toContain('hunter2');
  });
});
