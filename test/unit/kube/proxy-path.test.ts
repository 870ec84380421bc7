// The Flink REST proxy path (docs/deep-verification.md#how-rest-is-reached): built from checked, encoded segments;
// a namespace, cluster or job id that is not valid in a URL is refused in words naming it.
import { describe, expect, it } from 'vitest';
import { proxyPath } from '../../../src/kube/proxy-path.js';

const JOB = '0123456789abcdef0123456789abcdef';

describe('proxyPath', () => {
  it('builds the service proxy path with its query', () => {
    expect(proxyPath('streaming-prod', 'orders', `/jobs/${JOB}/metrics?get=numRestarts`)).toEqual({
      ok: true,
      pathname: `/api/v1/namespaces/streaming-prod/services/orders-rest:rest/proxy/jobs/${JOB}/metrics`,
      search: '?get=numRestarts',
    });
    expect(proxyPath('ns', 'c', '/config')).toMatchObject({ ok: true, search: '' });
  });

  it.each([
    ['x/../../../other/services/evil', 'Flink cluster "x/../../../other/services/evil" is not a valid name'],
    ['..', 'Flink cluster ".." is not a valid name'],
    ['Orders', 'Flink cluster "Orders" is not a valid name'],
    ['a.b', 'Flink cluster "a.b" is not a valid name'],
    ['$&', 'Flink cluster "$&" is not a valid name'],
    ['x'.repeat(64), 'is not a valid name'],
  ])('refuses the cluster %s', (cluster, message) => {
    const built = proxyPath('ns', cluster, `/jobs/${JOB}`);
    expect(built.ok).toBe(false);
    expect(built.ok ? '' : built.message).toContain(message);
  });

  it.each([
    `/jobs/../../../../../prod/services/evil:80/proxy/jobs/${JOB}`,
    '/jobs/%2e%2e/x',
    `/jobs/${JOB.slice(1)}`,
    '/jobs/$&/checkpoints',
  ])('refuses the job id in %s', (path) => {
    const built = proxyPath('ns', 'orders', path);
    expect(built).toMatchObject({ ok: false });
    expect(built.ok ? '' : built.message).toMatch(/^job id ".*" is not a Flink job id \(32 hex characters\)$/);
  });

  it('encodes the query: it is data, never a path', () => {
    expect(proxyPath('ns', 'orders', `/jobs/${JOB}?x/../y`)).toMatchObject({ ok: true, search: '?x%2F..%2Fy=' });
  });

  it('refuses a namespace or a path segment that is not a plain word', () => {
    expect(proxyPath('../prod', 'orders', '/config')).toMatchObject({ ok: false });
    expect(proxyPath('ns', 'orders', '/../config')).toEqual({
      ok: false,
      message: 'the Flink REST path segment ".." is not a plain word',
    });
  });
});
