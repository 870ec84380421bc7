// Which configuration values are secret, and what is shown or audited of them (docs/policy.md#secret-values).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditedAt,
  isSecretConfigKey,
  SECRET_SHOWN,
  shownAt,
  withSecretsReplaced,
} from '../../../../src/domain/model/secret-config.js';

describe('isSecretConfigKey', () => {
  it('knows passwords, secrets, tokens, credentials and keys by name', () => {
    for (const key of [
      's3.secret-key',
      's3.access-key',
      'fs.azure.account.key',
      'security.ssl.keystore-password',
      'security.ssl.internal.key-password',
      'metrics.reporter.dghttp.apikey',
      'kafka.sasl.jaas.config',
      'db.pwd',
      'my.AUTH_TOKEN',
      'gcs.service-key',
      'rest.http-headers',
    ])
      expect(isSecretConfigKey(key), key).toBe(true);
  });

  it('leaves ordinary keys shown', () => {
    for (const key of [
      'execution.checkpointing.interval',
      'taskmanager.memory.process.size',
      'state.backend.type',
      'restart-strategy.fixed-delay.attempts',
      'pipeline.jobvertex-parallelism-overrides',
      'security.ssl.internal.keystore',
    ])
      expect(isSecretConfigKey(key), key).toBe(false);
  });
});

describe('what is shown and audited', () => {
  it('masks a set secret value; unset stays unset; other paths are untouched', () => {
    expect(shownAt('spec.flinkConfiguration.s3.secret-key', 'x')).toBe(SECRET_SHOWN);
    expect(shownAt('spec.flinkConfiguration.s3.secret-key', null)).toBeNull();
    expect(shownAt('spec.flinkConfiguration.execution.checkpointing.interval', '30s')).toBe('30s');
    expect(shownAt('spec.job.args', 'password')).toBe('password');
    const sha = `sha256:${createHash('sha256').update('hunter2').digest('hex')}`;
    expect(auditedAt('spec.flinkConfiguration.db.password', 'hunter2')).toBe(sha);
  });

  it('replaces secret leaves of a patch, flat and nested, and nothing else', () => {
    const patch = {
      metadata: { annotations: { 'flink-chatops/operation-id': 'op-1' } },
      spec: {
        flinkConfiguration: { 's3.secret-key': 'a', s3: { 'access-key': 'b' }, 'state.backend.type': 'rocksdb' },
        job: { parallelism: 4 },
      },
    };
    expect(withSecretsReplaced(patch, shownAt)).toEqual({
      metadata: { annotations: { 'flink-chatops/operation-id': 'op-1' } },
      spec: {
        flinkConfiguration: {
          's3.secret-key': SECRET_SHOWN,
          s3: { 'access-key': SECRET_SHOWN },
          'state.backend.type': 'rocksdb',
        },
        job: { parallelism: 4 },
      },
    });
    expect(patch.spec.flinkConfiguration['s3.secret-key']).toBe('a');
  });
});
