// The log masker (docs/commands.md#flink-logs): one table of lines and what may be shown of them.
import { describe, expect, it } from 'vitest';
import { MASK, REDACTED_LINE, maskLine, maskSecrets, maskedLines } from '../../../../../src/domain/kit/logs/mask.js';
import { compileRedact } from '../../../../../src/domain/kit/policy/logs.js';
import { CUT_MARK, MAX_LOG_LINE } from '../../../../../src/domain/kit/logs/cut.js';

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
    // JSON, command line flags, URL credentials with an empty user, signed-URL signatures.
    ['{"user":"flink","password":"hunter2","db":"orders"}', `{"user":"flink","password":${MASK},"db":"orders"}`],
    ['{"auth": {"api_token": "t-123", "ttl": 5}}', `{"auth": {"api_token": ${MASK}, "ttl": 5}}`],
    ['{"secretKey":"a\\"b","next":1}', `{"secretKey":${MASK},"next":1}`],
    ['exec app.jar --password hunter2 --parallelism 4', `exec app.jar --password ${MASK} --parallelism 4`],
    ['--db-password=hunter2 --verbose', `--db-password=${MASK} --verbose`],
    ['redis://:s3cr3t@redis-master:6379/0 connected', `redis://:${MASK}@redis-master:6379/0 connected`],
    [
      'GET https://b.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=fe5f80f77d5fa3be&X-Amz-Expires=60',
      `GET https://b.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${MASK}&X-Amz-Expires=60`,
    ],
    [
      'blob https://a.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-12-08&sig=Zm9vYmFy%3D&sp=r',
      `blob https://a.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-12-08&sig=${MASK}&sp=r`,
    ],
    [
      'cdn https://d1.cloudfront.net/f?Expires=1&Signature=abcDEF~123&Key-Pair-Id=K2JCJMDEHXQW5F',
      `cdn https://d1.cloudfront.net/f?Expires=1&Signature=${MASK}&Key-Pair-Id=${MASK}`,
    ],
    [
      'gcs https://storage.googleapis.com/b/o?X-Goog-Date=20261207&X-Goog-Signature=0a1b2c3d',
      `gcs https://storage.googleapis.com/b/o?X-Goog-Date=20261207&X-Goog-Signature=${MASK}`,
    ],
    [
      'key {"pem":"-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA\\n-----END RSA PRIVATE KEY-----"} loaded',
      `key {"pem":"-----BEGIN RSA PRIVATE KEY-----${MASK}-----END RSA PRIVATE KEY-----"} loaded`,
    ],
  ])('%s', (line, masked) => {
    expect(maskSecrets(line)).toBe(masked);
  });

  it.each([
    'Job orders (2f22021e22a0bad6bbc4a6e2cc57b2c4) switched from state CREATED to RUNNING.',
    'Completed checkpoint 12 for job 2f22 (20480 bytes, checkpointDuration=120 ms, finalizationTime=3 ms).',
    'Caused by: org.apache.TokenExpiredException: the session expired',
    'Loading configuration property: state.checkpoints.dir, s3://flink-state/ns/orders/checkpoints',
    'KeyedProcess -> Filter (2/2) switched from RUNNING to FAILED',
    'Loading configuration property: taskmanager.numberOfTaskSlots, 2',
    'see https://flink.apache.org/docs/ for details',
    '-----BEGIN CERTIFICATE----- MIIC is public',
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

describe('cut before masking, linear in the line', () => {
  it('a PEM private key across lines is masked from BEGIN to END, the lines between whole', () => {
    const lines = [
      'loading key',
      '-----BEGIN PRIVATE KEY-----',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
      'VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDu',
      '-----END PRIVATE KEY----- done',
      'after the key',
    ];
    expect(maskedLines(lines, { redact: [], limit: 50 })).toEqual([
      'loading key',
      `-----BEGIN PRIVATE KEY-----${MASK}`,
      MASK,
      MASK,
      `${MASK}-----END PRIVATE KEY----- done`,
      'after the key',
    ]);
  });

  it('a 1 MB line is cut to MAX_LOG_LINE before masking, and a secret before the cut is still masked', () => {
    const line = `{"password":"hunter2","record":"${'x'.repeat(1_000_000)}"}`;
    const [shown] = maskedLines([line], { redact: compileRedact(['never-there']), limit: 1 });
    expect(shown).toBe(`{"password":${MASK},"record":"${'x'.repeat(MAX_LOG_LINE - 32)}${CUT_MARK}`);
  });

  // Each of these took the old nested-quantifier patterns seconds to minutes at 8 KB; now the line is cut first and
  // each character is looked at a bounded number of times, so a 64 KB line of each shape answers at once.
  it.each([
    ['secret-named runs', 'key.'.repeat(16_384)],
    ['separators after names', 'a.password-x '.repeat(5_000)],
    ['URL schemes', 'a.b-c+d://x:'.repeat(5_000)],
    ['JWT starts', 'eyJ-eyJ-'.repeat(8_000)],
    ['quotes never closed', 'password="'.repeat(6_000)],
    ['flags', '--token -'.repeat(7_000)],
  ])('%s: a 64 KB adversarial line is cut and masked', (_what, line) => {
    const out = maskLine(line, compileRedact(['password-z']));
    expect(out.endsWith(CUT_MARK)).toBe(true);
    expect(out.length).toBeLessThanOrEqual(MAX_LOG_LINE + CUT_MARK.length);
  });

  it('the masker itself is linear: 1 MB of secret-named settings or of PEM blocks, uncut, is scanned without backtracking', () => {
    const line = 'a.key = x '.repeat(100_000);
    const out = maskSecrets(line);
    expect(out).toBe(`a.key = ${MASK} `.repeat(100_000));
    const keys = maskSecrets('-----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY----- '.repeat(20_000));
    expect(keys).toBe(`-----BEGIN PRIVATE KEY-----${MASK}-----END PRIVATE KEY----- `.repeat(20_000));
  });
});
