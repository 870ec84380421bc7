// 200 operations over 50 targets with two worker processes: all end, none applied twice, none lost.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import { ANNOTATION_OPERATION_ID } from '../../src/domain/model/plan.js';
import type { Target } from '../../src/domain/model/target.js';
import { eventually } from '../support/poll.js';
import { NS, spawnWorker, WorkerEnv, type WorkerProcess } from '../support/worker-env.js';

const TARGETS = 50;
const PER_TARGET = 4;

let env: WorkerEnv;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  env = await WorkerEnv.start();
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await env?.close();
});

/** Four different changes per target, so every one of them has something to do after the ones before it. */
function intents(t: Target): OperationIntent[] {
  return [
    { kind: 'scale', target: t, parallelism: 3, incidentChannels: [] },
    { kind: 'restart', target: t, incidentChannels: [] },
    { kind: 'scale', target: t, parallelism: 5, incidentChannels: [] },
    { kind: 'upgrade', target: t, image: 'flink:1.20.1', incidentChannels: [] },
  ];
}

it(`${TARGETS * PER_TARGET} operations over ${TARGETS} targets, two worker processes`, async () => {
  const targets = Array.from({ length: TARGETS }, (_, i): Target => ({
    kind: 'FlinkDeployment',
    namespace: NS,
    name: `load-${i}`,
  }));
  await Promise.all(targets.map((t) => env.deploy(t.name)));
  // Every applied spec change, per target, in order, with the operation id it carried.
  const appliedBy = new Map<string, string[]>();
  const generations = new Map(targets.map((t) => [t.name, 1]));
  env.cluster.store.subscribe((change) => {
    const o = change.object;
    if (o.kind !== 'FlinkDeployment' || !generations.has(o.metadata.name)) return;
    const generation = o.metadata.generation ?? 0;
    if (generation <= (generations.get(o.metadata.name) ?? 0)) return;
    generations.set(o.metadata.name, generation);
    appliedBy.set(o.metadata.name, [
      ...(appliedBy.get(o.metadata.name) ?? []),
      o.metadata.annotations?.[ANNOTATION_OPERATION_ID] ?? 'someone else',
    ]);
  });
  env.cluster.server.resetStats();

  // All requested (and allowed) first, each target's in order; the later ones re-plan after the earlier ones.
  const ops: { id: string; target: string }[] = [];
  for (let round = 0; round < PER_TARGET; round++) {
    const created = await Promise.all(
      targets.map(async (t) => ({ id: (await env.request(intents(t)[round] as OperationIntent)).id, target: t.name })),
    );
    ops.push(...created);
  }
  const workers = [spawnWorker(env, { WORKER_CONCURRENCY: '8' }), spawnWorker(env, { WORKER_CONCURRENCY: '8' })];
  processes.push(...workers);
  await Promise.all(workers.map((w) => w.ready));
  const done = await Promise.all(ops.map((op) => env.waitTerminal(op.id, 90_000)));
  expect(done.filter((r) => r.state !== 'COMPLETED').map((r) => `${r.id} ${r.state}`)).toEqual([]);
  // Exactly one applied change per operation, in each target's order of request.
  for (const t of targets) {
    expect(appliedBy.get(t.name), t.name).toEqual(ops.filter((op) => op.target === t.name).map((op) => op.id));
  }
  expect(env.cluster.server.stats().requests['patch flinkdeployments']).toBe(TARGETS * PER_TARGET);
  // Both processes did work.
  for (const w of workers) expect(w.lines.some((l) => l.msg === 'completed with evidence')).toBe(true);
  // A run gives its lease back just after its terminal state (once its after-COMPLETED watch started): every lease
  // is gone soon after the last ending; a lease still renewed by a live worker would never go.
  await eventually('every lease released', async () => (await env.leases.listLeases()).length === 0);
  // Every operation after the first on a target re-planned against what the one before it produced.
  expect(done.filter((r) => r.history.some((e) => e.type === 'replanned'))).toHaveLength(TARGETS * (PER_TARGET - 1));
});
