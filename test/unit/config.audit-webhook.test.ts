// AUDIT_WEBHOOK_URL / AUDIT_WEBHOOK_SECRET(_FILE) (docs/audit.md#the-webhook): the webhook is configured only with
// both; its URL is shown with the password replaced, its secret never.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('AUDIT_WEBHOOK_URL', () => {
  it('is off when unset', () => {
    const loaded = loadConfig({}, 'worker');
    expect(loaded.ok && loaded.config.audit.webhook).toBeUndefined();
  });

  it('with its secret gives the webhook', () => {
    const loaded = loadConfig(
      { AUDIT_WEBHOOK_URL: 'https://siem.example/audit', AUDIT_WEBHOOK_SECRET: 's3cret' },
      'worker',
    );
    expect(loaded.ok && loaded.config.audit.webhook).toEqual({ url: 'https://siem.example/audit', secret: 's3cret' });
  });

  it('reads the secret from AUDIT_WEBHOOK_SECRET_FILE, one trailing newline trimmed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fco-audit-'));
    const file = join(dir, 'secret');
    writeFileSync(file, 'from-file\n');
    try {
      const loaded = loadConfig(
        { AUDIT_WEBHOOK_URL: 'http://127.0.0.1:9/audit', AUDIT_WEBHOOK_SECRET_FILE: file },
        'worker',
      );
      expect(loaded.ok && loaded.config.audit.webhook?.secret).toBe('from-file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a secret is refused', () => {
    expect(loadConfig({ AUDIT_WEBHOOK_URL: 'https://siem.example/audit' }, 'worker')).toEqual({
      ok: false,
      problems: ['AUDIT_WEBHOOK_SECRET: required when AUDIT_WEBHOOK_URL is set (or AUDIT_WEBHOOK_SECRET_FILE)'],
    });
  });

  it('an unreadable secret file is one problem, naming the path, not the secret', () => {
    const loaded = loadConfig(
      { AUDIT_WEBHOOK_URL: 'https://siem.example/audit', AUDIT_WEBHOOK_SECRET_FILE: '/nonexistent/secret' },
      'worker',
    );
    expect(loaded).toEqual({
      ok: false,
      problems: ['AUDIT_WEBHOOK_SECRET_FILE: cannot read "/nonexistent/secret" (no such file)'],
    });
  });

  it('both forms of the secret are refused', () => {
    const loaded = loadConfig(
      { AUDIT_WEBHOOK_URL: 'https://x.example/', AUDIT_WEBHOOK_SECRET: 'a', AUDIT_WEBHOOK_SECRET_FILE: '/tmp/b' },
      'worker',
    );
    expect(loaded.ok ? [] : loaded.problems).toEqual([
      'AUDIT_WEBHOOK_SECRET_FILE: set AUDIT_WEBHOOK_SECRET or AUDIT_WEBHOOK_SECRET_FILE, not both',
    ]);
  });

  it('a URL that is not http(s) is refused, shown with its password replaced; the secret is not shown', () => {
    const loaded = loadConfig(
      { AUDIT_WEBHOOK_URL: 'ftp://user:hunter2@siem.example/', AUDIT_WEBHOOK_SECRET: 'topsecret' },
      'worker',
    );
    expect(loaded).toEqual({
      ok: false,
      problems: [
        'AUDIT_WEBHOOK_URL: must be an http(s):// URL (docs/audit.md#the-webhook) (got "ftp://user:***@siem.example/")',
      ],
    });
    expect(JSON.stringify(loaded)).not.toContain('topsecret');
  });
});
