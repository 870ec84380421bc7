// The Git copy: which fields a default copy declares, explicit paths, commits, drift, and each tool's marks.
import { describe, expect, it } from 'vitest';
import { declarablePath, GitCopy, marksOf, defaultApplication } from '../../../../src/kube/gitops/git-copy.js';
import type { KubeObject } from '../../../../src/kube/store.js';

function object(spec: Record<string, unknown>, kind = 'FlinkDeployment'): KubeObject {
  return { apiVersion: 'flink.apache.org/v1beta1', kind, metadata: { name: 'orders', namespace: 'team-a' }, spec };
}

const spec = {
  image: 'flink:1.20',
  restartNonce: 3,
  flinkConfiguration: { 'state.savepoints.dir': 's3://x' },
  podTemplate: {},
  job: { parallelism: 2, args: ['a'], savepointRedeployNonce: 1, initialSavepointPath: 's3://sp' },
};

describe('the Git copy', () => {
  it('declares every leaf under spec but the nonces and the initial savepoint path; arrays and {} are leaves', () => {
    expect(GitCopy.ofSpec(object(spec)).entries()).toEqual([
      { path: ['spec', 'image'], value: 'flink:1.20' },
      { path: ['spec', 'flinkConfiguration', 'state.savepoints.dir'], value: 's3://x' },
      { path: ['spec', 'podTemplate'], value: {} },
      { path: ['spec', 'job', 'parallelism'], value: 2 },
      { path: ['spec', 'job', 'args'], value: ['a'] },
    ]);
  });

  it('takes explicit paths with the object’s values; a map stands for its leaves; an unset path is an error', () => {
    const copy = GitCopy.ofPaths(object(spec), [
      ['spec', 'job', 'savepointRedeployNonce'],
      ['spec', 'flinkConfiguration'],
    ]);
    if ('error' in copy) throw new Error(copy.error);
    expect(copy.entries().map((e) => e.path.join('.'))).toEqual([
      'spec.job.savepointRedeployNonce',
      'spec.flinkConfiguration.state.savepoints.dir',
    ]);
    expect(GitCopy.ofPaths(object(spec), [['spec', 'job', 'state']])).toEqual({
      error: 'spec.job.state is not set on the object, so Git cannot declare it',
    });
  });

  it('a commit replaces what Git declares under the path; drift is any declared value the object does not have', () => {
    const copy = GitCopy.ofSpec(object(spec));
    expect(copy.drifted(object(spec))).toBe(false);
    expect(copy.drifted(object({ ...spec, restartNonce: 9 }))).toBe(false);
    copy.commit(['spec', 'flinkConfiguration'], { 'a.b': '1' });
    expect(copy.entries().filter((e) => e.path[1] === 'flinkConfiguration')).toEqual([
      { path: ['spec', 'flinkConfiguration', 'a.b'], value: '1' },
    ]);
    expect(copy.drifted(object(spec))).toBe(true);
  });

  it.each([
    [['spec', 'job'], undefined],
    [['metadata', 'labels', 'team'], undefined],
    [['metadata', 'name'], /neither under spec/],
    [['status', 'x'], /neither under spec/],
    [[], /non-empty array/],
    [['spec', ''], /non-empty keys/],
  ])('declarable %j', (path, problem) => {
    const found = declarablePath(path);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});

describe('marks', () => {
  // argo-cd docs user-guide/resource_tracking.md: annotation tracking by default since 3.0, the label before it.
  it('Argo CD: the tracking id by default, the instance label with label tracking, both with annotation+label', () => {
    const o = object(spec, 'FlinkSessionJob');
    const app = defaultApplication('argocd', o);
    const label = { 'app.kubernetes.io/instance': 'team-a_orders' };
    const annotation = {
      'argocd.argoproj.io/tracking-id': 'team-a_orders:flink.apache.org/FlinkSessionJob:team-a/orders',
    };
    expect(marksOf('argocd', o, app)).toEqual({ labels: {}, annotations: annotation });
    expect(marksOf('argocd', o, app, 'label')).toEqual({ labels: label, annotations: {} });
    expect(marksOf('argocd', o, app, 'annotation+label')).toEqual({ labels: label, annotations: annotation });
  });

  it('Flux: the Kustomization in flux-system by default, or <namespace>/<name>', () => {
    const o = object(spec);
    expect(marksOf('flux', o, defaultApplication('flux', o)).labels).toEqual({
      'kustomize.toolkit.fluxcd.io/name': 'orders',
      'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
    });
    expect(marksOf('flux', o, 'apps/web').labels).toEqual({
      'kustomize.toolkit.fluxcd.io/name': 'web',
      'kustomize.toolkit.fluxcd.io/namespace': 'apps',
    });
  });

  it('Helm: managed-by and the release annotations', () => {
    const o = object(spec);
    expect(marksOf('helm', o, defaultApplication('helm', o))).toEqual({
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'orders', 'meta.helm.sh/release-namespace': 'team-a' },
    });
  });
});
