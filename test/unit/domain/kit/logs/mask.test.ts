// The log masker (docs/commands.md#flink-logs): one table of lines and what may be shown of them.
import { describe, expect, it } from 'vitest';
import { MASK, REDACTED_LINE, maskLine, maskSecrets, maskedLines } from '../../../../../src/domain/kit/logs/mask.js';
import { compileRedact } from '../../../../../src/domain/kit/policy/logs.js';

describe('maskSecrets: values that look like secrets become •••', () => {
  it.each([
    ['    -Ds3.secret-key=AKIA2SIMULATEDLEAK7Q', `    -Ds3.secret-key=${MASK}`],
    [
      'jdbc:postgresql://db:5432/orders?user=flink&password=hunter2',
      `jdbc:postgresql://db:5432/orders?user=flink&password=${MASK}`,
    ],
    ['-Djavax.net.ssl.keyStorePassword=changeit -Xmx1g', `-Djavax.net.ssl.keyStorePassword=${MASK} -Xmx1g`],
    ['token="abc def" next', `token=${MASK} next`],
    ['api_key: 12345abcde', `api_key: ${MASK}`],
    [
      'Loading configuration property: s3.secret-key, wJalrXUtnFEMI',
      `Loading configuration property: s3.secret-key, ${MASK}`,
    ],
    ['posting with xoxb-123456-abcdef-XYZ to Slack', `posting with ${MASK} to Slack`],
    ['socket xapp-1-A0APP-12345-abcdef open', `socket ${MASK} open`],
    ['access key AKIAIOSFODNN7EXAMPLE used', `access key ${MASK} used`],
    ['Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl', `Authorization: Bearer ${MASK}`],
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', `Authorization: Basic ${MASK}`],
    ['id token eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4', `id token ${MASK}`],
    ['connecting to https://admin:s3cr3t@kafka:9093/topic', `connecting to https://admin:${MASK}@kafka:9093/topic`],
  ])('%s', (line, masked) => {
    expect(maskSecrets(line)).toBe(masked);
  });

  it.each([
    'Job orders (2f22021e22a0bad6bbc4a6e2cc57b2c4) switched from state CREATED to RUNNING.',
    'Completed checkpoint 12 for job 2f22 (20480 bytes, checkpointDuration=120 ms, finalizationTime=3 ms).',
    'Caused by: org.apache.TokenExpiredException: the session expired',
    'Loading configuration property: state.checkpoints.dir, s3://flink-state/ns/orders/checkpoints',
    'KeyedProcess -> Filter (2/2) switched from RUNNING to FAILED',
  ])('leaves an ordinary line alone: %s', (line) => {
    expect(maskSecrets(line)).toBe(line);
  });
});

describe('maskLine and maskedLines', () => {
  const redact = compileRedact(['customer-\\d+', 'IBAN']);

  it('a line matching a logs.redact pattern (case-insensitive) is replaced whole; others only lose their secrets', () => {
    expect(maskLine('order for Customer-4711 shipped', redact)).toBe(REDACTED_LINE);
    expect(maskLine('paid from iban DE89', redact)).toBe(REDACTED_LINE);
    expect(maskLine('password=hunter2 and nothing else', redact)).toBe(`password=${MASK} and nothing else`);
  });

  it('keeps the last `limit` lines, after masking', () => {
    const lines = ['a 1', 'b password=x', 'c 3', 'd 4'];
    expect(maskedLines(lines, { redact: [], limit: 3 })).toEqual([`b password=${MASK}`, 'c 3', 'd 4']);
  });

  it('greps plain text case-insensitively on the masked lines, so a search cannot confirm a masked value', () => {
    const lines = ['Checkpoint 1 done', 'x password=hunter2', 'checkpoint 2 done', 'a.b (c)'];
    expect(maskedLines(lines, { redact: [], grep: 'CHECKPOINT', limit: 50 })).toEqual([
      'Checkpoint 1 done',
      'checkpoint 2 done',
    ]);
    expect(maskedLines(lines, { redact: [], grep: 'hunter2', limit: 50 })).toEqual([]);
    expect(maskedLines(lines, { redact: [], grep: '(c)', limit: 50 })).toEqual(['a.b (c)']);
    expect(maskedLines(lines, { redact: [], grep: 'checkpoint', limit: 1 })).toEqual(['checkpoint 2 done']);
  });
});
