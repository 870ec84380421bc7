// Worker processes killed with SIGKILL at every point of a run: another process finishes each operation, exactly once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { ANNOTATION_OPERATION_ID } from '../../src/domain/model/plan.js';
import type { Target } from '../../src/domain/model/target.js';
import type { RequestInfo } from '@flink-chatops/sim/kube/routes';
import { eventually } from '../support/poll.js';
import { APPROVAL_NS, NS, spawnWorker, WorkerEnv, type WorkerProcess } from '../support/worker-env.js';

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

const PATCH_HELD_MS = 12_000;
const target = (name: string, namespace = NS): Target => ({ kind: 'FlinkDeployment', namespace, name });
const restart = (t: Target): OperationIntent => ({ kind: 'restart', target: t, incidentChannels: [] });

function start(extra: Record<string, string> = {}): WorkerProcess {
  const p = spawnWorker(env, { WORKER_CONCURRENCY: '8', ...extra });
  processes.push(p);
  return p;
}

/** Resolves on the first API request (answered) that matches. */
function answered(match: (info: RequestInfo) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = env.cluster.server.onRequest((info) => {
      if (!match(info)) return;
      stop();
      resolve();
    });
  });
}

/** Resolves once the simulated store holds a patch of this bot on the target (then, synchronously, `then`). */
function applied(t: Target, then: () => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = env.cluster.store.subscribe((change) => {
      const o = change.object;
      if (o.kind !== t.kind || o.metadata.name !== t.name || o.metadata.namespace !== t.namespace) return;
      if (o.metadata.annotations?.[ANNOTATION_OPERATION_ID] === undefined) return;
      stop();
      then();
      resolve();
    });
  });
}

/**
 * Resolves once the request held by the `delay` fault on `verb` `name` has been carried out (applied, or refused as
 * stale): no event marks a refused request, but a GET held as long and sent after that request reached the server
 * is answered only after its hold ended — the server's timers fire in order.
 */
async function heldRequestDone(verb: string, name: string, ms: number): Promise<void> {
  const { faults, url } = env.cluster.server;
  const held = () => faults.list().some((f) => f.kind === 'delay' && f.verb === verb && f.name === name);
  await eventually(`the held ${verb} of ${name} to reach the server`, () => !held(), { timeoutMs: 30_000 });
  const probe = `probe-after-${name}`;
  faults.inject({ kind: 'delay', verb: 'get', name: probe, ms });
  await fetch(`${url}/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments/${probe}`);
}

/** Counts the spec changes (generation moves) of each target, whoever made them. */
function countSpecChanges(): Map<string, number> {
  const counts = new Map<string, number>();
  const last = new Map<string, number>();
  for (const o of env.cluster.store.list('flinkdeployments'))
    last.set(`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.generation ?? 0);
  env.cluster.store.subscribe((change) => {
    const o = change.object;
    if (o.kind !== 'FlinkDeployment') return;
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    const generation = o.metadata.generation ?? 0;
    if ((last.get(key) ?? generation) < generation) counts.set(key, (counts.get(key) ?? 0) + 1);
    last.set(key, generation);
  });
  return counts;
}

it('killed before, right after, and during each phase: another worker process finishes every operation once', async () => {
  const queuedT = target('crash-queued', APPROVAL_NS);
  const submittingT = target('crash-submitting');
  const uncertainT = target('crash-uncertain');
  const verifyingT = target('crash-verifying');
  await Promise.all(
    [queuedT, submittingT, uncertainT, verifyingT].map((t) => env.deploy(t.name, { namespace: t.namespace })),
  );
  const specChanges = countSpecChanges();
  const { faults } = env.cluster.server;
  // (a) before submit, still QUEUED: the run holds the lease and waits for the namespace's first event list.
  faults.inject({ kind: 'delay', verb: 'list', resource: 'events', namespace: APPROVAL_NS, ms: 20_000 });
  // (a') before submit, SUBMITTING: the PATCH is held at the server past the takeover, then refused as stale.
  faults.inject({ kind: 'delay', verb: 'patch', name: submittingT.name, ms: PATCH_HELD_MS });
  // (b) right after submit: the PATCH is applied but its answer lost; the read that follows is held up.
  faults.inject({ kind: 'lose-response', verb: 'patch', name: uncertainT.name });
  // (c) during verification: the operator takes its time.
  env.cluster.operator.setScenario(NS, verifyingT.name, 'slow-reconcile', { slowReconcileSeconds: 900 });

  const a = start();
  await a.ready;
  const queuedListed = answered(
    (i) => i.verb === 'list' && i.resource === 'flinkdeployments' && i.namespace === APPROVAL_NS,
  );
  // The read after the lost answer is held up, so the run is caught between the call and knowing its outcome.
  const uncertainApplied = applied(uncertainT, () =>
    faults.inject({ kind: 'delay', verb: 'get', name: uncertainT.name, ms: 20_000 }),
  );
  const ops = await Promise.all([queuedT, submittingT, uncertainT, verifyingT].map((t) => env.request(restart(t))));
  const [, submitting, uncertain, verifying] = ops as [
    OperationRecord,
    OperationRecord,
    OperationRecord,
    OperationRecord,
  ];
  await Promise.all([
    uncertainApplied,
    queuedListed,
    env.waitForState(uncertain.id, ['SUBMITTING', 'UNCERTAIN']),
    env.waitForState(verifying.id, 'SUBMITTED'),
  ]);
  await env.waitForState(submitting.id, 'SUBMITTING');
  a.child.kill('SIGKILL');
  await a.exited;
  // The held PATCH of the dead worker is answered (409: its resourceVersion is stale) only when its hold ends.
  const heldPatchDone = heldRequestDone('patch', submittingT.name, PATCH_HELD_MS);
  heldPatchDone.catch(() => undefined);
  const atKill = await Promise.all(ops.map(async (op) => (await env.store.get(op.id))?.state));
  expect(atKill[0]).toBe('QUEUED');
  expect(atKill[1]).toBe('SUBMITTING');
  expect(['SUBMITTING', 'UNCERTAIN']).toContain(atKill[2]);
  expect(atKill[3]).toBe('SUBMITTED');

  const b = start();
  await b.ready;
  const done = await Promise.all(ops.map((op) => env.waitTerminal(op.id, 40_000))).catch((error: unknown) => {
    throw new Error(
      `${String(error)}\nworker B said: ${b.lines
        .slice(-20)
        .map((l) => JSON.stringify(l))
        .join('\n')}`,
    );
  });
  expect(done.map((r) => r.state)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
  const states = done.map((r) => r.history.filter((e) => e.type === 'state').map((e) => e.name));
  // A resumed SUBMITTING is treated as UNCERTAIN: read first, submitted again only when nothing of ours is there.
  expect(states[1]).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'UNCERTAIN', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
  expect(states[2]?.slice(-2)).toEqual(['SUBMITTED', 'COMPLETED']);
  expect(states[2]).toContain('UNCERTAIN');
  expect(states[3]).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
  // Counted once the held PATCH has been carried out: it must not have been applied.
  await heldPatchDone;
  for (const [i, t] of [queuedT, submittingT, uncertainT, verifyingT].entries()) {
    const live = env.cluster.store.get('flinkdeployments', t.namespace, t.name);
    expect(specChanges.get(`${t.namespace}/${t.name}`), t.name).toBe(1);
    expect(live?.metadata.annotations?.[ANNOTATION_OPERATION_ID]).toBe(ops[i]?.id);
    expect(done[i]?.submittedGeneration).toBe(live?.metadata.generation);
  }
  // B finished them: its log says so for each operation.
  for (const op of ops) expect(b.lines.some((l) => l.opId === op.id && l.msg === 'completed with evidence')).toBe(true);
  // The runner releases a target's lease right after it records the verdict: wait for that release (B is alive and
  // renews what it holds, so a lease it never gave back would still be listed when this gives up).
  await eventually('every lease released', async () => (await env.leases.listLeases()).length === 0);
  b.child.kill('SIGTERM');
  expect(await b.exited).toBe(0);
});
