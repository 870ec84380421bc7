import { describe, expect, it } from 'vitest';
import { canonicalDigest } from '../../../../../src/domain/model/canonical.js';
import { applyMergePatch } from '../../../../../src/domain/model/merge-patch.js';
import { planDigest, snapshotName } from '../../../../../src/domain/engines/planning/planner.js';
import { nameProblem, type Target } from '../../../../../src/domain/model/target.js';
import {
  PLAN_CONTEXT as CTX,
  editSpec,
  flinkDeployment,
  flinkSessionJob,
  planFor as planned,
  writeStatus,
} from '../../../../support/fixtures.js';

const NS = 'streaming-prod';
const DEP: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders-enricher' };
const SJ: Target = { kind: 'FlinkSessionJob', namespace: NS, name: 'clickstream-sessionizer' };
const ANNOTATIONS = { 'flink-chatops/operation-id': CTX.opId, 'flink-chatops/requested-by': CTX.requester };

const running = flinkDeployment();
const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });

describe('planOperation: the change submitted per kind', () => {
  it.each([
    {
      name: 'suspend',
      raw: { kind: 'suspend', target: DEP },
      resource: running,
      spec: { job: { state: 'suspended' } },
      diff: [{ path: 'spec.job.state', before: 'running', after: 'suspended' }],
      mode: 'savepoint',
    },
    {
      name: 'suspend --mode stateless (a different mode)',
      raw: { kind: 'suspend', target: DEP, mode: 'stateless' },
      resource: running,
      spec: { job: { state: 'suspended', upgradeMode: 'stateless' } },
      diff: [
        { path: 'spec.job.state', before: 'running', after: 'suspended' },
        { path: 'spec.job.upgradeMode', before: 'savepoint', after: 'stateless' },
      ],
      mode: 'stateless',
    },
    {
      name: 'suspend --mode savepoint (the mode it already has)',
      raw: { kind: 'suspend', target: DEP, mode: 'savepoint' },
      resource: running,
      spec: { job: { state: 'suspended' } },
      diff: [{ path: 'spec.job.state', before: 'running', after: 'suspended' }],
      mode: 'savepoint',
    },
    {
      name: 'resume',
      raw: { kind: 'resume', target: DEP },
      resource: suspended,
      spec: { job: { state: 'running' } },
      diff: [{ path: 'spec.job.state', before: 'suspended', after: 'running' }],
      mode: 'savepoint',
    },
    {
      name: 'restart',
      raw: { kind: 'restart', target: DEP },
      resource: running,
      spec: { restartNonce: CTX.nonce },
      diff: [{ path: 'spec.restartNonce', before: null, after: CTX.nonce }],
      mode: 'savepoint',
    },
    {
      name: 'scale',
      raw: { kind: 'scale', target: DEP, parallelism: 8 },
      resource: running,
      spec: { job: { parallelism: 8 } },
      diff: [{ path: 'spec.job.parallelism', before: 4, after: 8 }],
      mode: 'savepoint',
    },
    {
      name: 'upgrade',
      raw: { kind: 'upgrade', target: DEP, image: 'registry.example.com/orders:2.0' },
      resource: running,
      spec: { image: 'registry.example.com/orders:2.0' },
      diff: [
        { path: 'spec.image', before: 'flink:1.20.1-scala_2.12-java17', after: 'registry.example.com/orders:2.0' },
      ],
      mode: 'savepoint',
    },
    {
      name: 'upgrade --mode last-state',
      raw: { kind: 'upgrade', target: DEP, image: 'registry.example.com/orders:2.0', mode: 'last-state' },
      resource: running,
      spec: { image: 'registry.example.com/orders:2.0', job: { upgradeMode: 'last-state' } },
      diff: [
        { path: 'spec.image', before: 'flink:1.20.1-scala_2.12-java17', after: 'registry.example.com/orders:2.0' },
        { path: 'spec.job.upgradeMode', before: 'savepoint', after: 'last-state' },
      ],
      mode: 'last-state',
    },
    {
      name: 'restore',
      raw: { kind: 'restore', target: DEP, from: 's3://flink/savepoints/orders/savepoint-42' },
      resource: running,
      spec: {
        job: { initialSavepointPath: 's3://flink/savepoints/orders/savepoint-42', savepointRedeployNonce: CTX.nonce },
      },
      diff: [
        { path: 'spec.job.initialSavepointPath', before: null, after: 's3://flink/savepoints/orders/savepoint-42' },
        { path: 'spec.job.savepointRedeployNonce', before: null, after: CTX.nonce },
      ],
      mode: 'savepoint',
    },
    {
      name: 'restore --allow-non-restored-state',
      raw: { kind: 'restore', target: DEP, from: 's3://sp/1', allowNonRestoredState: true },
      resource: running,
      spec: {
        job: { initialSavepointPath: 's3://sp/1', savepointRedeployNonce: CTX.nonce, allowNonRestoredState: true },
      },
      diff: [
        { path: 'spec.job.initialSavepointPath', before: null, after: 's3://sp/1' },
        { path: 'spec.job.savepointRedeployNonce', before: null, after: CTX.nonce },
        { path: 'spec.job.allowNonRestoredState', before: null, after: true },
      ],
      mode: 'savepoint',
    },
  ])('$name', ({ raw, resource, spec, diff, mode }) => {
    const plan = planned(raw, resource);
    expect(plan.change).toEqual({ type: 'patch', patch: { metadata: { annotations: ANNOTATIONS }, spec } });
    expect(plan.diff).toEqual(diff);
    expect(plan.effectiveUpgradeMode).toBe(mode);
    expect(plan).toMatchObject({
      revision: 1,
      target: raw.target,
      uid: resource.metadata.uid,
      generation: resource.metadata.generation,
      resourceVersion: resource.metadata.resourceVersion,
    });
  });

  it('never puts a resourceVersion in the patch (the worker adds the one read under the lease)', () => {
    const plan = planned({ kind: 'scale', target: DEP, parallelism: 8 }, running);
    expect(JSON.stringify(plan.change)).not.toContain('resourceVersion');
  });

  it('patches that, applied to the resource, set exactly the intended fields and the two annotations', () => {
    const plan = planned({ kind: 'upgrade', target: DEP, image: 'img:2', mode: 'stateless' }, running);
    if (plan.change.type !== 'patch') throw new Error('expected a patch');
    const after = applyMergePatch(running, plan.change.patch) as typeof running;
    expect(after.spec?.image).toBe('img:2');
    expect(after.spec?.job).toEqual({ ...(running.spec?.job as object), upgradeMode: 'stateless' });
    expect(after.metadata.annotations).toEqual(ANNOTATIONS);
  });

  it('uses the revision it is given when re-planning', () => {
    expect(planned({ kind: 'restart', target: DEP }, running, { ...CTX, revision: 3 }).revision).toBe(3);
  });
});

describe('effective upgrade mode and the mode note', () => {
  const noMode = flinkDeployment({ spec: { job: { upgradeMode: null } } });
  it.each([
    { raw: { kind: 'restart', target: DEP }, resource: noMode, mode: 'stateless', note: false },
    { raw: { kind: 'scale', target: DEP, parallelism: 2 }, resource: running, mode: 'savepoint', note: false },
    { raw: { kind: 'suspend', target: DEP, mode: 'stateless' }, resource: noMode, mode: 'stateless', note: false },
    { raw: { kind: 'suspend', target: DEP, mode: 'last-state' }, resource: noMode, mode: 'last-state', note: true },
    {
      raw: { kind: 'upgrade', target: DEP, image: 'x:1', mode: 'stateless' },
      resource: running,
      mode: 'stateless',
      note: true,
    },
  ])('$raw.kind $raw.mode on upgradeMode $resource.spec.job.upgradeMode → $mode', ({ raw, resource, mode, note }) => {
    const plan = planned(raw, resource);
    expect(plan.effectiveUpgradeMode).toBe(mode);
    const notes = plan.notes.filter((n) => n.includes('later operations will use'));
    expect(notes).toEqual(note ? [expect.stringContaining(`later operations will use ${mode} too`)] : []);
  });

  it('has no upgrade mode for a savepoint (it redeploys nothing)', () => {
    expect(planned({ kind: 'savepoint', target: DEP }, running).effectiveUpgradeMode).toBeUndefined();
  });
});

describe('nonces', () => {
  it('restart picks a value different from the current restartNonce', () => {
    const resource = flinkDeployment({ spec: { restartNonce: CTX.nonce } });
    const plan = planned({ kind: 'restart', target: DEP }, resource);
    expect(plan.diff).toEqual([{ path: 'spec.restartNonce', before: CTX.nonce, after: CTX.nonce + 1 }]);
  });

  it('restore picks a value different from the current savepointRedeployNonce', () => {
    const resource = flinkDeployment({ spec: { job: { savepointRedeployNonce: CTX.nonce } } });
    const plan = planned({ kind: 'restore', target: DEP, from: 's3://sp/2' }, resource);
    expect(plan.diff).toContainEqual({
      path: 'spec.job.savepointRedeployNonce',
      before: CTX.nonce,
      after: CTX.nonce + 1,
    });
  });
});

describe('restore notes', () => {
  it('says allowNonRestoredState stays set', () => {
    const plan = planned({ kind: 'restore', target: DEP, from: 's3://sp/1', allowNonRestoredState: true }, running);
    expect(plan.notes).toEqual([expect.stringMatching(/allowNonRestoredState: true stays set/)]);
  });

  it('does not set allowNonRestoredState again when it is already true, but still says it stays', () => {
    const resource = flinkDeployment({ spec: { job: { allowNonRestoredState: true } } });
    const plan = planned({ kind: 'restore', target: DEP, from: 's3://sp/1', allowNonRestoredState: true }, resource);
    expect(plan.diff.map((d) => d.path)).not.toContain('spec.job.allowNonRestoredState');
    expect(plan.notes.join(' ')).toMatch(/stays set/);
  });

  it('says a suspended target only records the path and stays suspended until resume', () => {
    const plan = planned({ kind: 'restore', target: DEP, from: 's3://sp/1' }, suspended);
    expect(plan.notes).toEqual([expect.stringMatching(/stays suspended until resume, which restores from it/)]);
  });

  it('warns that a stateless suspended target would not restore on resume', () => {
    const resource = flinkDeployment({ spec: { job: { state: 'suspended', upgradeMode: 'stateless' } } });
    const plan = planned({ kind: 'restore', target: DEP, from: 's3://sp/1' }, resource);
    expect(plan.notes.join(' ')).toMatch(/stateless, so a resume would start from empty state/);
  });
});

describe('savepoint: a new FlinkStateSnapshot', () => {
  it('creates the snapshot the savepoint command describes, in the target namespace', () => {
    const plan = planned({ kind: 'savepoint', target: DEP }, running);
    expect(plan.change).toEqual({
      type: 'create-snapshot',
      snapshot: {
        apiVersion: 'flink.apache.org/v1beta1',
        kind: 'FlinkStateSnapshot',
        metadata: { name: 'orders-enricher-op-abc123', namespace: NS, annotations: ANNOTATIONS },
        spec: {
          jobReference: { kind: 'FlinkDeployment', name: 'orders-enricher' },
          savepoint: { disposeOnDelete: false },
          backoffLimit: 2,
        },
      },
    });
    expect(plan.diff).toEqual([
      { path: 'snapshot.name', before: null, after: `${NS}/orders-enricher-op-abc123` },
      { path: 'snapshot.spec.jobReference', before: null, after: 'FlinkDeployment/orders-enricher' },
      { path: 'snapshot.spec.savepoint.disposeOnDelete', before: null, after: false },
      { path: 'snapshot.spec.backoffLimit', before: null, after: 2 },
    ]);
    expect(plan.notes).toEqual([expect.stringContaining('does not change')]);
  });

  it('references a session job by its kind', () => {
    const plan = planned({ kind: 'savepoint', target: SJ }, flinkSessionJob());
    if (plan.change.type !== 'create-snapshot') throw new Error('expected a snapshot');
    expect(plan.change.snapshot.spec).toMatchObject({ jobReference: { kind: 'FlinkSessionJob', name: SJ.name } });
  });

  it.each([
    ['a 250-character name', 'a'.repeat(250)],
    ['a 253-character name', 'b'.repeat(253)],
    ['a cut landing on "-"', `${'c'.repeat(239)}-${'d'.repeat(10)}`],
    ['a cut landing on "."', `${'e'.repeat(239)}.${'f'.repeat(13)}`],
  ])('cuts %s to 253 characters, keeps the op id whole and stays a valid name', (_case, name) => {
    const cut = snapshotName(name, 'op-abc123xyz');
    expect(cut.length).toBeLessThanOrEqual(253);
    expect(cut.endsWith('-op-abc123xyz')).toBe(true);
    expect(nameProblem(cut)).toBeUndefined();
    expect(name.startsWith(cut.slice(0, -'-op-abc123xyz'.length))).toBe(true);
  });

  it('keeps a short name whole', () => {
    expect(snapshotName('orders', 'op-abc123')).toBe('orders-op-abc123');
  });

  it('cuts the planned snapshot of a 250-character target', () => {
    const name = 'a'.repeat(250);
    const plan = planned({ kind: 'savepoint', target: { ...DEP, name } }, flinkDeployment({ name }));
    if (plan.change.type !== 'create-snapshot') throw new Error('expected a snapshot');
    const snapshotMeta = plan.change.snapshot.metadata as { name: string };
    expect(snapshotMeta.name).toBe(`${'a'.repeat(243)}-op-abc123`);
    expect(snapshotMeta.name).toHaveLength(253);
  });
});

describe('plan digest', () => {
  const scale8 = { kind: 'scale', target: DEP, parallelism: 8 };

  it('is the sha256 of canonical JSON of kind, namespace, name, uid, generation and change', () => {
    const plan = planned(scale8, running);
    expect(plan.digest).toBe(
      canonicalDigest({
        kind: 'FlinkDeployment',
        namespace: NS,
        name: DEP.name,
        uid: plan.uid,
        generation: plan.generation,
        change: plan.change,
      }),
    );
  });

  it('does not depend on the order keys were built in', () => {
    const plan = planned(scale8, running);
    const reordered = {
      change: {
        patch: { spec: { job: { parallelism: 8 } }, metadata: { annotations: { ...ANNOTATIONS } } },
        type: 'patch' as const,
      },
      generation: plan.generation,
      uid: plan.uid,
      target: { name: DEP.name, namespace: NS, kind: 'FlinkDeployment' as const },
    };
    expect(planDigest(reordered)).toBe(plan.digest);
  });

  it('does not move when only the resourceVersion or the status moved', () => {
    const statusWrite = writeStatus(running, { jobStatus: { updateTime: '1767225700000' } });
    expect(statusWrite.metadata.resourceVersion).not.toBe(running.metadata.resourceVersion);
    expect(planned(scale8, statusWrite).digest).toBe(planned(scale8, running).digest);
  });

  it.each([
    ['the uid', flinkDeployment({ uid: 'another-uid' }), scale8, CTX],
    ['the generation', flinkDeployment({ generation: 9 }), scale8, CTX],
    ['the change', running, { ...scale8, parallelism: 6 }, CTX],
    ['the op id in the annotations', running, scale8, { ...CTX, opId: 'op-zzz999' }],
  ])('moves when %s changes', (_what, resource, raw, ctx) => {
    expect(planned(raw, resource, ctx).digest).not.toBe(planned(scale8, running).digest);
  });

  it('moves when another spec edit raised the generation', () => {
    const edited = editSpec(running, { flinkConfiguration: { 'pipeline.max-parallelism': '128' } });
    expect(planned(scale8, edited).digest).not.toBe(planned(scale8, running).digest);
  });
});
