import { describe, expect, it } from 'vitest';
import { loadConfig, redactUrl } from '../../src/config.js';
import { formatDuration, parseDuration } from '../../src/domain/model/duration.js';

const slack = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'shh' };

describe('loadConfig', () => {
  it('applies the defaults of SPEC §2', () => {
    const result = loadConfig({ ...slack }, 'all');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const c = result.config;
    expect(c.slack.apiUrl).toBe('https://slack.com/api/');
    expect(c.slack.command).toBe('/flink');
    expect(c.slack.socketMode).toBe(false);
    expect(c.port).toBe(3000);
    expect(c.redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'fco' });
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
    for (const name of ['SLACK_BOT_TOKEN', 'PORT', 'LEASE_TTL', 'REDIS_URL', 'WORKER_CONCURRENCY', 'LOG_LEVEL', 'SLACK_API_URL']) {
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
    const result = loadConfig({ ...slack, PORT: '0', LEASE_TTL: '5s', VERIFY_TIMEOUT: '1m', VERIFY_TIMEOUT_SAVEPOINT: '250ms' });
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
});
