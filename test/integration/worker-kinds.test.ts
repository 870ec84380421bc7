// Each operation kind reaches its outcome with evidence, through the real worker against the simulated cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import {
  isStable,
  recordStatuses,
  statusOf,
  waitForStatus,
  waitStable,
  type Status,
} from '@flink-chatops/sim/testing/sim';
import { sessionCluster, sessionJob } from '@flink-chatops/sim/testing/sim-resources';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeAll(async () => {
  env = await WorkerEnv.start();
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

const target = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });
const common = { incidentChannels: [] };

function evidenceOf(record: OperationRecord): WorkerEvidence {
  return record.evidence as WorkerEvidence;
}

/** Every `evidence` history entry names criteria that the final verdict also lists as met. */
function expectEvidenceTrail(record: OperationRecord): void {
  const evidence = evidenceOf(record);
  expect(evidence.verdict?.outcome).toBe('completed');
  const met = new Set(evidence.criteria?.filter((c) => c.met).map((c) => c.name));
  expect(evidence.criteria?.every((c) => c.met)).toBe(true);
  const trail = record.history.filter((e) => e.type === 'evidence');
  expect(trail.length).toBeGreaterThan(0);
  for (const e of trail) {
    for (const c of e.detail.criteria as { name: string; observed: unknown; source: string; at: number }[]) {
      expect(met.has(c.name)).toBe(true);
      expect(c.source).toBeTruthy();
      expect(c.at).toBeGreaterThanOrEqual(evidence.baseline.takenAt);
    }
  }
  const states = record.history.filter((e) => e.type === 'state').map((e) => e.name);
  expect(states).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
}

describe('each kind reaches COMPLETED with its evidence', () => {
  const cases: {
    kind: string;
    setup?: { state?: 'suspended' };
    intent: (t: Target) => OperationIntent;
    check: (r: OperationRecord) => void;
  }[] = [
    {
      kind: 'suspend',
      intent: (t) => ({ kind: 'suspend', target: t, ...common }),
      check: (r) =>
        expect(
          evidenceOf(r)
            .criteria?.map((c) => c.name)
            .join(' '),
        ).toMatch(/savepoint/i),
    },
    {
      kind: 'resume',
      setup: { state: 'suspended' },
      intent: (t) => ({ kind: 'resume', target: t, ...common }),
      check: () => undefined,
    },
    { kind: 'restart', intent: (t) => ({ kind: 'restart', target: t, ...common }), check: () => undefined },
    {
      kind: 'scale',
      intent: (t) => ({ kind: 'scale', target: t, parallelism: 5, ...common }),
      check: (r) => expect(r.submittedGeneration).toBe(2),
    },
    {
      kind: 'upgrade',
      intent: (t) => ({ kind: 'upgrade', target: t, image: 'flink:1.20.1', ...common }),
      check: () => undefined,
    },
    {
      kind: 'savepoint',
      intent: (t) => ({ kind: 'savepoint', target: t, ...common }),
      check: (r) => {
        expect(evidenceOf(r).snapshot?.uid).toBeTruthy();
        expect(r.submittedGeneration).toBeUndefined();
      },
    },
    {
      kind: 'restore',
      intent: (t) => ({
        kind: 'restore',
        target: t,
        from: `s3://flink-state/${NS}/${t.name}/savepoints/savepoint-0a1b2c`,
        allowNonRestoredState: false,
        ...common,
      }),
      check: () => undefined,
    },
  ];

  it.each(cases)('$kind', async ({ kind, setup, intent, check }) => {
    const name = `kind-${kind}`;
    await env.deploy(name, setup ?? {});
    const op = await env.request(intent(target(name)));
    const done = await env.waitTerminal(op.id);
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expectEvidenceTrail(done);
    check(done);
  });

  it('undo of a scale puts the parallelism back and is judged as a scale', async () => {
    await env.deploy('kind-undo', { parallelism: 2 });
    const scaled = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: target('kind-undo'), parallelism: 6, ...common })).id,
    );
    expect(scaled.state).toBe('COMPLETED');
    const undo = await env.waitTerminal((await env.request({ kind: 'undo', opId: scaled.id, ...common })).id);
    expect(undo.state, JSON.stringify(evidenceOf(undo).verdict)).toBe('COMPLETED');
    expectEvidenceTrail(undo);
    expect(
      (env.cluster.store.get('flinkdeployments', NS, 'kind-undo')?.spec?.job as { parallelism: number }).parallelism,
    ).toBe(2);
  });
});

it('a FlinkSessionJob: scale is verified with its session cluster in view', async () => {
  const { store } = env.cluster;
  store.create('flinkdeployments', sessionCluster('kind-session', NS));
  await waitForStatus(
    store,
    'flinkdeployments',
    NS,
    'kind-session',
    (s) => s.jobManagerDeploymentStatus === 'READY',
    'session cluster READY',
  );
  store.create('flinksessionjobs', sessionJob('kind-sessionjob', NS, 'kind-session'));
  await waitStable(store, NS, 'kind-sessionjob', 'flinksessionjobs');
  const job: Target = { kind: 'FlinkSessionJob', namespace: NS, name: 'kind-sessionjob' };
  const done = await env.waitTerminal(
    (await env.request({ kind: 'scale', target: job, parallelism: 3, ...common })).id,
  );
  expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
  expectEvidenceTrail(done);
});

it('a session cluster restart: COMPLETED lists the state of each session job on it, read after the verdict', async () => {
  const { store } = env.cluster;
  store.create('flinkdeployments', sessionCluster('kind-session-r', NS));
  await waitForStatus(
    store,
    'flinkdeployments',
    NS,
    'kind-session-r',
    (s) => s.jobManagerDeploymentStatus === 'READY',
    'session cluster READY',
  );
  store.create('flinksessionjobs', sessionJob('kind-sj-r', NS, 'kind-session-r'));
  await waitStable(store, NS, 'kind-sj-r', 'flinksessionjobs');
  const cluster: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'kind-session-r' };
  const done = await env.waitTerminal((await env.request({ kind: 'restart', target: cluster, ...common })).id);
  expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
  const detail = done.history.at(-1)?.detail as { notes: string[]; notVerified: string[] };
  expect(detail.notes).toContainEqual(expect.stringMatching(new RegExp(`^sessionjob ${NS}/kind-sj-r: [A-Z]+`)));
  expect(detail.notVerified.join(' | ')).not.toContain('the session jobs on this cluster');
});

describe('failures are reported with their evidence', () => {
  it('a broken image → FAILED', async () => {
    await env.deploy('broken-image');
    const op = await env.request({ kind: 'upgrade', target: target('broken-image'), image: 'flink:broken', ...common });
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('FAILED');
    const failed = done.history.at(-1);
    expect(failed?.detail.reason).toBeTruthy();
    expect(evidenceOf(done).verdict?.outcome).toBe('failed');
  });

  it('a failing savepoint → FAILED', async () => {
    await env.deploy('bad-savepoint');
    env.cluster.operator.setScenario(NS, 'bad-savepoint', 'savepoint-failure');
    const op = await env.request({ kind: 'savepoint', target: target('bad-savepoint'), ...common });
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toBeTruthy();
  });

  it('a slow reconcile: no COMPLETED before the operator reports STABLE on the new generation', async () => {
    await env.deploy('slow');
    env.cluster.operator.setScenario(NS, 'slow', 'slow-reconcile', { slowReconcileSeconds: 40 });
    const statuses = recordStatuses(env.cluster.store, 'flinkdeployments', NS, 'slow');
    const stableAt: number[] = [];
    const unsubscribe = env.cluster.store.subscribe((change) => {
      const o = change.object;
      if (
        o.metadata.name === 'slow' &&
        o.kind === 'FlinkDeployment' &&
        o.metadata.generation === 2 &&
        isStable(statusOf(o) as Status, o)
      )
        stableAt.push(Date.now());
    });
    const op = await env.request({ kind: 'restart', target: target('slow'), ...common });
    const done = await env.waitTerminal(op.id);
    unsubscribe();
    statuses.stop();
    expect(done.state).toBe('COMPLETED');
    expect(stableAt.length).toBeGreaterThan(0);
    expect(done.history.at(-1)?.at).toBeGreaterThanOrEqual(stableAt[0] as number);
    // The reconcile was visibly slow: several status changes came before STABLE on generation 2.
    expect(statuses.seen.filter((s) => s.generation === 2).length).toBeGreaterThan(2);
  });
});
