// Names and job ids read from a resource are checked before a URL is built from them
// (docs/deep-verification.md#how-rest-is-reached).
import { describe, expect, it } from 'vitest';
import { restAddressOf, restClusterOf } from '../../../../src/domain/model/rest-address.js';
import { isDnsLabel, isJobId, jobIdProblem, labelProblem } from '../../../../src/domain/model/target.js';

const JOB = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const session = { kind: 'FlinkSessionJob' as const, name: 'etl' };
const job = (deploymentName: unknown, jobId: unknown) => ({
  spec: { deploymentName },
  status: { jobStatus: { jobId } },
});

describe('validators', () => {
  it('DNS-1123 labels and Flink job ids', () => {
    for (const ok of ['a', 'orders', 'session-cluster', 'x'.repeat(63), '0a']) expect(isDnsLabel(ok)).toBe(true);
    for (const bad of ['', '-a', 'a-', 'A', 'a.b', '..', 'a/b', 'x'.repeat(64), 'a_b', '<!channel>'])
      expect(isDnsLabel(bad)).toBe(false);
    expect(isJobId(JOB)).toBe(true);
    for (const bad of ['', JOB.slice(1), `${JOB}0`, '../x', `${JOB.slice(2)}..`]) expect(isJobId(bad)).toBe(false);
  });

  it('say the field and the value, cut to 80 characters', () => {
    expect(labelProblem('spec.deploymentName', '../x')).toBe(
      'spec.deploymentName "../x" is not a valid name: lowercase letters, digits and "-", at most 63',
    );
    expect(jobIdProblem('status.jobStatus.jobId', 'nope')).toBe(
      'status.jobStatus.jobId "nope" is not a Flink job id (32 hex characters)',
    );
    expect(labelProblem('f', 'x'.repeat(1000))).toContain(`"${'x'.repeat(80)}…"`);
  });
});

describe('restAddressOf', () => {
  it('a session job: its spec.deploymentName and status.jobStatus.jobId, each checked', () => {
    expect(restAddressOf(session, job('session-cluster', JOB))).toEqual({
      ok: true,
      clusterId: 'session-cluster',
      jobId: JOB,
    });
    expect(restAddressOf(session, job(undefined, JOB))).toEqual({ ok: false, missing: true });
    expect(restAddressOf(session, job('session-cluster', undefined))).toEqual({ ok: false, missing: true });
    expect(restAddressOf(session, job('../prod/services/x', JOB))).toMatchObject({
      ok: false,
      missing: false,
      message: expect.stringContaining('spec.deploymentName "../prod/services/x"'),
    });
    expect(restAddressOf(session, job('session-cluster', '../x'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('status.jobStatus.jobId "../x"'),
    });
  });

  it("a FlinkDeployment: its own name, which must be a label (a dotted subdomain is not the operator's)", () => {
    expect(restClusterOf({ kind: 'FlinkDeployment', name: 'orders' }, {})).toEqual({ ok: true, clusterId: 'orders' });
    expect(restClusterOf({ kind: 'FlinkDeployment', name: 'a.b' }, {})).toMatchObject({ ok: false, missing: false });
  });
});
