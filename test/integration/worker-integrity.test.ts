// Record integrity (docs/lifecycle.md#record-integrity): the worker applies what was approved, exactly. Records are
// altered the way someone with Redis write access would (a SET of the record's key), then the real worker runs them
// against the simulated cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePolicyText } from '../../src/app/policy-load.js';
import { staticPolicy, type PolicyProvider } from '../../src/app/policy-source.js';
import type { AuditEvent } from '../../src/domain/kit/audit/event.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { planDigest } from '../../src/domain/engines/planning/planner.js';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Target } from '../../src/domain/model/target.js';
import { outcomeObserver } from '../../src/http/metric-sources.js';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { RedisAuditLog } from '../../src/store/audit-log.js';
import { storeKeys } from '../../src/store/keys.js';
import { NS, POLICY_YAML, REQUESTER, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
let metrics: Metrics;
beforeEach(async () => {
  env = await WorkerEnv.start();
  metrics = createMetrics();
});
afterEach(async () => {
  await env?.close();
});

const orders: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
const scale = (parallelism: number): OperationIntent => ({
  kind: 'scale',
  target: orders,
  parallelism,
  incidentChannels: [],
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What someone with the Redis credentials does: read the record's JSON, change it, SET it back. */
async function tamper(id: string, edit: (record: Json) => void): Promise<void> {
  const key = storeKeys(env.redis.prefix).operation(id);
  const record = JSON.parse((await env.redis.redis.get(key)) ?? 'null') as Json;
  edit(record);
  await env.redis.redis.set(key, JSON.stringify(record));
}

function live() {
  const object = env.cluster.store.get('flinkdeployments', NS, 'orders');
  if (!object) throw new Error('orders is gone');
  const spec = object.spec as Json;
  return {
    generation: object.metadata.generation,
    image: spec.image as unknown,
    parallelism: spec.job.parallelism as unknown,
    env: JSON.stringify(spec.podTemplate ?? null),
  };
}

async function auditOf(opId: string): Promise<AuditEvent[]> {
  const log = new RedisAuditLog(env.redis.redis, { prefix: env.redis.prefix });
  return (await log.readAfter(0, 1000)).filter((e) => e.op?.id === opId);
}

async function runQueued(id: string, policy?: PolicyProvider): Promise<OperationRecord> {
  await env.startWorker({}, { onCommitted: outcomeObserver(metrics), ...(policy ? { policy } : {}) });
  await env.queue.enqueue(id, 1);
  return env.waitTerminal(id);
}

async function expectNothingWritten(done: OperationRecord, before: ReturnType<typeof live>, why: RegExp) {
  expect(done.state).toBe('ABORTED');
  const aborted = done.history.findLast((e) => e.name === 'ABORTED');
  expect(String(aborted?.detail.reason)).toMatch(/^record integrity: /);
  expect(String(aborted?.detail.reason)).toMatch(why);
  expect(live()).toEqual(before);
  expect(env.cluster.server.stats().requests['patch flinkdeployments'] ?? 0).toBe(0);
  const events = await auditOf(done.id);
  const audited = events.find((e) => e.action === 'aborted');
  expect(audited?.evidence ?? audited?.decision).toMatchObject({ reason: aborted?.detail.reason });
  expect(await metrics.text()).toMatch(/flink_chatops_record_integrity_failures_total\{check="(mac|rebuild)"\} 1/);
}

describe('an approved scale is applied exactly as approved', () => {
  it('a legitimate operation is sealed and COMPLETES', async () => {
    await env.deploy('orders');
    const queued = await env.request(scale(9), { enqueue: false });
    expect(queued.mac).toMatch(/^[0-9a-f]{64}$/);
    const done = await runQueued(queued.id);
    expect(done.state).toBe('COMPLETED');
    expect(live().parallelism).toBe(9);
  });

  it('a patch given a new image and a pod-template env var (digest left) is ABORTED, nothing written', async () => {
    await env.deploy('orders');
    const before = live();
    const queued = await env.request(scale(9), { enqueue: false });
    await tamper(queued.id, (r) => {
      r.plan.change.patch.spec.image = 'evil/registry:latest';
      r.plan.change.patch.spec.podTemplate = {
        spec: { containers: [{ name: 'flink-main-container', env: [{ name: 'EXFIL', value: 'https://evil' }] }] },
      };
    });
    const done = await runQueued(queued.id);
    await expectNothingWritten(done, before, /the plan's change does not match its digest/);
  });

  it('a patch changed with its digest recomputed fails the MAC', async () => {
    await env.deploy('orders');
    const before = live();
    const queued = await env.request(scale(9), { enqueue: false });
    await tamper(queued.id, (r) => {
      r.plan.change.patch.spec.image = 'evil/registry:latest';
      r.plan.digest = planDigest({
        target: r.plan.target,
        uid: r.plan.uid,
        generation: r.plan.generation,
        change: r.plan.change,
      });
    });
    const done = await runQueued(queued.id);
    await expectNothingWritten(done, before, /the MAC does not match/);
  });

  it('an intent changed after approval (scale to 50) fails the MAC', async () => {
    await env.deploy('orders');
    const before = live();
    const queued = await env.request(scale(9), { enqueue: false });
    await tamper(queued.id, (r) => {
      r.intent.parallelism = 50;
    });
    const done = await runQueued(queued.id);
    await expectNothingWritten(done, before, /the MAC does not match/);
  });

  it('an approval added by hand (a fake approver) fails the MAC', async () => {
    await env.deploy('orders');
    const before = live();
    const queued = await env.request(scale(9), { enqueue: false });
    await tamper(queued.id, (r) => {
      r.approvals.push({
        user: 'U0FAKE',
        at: Date.now(),
        planDigest: r.plan.digest,
        countsFor: ['stateless-scale-needs-a-lead'],
      });
    });
    const done = await runQueued(queued.id);
    await expectNothingWritten(done, before, /the MAC does not match/);
  });

  it('a MAC replaced, or removed (a record from before signing), is ABORTED', async () => {
    await env.deploy('orders');
    const before = live();
    const replaced = await env.request(scale(9), { enqueue: false });
    await tamper(replaced.id, (r) => {
      r.mac = 'f'.repeat(64);
    });
    await expectNothingWritten(await runQueued(replaced.id), before, /the MAC does not match/);
    const removed = await env.request(scale(8), { enqueue: false });
    await tamper(removed.id, (r) => {
      delete r.mac;
    });
    await env.queue.enqueue(removed.id, 1);
    const done = await env.waitTerminal(removed.id);
    expect(done.state).toBe('ABORTED');
    expect(String(done.history.findLast((e) => e.name === 'ABORTED')?.detail.reason)).toMatch(
      /^record integrity: the record carries no MAC/,
    );
    expect(live()).toEqual(before);
  });

  it('a requester removed from the namespace requesters after approval is ABORTED before anything is written', async () => {
    await env.deploy('orders');
    const before = live();
    const queued = await env.request(scale(9), { enqueue: false });
    const stricter = POLICY_YAML.replace(`  - name: ${NS}\n`, `  - name: ${NS}\n    requesters: [leads]\n`);
    const parsed = parsePolicyText(stricter);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const done = await runQueued(queued.id, staticPolicy(parsed.policy));
    expect(done.state).toBe('ABORTED');
    expect(String(done.history.findLast((e) => e.name === 'ABORTED')?.detail.reason)).toBe(
      `<@${REQUESTER}> may no longer request operations in ${NS} (only leads)`,
    );
    expect(live()).toEqual(before);
  });
});
