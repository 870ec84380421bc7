// resources and config as kind modules: sizes, planning (flat and nested configuration), checks (limits, config
// globs), IGNORE-class evidence, undo of dynamic configuration keys, and the policy blocks behind them.
import { describe, expect, it } from 'vitest';
import { formatBytes, parseCpu, parseMemorySize, specMemoryBytes } from '../../../../src/domain/model/memory-size.js';
import { configLocations } from '../../../../src/domain/model/flink-config.js';
import { runChecks } from '../../../../src/domain/engines/policy/checks.js';
import { describePolicy } from '../../../../src/domain/engines/policy/describe.js';
import { validatePolicy } from '../../../../src/domain/engines/policy/validate.js';
import { planUndo } from '../../../../src/domain/engines/planning/undo.js';
import type { Policy } from '../../../../src/domain/engines/policy/schema.js';
import {
  editSpec,
  flinkDeployment,
  intentOf,
  planFor,
  reconciledSpecJson,
  refusalFor,
} from '../../../support/fixtures.js';
import { judge, metMap, settled, specPatchOf } from '../../../support/evidence-fixtures.js';

const target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' } as const;
const NOW = new Date('2025-06-02T10:00:00Z');
const running = flinkDeployment();
const resources = (fields: Record<string, unknown>) => ({ kind: 'resources', target, ...fields });
const config = (action: 'set' | 'unset', entries: { key: string; value?: string }[]) => ({
  kind: 'config',
  target,
  action,
  entries,
});

describe('Flink memory sizes and CPU amounts', () => {
  it.each([
    ['2048m', 2 * 2 ** 30, '2g'],
    ['4g', 4 * 2 ** 30, '4g'],
    ['1.5gb', 1.5 * 2 ** 30, '1536m'],
    ['1.5 GB', 1.5 * 2 ** 30, '1536m'],
    ['6144MB', 6 * 2 ** 30, '6g'],
    ['512kb', 512 * 1024, '512k'],
    ['1073741824', 2 ** 30, '1g'],
    ['100 bytes', 100, '100b'],
    ['2 gibibytes', 2 * 2 ** 30, '2g'],
    ['1T', 2 ** 40, '1t'],
  ])('%s → %d bytes, written %s', (text, bytes, written) => {
    expect(parseMemorySize(text)).toEqual({ ok: true, size: { bytes, text: written } });
  });

  it.each(['', 'lots', '4 g b', '4zb', '4Gi', '-1g', '0', '1.3b', '1.5', '2000t', '1e9'])(
    'refuses %j with a message',
    (text) => {
      const parsed = parseMemorySize(text, '--tm-memory');
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(/^--tm-memory "/);
    },
  );

  it('reads what a spec may already hold, Kubernetes quantities included', () => {
    expect(specMemoryBytes('4096m')).toBe(4 * 2 ** 30);
    expect(specMemoryBytes('4Gi')).toBe(4 * 2 ** 30);
    expect(specMemoryBytes(undefined)).toBeUndefined();
    expect(formatBytes(3 * 2 ** 20 + 1)).toBe(`${3 * 2 ** 20 + 1}b`);
  });

  it('cpu is a positive decimal; millicores get a hint', () => {
    expect(parseCpu('0.5')).toEqual({ ok: true, cpu: 0.5 });
    expect(parseCpu('500m')).toMatchObject({
      ok: false,
      message: expect.stringContaining('write cores: 0.5 for 500m'),
    });
    expect(parseCpu('-1').ok).toBe(false);
  });
});

describe('resources plan', () => {
  it('patches only the fields that change; memory compared in bytes (4096m is 4g)', () => {
    const plan = planFor(resources({ taskManagerMemory: '4g', jobManagerMemory: '3g', jobManagerCpu: 1.5 }), running);
    expect(plan.diff).toEqual([
      { path: 'spec.jobManager.resource.memory', before: '2048m', after: '3g' },
      { path: 'spec.jobManager.resource.cpu', before: 1, after: 1.5 },
    ]);
    expect(plan.notes[0]).toBe('TaskManager memory is already 4g (unchanged)');
    expect(plan.effectiveUpgradeMode).toBe('savepoint');
  });

  it('refuses when nothing changes, on a suspended job, and on a session job', () => {
    expect(refusalFor(resources({ taskManagerMemory: '4096m', taskManagerCpu: 2 }), running)).toMatch(
      /TaskManager memory is already 4096m, TaskManager CPU is already 2; nothing to do/,
    );
    const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });
    expect(refusalFor(resources({ taskManagerMemory: '8g' }), suspended)).toMatch(/is suspended: .* resume first/);
  });

  it('fails the limits check naming the limit; passes within it', () => {
    const policy = { limits: { taskManagerMemory: { text: '16g', bytes: 16 * 2 ** 30 }, taskManagerCpu: 8 } };
    const over = runChecks({
      intent: intentOf(resources({ taskManagerMemory: '32g', taskManagerCpu: 2 })) as never,
      resource: running,
      now: NOW,
      policy,
    });
    expect(over.find((c) => c.name === 'limits')).toEqual({
      name: 'limits',
      outcome: 'fail',
      message: 'TaskManager memory 32g is above the policy limit limits.taskManagerMemory = 16g',
    });
    const within = runChecks({
      intent: intentOf(resources({ taskManagerMemory: '8g' })) as never,
      resource: running,
      now: NOW,
      policy,
    });
    expect(within.find((c) => c.name === 'limits')?.outcome).toBe('pass');
    const scale = runChecks({
      intent: intentOf({ kind: 'scale', target, parallelism: 600 }) as never,
      resource: running,
      now: NOW,
      policy: { limits: { parallelism: 512 } },
    });
    expect(scale.find((c) => c.name === 'limits')?.message).toBe(
      'parallelism 600 is above the policy limit limits.parallelism = 512',
    );
  });
});

describe('resources where operator 1.16 reads spec.*.resources (the field in effect)', () => {
  const usingResources = (resources: Record<string, unknown>) =>
    flinkDeployment({ spec: { taskManager: { resources } } });

  it('patches the request as a Kubernetes quantity and leaves the ignored resource alone', () => {
    const plan = planFor(
      resources({ taskManagerMemory: '8g', taskManagerCpu: 0.5 }),
      usingResources({ requests: { memory: '2Gi' } }),
    );
    expect(plan.diff).toEqual([
      { path: 'spec.taskManager.resources.requests.memory', before: '2Gi', after: '8Gi' },
      { path: 'spec.taskManager.resources.requests.cpu', before: null, after: '0.5' },
    ]);
    expect(plan.notes.join('\n')).toMatch(
      /ignores spec\.taskManager\.resource: TaskManager memory goes to spec\.taskManager\.resources\.requests\.memory/,
    );
  });

  it('raises a limit the new request would exceed; a limit above it stays', () => {
    const raised = planFor(
      resources({ taskManagerMemory: '8g' }),
      usingResources({ requests: { memory: '2Gi' }, limits: { memory: '4Gi' } }),
    );
    expect(raised.diff).toEqual([
      { path: 'spec.taskManager.resources.requests.memory', before: '2Gi', after: '8Gi' },
      { path: 'spec.taskManager.resources.limits.memory', before: '4Gi', after: '8Gi' },
    ]);
    const kept = planFor(
      resources({ taskManagerMemory: '3g' }),
      usingResources({ requests: { memory: '2Gi' }, limits: { memory: '4Gi' } }),
    );
    expect(kept.diff.map((d) => d.path)).toEqual(['spec.taskManager.resources.requests.memory']);
  });

  it('patches the limit when only a limit sets the amount; compares amounts as numbers', () => {
    const plan = planFor(resources({ taskManagerMemory: '6g' }), usingResources({ limits: { memory: '4294967296' } }));
    expect(plan.diff).toEqual([
      { path: 'spec.taskManager.resources.limits.memory', before: '4294967296', after: '6Gi' },
    ]);
    expect(
      refusalFor(resources({ taskManagerMemory: '4096m' }), usingResources({ requests: { memory: '4Gi' } })),
    ).toMatch(/TaskManager memory is already 4096m; nothing to do/);
  });

  it('a patch of resource judged while resources is in effect is FAILED, never COMPLETED', () => {
    const plan = planFor(resources({ taskManagerMemory: '8g' }), running);
    const reconciled = {
      ...specPatchOf(plan),
      taskManager: { resource: { memory: '8g', cpu: 2 }, resources: { requests: { memory: '2Gi' } } },
    };
    const done = settled(flinkDeployment, reconciled);
    const verdict = judge({ kind: 'resources', plan, resource: done, before: running });
    expect(verdict.outcome).toBe('failed');
    expect(verdict.outcome === 'failed' && verdict.reason).toMatch(
      /the operator ignores spec\.taskManager\.resource while resources holds requests or limits/,
    );
    expect(metMap(verdict)['effective:taskManager.memory']).toBe(false);
  });

  it('completes on the effective value read as a number ("8Gi" reconciled as bytes)', () => {
    const before = usingResources({ requests: { memory: '2Gi' } });
    const plan = planFor(resources({ taskManagerMemory: '8g' }), before);
    const done = settled(flinkDeployment, {
      ...specPatchOf(plan),
      taskManager: { resources: { requests: { memory: String(8 * 2 ** 30) } } },
    });
    const verdict = judge({ kind: 'resources', plan, resource: done, before });
    expect(metMap(verdict)['effective:taskManager.memory']).toBe(true);
    expect(metMap(verdict)['spec-reconciled:spec.taskManager.resources.requests.memory']).toBe(true);
    expect(verdict.outcome).toBe('completed');
  });
});

describe('config plan', () => {
  const nested = flinkDeployment({
    spec: {
      flinkConfiguration: {
        execution: { checkpointing: { interval: '60s' } },
        'execution.checkpointing.interval': null,
      },
    },
  });

  it('refuses a memory, cpu or limit-factor key the spec sets over flinkConfiguration: it would change nothing', () => {
    const set = (key: string, value: string) => config('set', [{ key, value }]);
    expect(refusalFor(set('taskmanager.memory.process.size', '8g'), running)).toMatch(
      /spec\.taskManager\.resource\.memory sets taskmanager\.memory\.process\.size, and the operator writes it over spec\.flinkConfiguration, so the change would do nothing; use resources/,
    );
    const withResources = flinkDeployment({
      spec: { taskManager: { resources: { requests: { memory: '2Gi' }, limits: { memory: '4Gi' } } } },
    });
    expect(refusalFor(set('kubernetes.taskmanager.memory.limit-factor', '1.5'), withResources)).toMatch(
      /spec\.taskManager\.resources\.requests\/limits\.memory sets kubernetes\.taskmanager\.memory\.limit-factor/,
    );
    // Where the spec does not set it, the key is the configuration's: a factor without a request and limit pair.
    expect(planFor(set('kubernetes.taskmanager.memory.limit-factor', '1.5'), running).diff).toEqual([
      { path: 'spec.flinkConfiguration.kubernetes.taskmanager.memory.limit-factor', before: null, after: '1.5' },
    ]);
  });

  it('finds keys flat and nested, the spelling in effect first', () => {
    const conf = { a: { b: { c: '1' } }, 'a.b': { c: '2' }, 'a.b.c': '3' };
    expect(configLocations(conf, 'a.b.c')).toEqual([['a.b.c'], ['a.b', 'c'], ['a', 'b', 'c']]);
    expect(configLocations(conf, 'x')).toEqual([]);
  });

  it('set shows old → new per key; a new key is "unset" before', () => {
    const plan = planFor(
      config('set', [
        { key: 'execution.checkpointing.interval', value: '30s' },
        { key: 'restart-strategy.type', value: 'fixed-delay' },
      ]),
      running,
    );
    expect(plan.diff).toEqual([
      { path: 'spec.flinkConfiguration.execution.checkpointing.interval', before: '60s', after: '30s' },
      { path: 'spec.flinkConfiguration.restart-strategy.type', before: null, after: 'fixed-delay' },
    ]);
    expect(specPatchOf(plan)).toEqual({
      flinkConfiguration: { 'execution.checkpointing.interval': '30s', 'restart-strategy.type': 'fixed-delay' },
    });
  });

  it('writes a nested key where it lives, and unset nulls it there', () => {
    const set = planFor(config('set', [{ key: 'execution.checkpointing.interval', value: '30s' }]), nested);
    expect(specPatchOf(set)).toEqual({ flinkConfiguration: { execution: { checkpointing: { interval: '30s' } } } });
    expect(set.diff[0]?.before).toBe('60s');
    const unset = planFor(config('unset', [{ key: 'execution.checkpointing.interval' }]), nested);
    expect(specPatchOf(unset)).toEqual({ flinkConfiguration: { execution: { checkpointing: { interval: null } } } });
  });

  it('sets the spelling the operator reads when a key has several, and unset nulls them all', () => {
    // Sorted, "execution.checkpointing" comes after "execution": the operator's flattening keeps its value.
    const twice = flinkDeployment({
      spec: {
        flinkConfiguration: {
          execution: { checkpointing: { interval: '10s' } },
          'execution.checkpointing': { interval: '20s' },
          'execution.checkpointing.interval': null,
        },
      },
    });
    const set = planFor(config('set', [{ key: 'execution.checkpointing.interval', value: '30s' }]), twice);
    expect(set.diff).toEqual([
      { path: 'spec.flinkConfiguration.execution.checkpointing.interval', before: '20s', after: '30s' },
    ]);
    expect(specPatchOf(set)).toEqual({ flinkConfiguration: { 'execution.checkpointing': { interval: '30s' } } });
    expect(refusalFor(config('set', [{ key: 'execution.checkpointing.interval', value: '20s' }]), twice)).toMatch(
      /is already 20s/,
    );
    const unset = planFor(config('unset', [{ key: 'execution.checkpointing.interval' }]), twice);
    expect(specPatchOf(unset)).toEqual({
      flinkConfiguration: {
        'execution.checkpointing': { interval: null },
        execution: { checkpointing: { interval: null } },
      },
    });
  });

  it('refuses when nothing would change', () => {
    expect(refusalFor(config('set', [{ key: 'execution.checkpointing.interval', value: '60s' }]), running)).toMatch(
      /execution\.checkpointing\.interval is already 60s/,
    );
    expect(refusalFor(config('unset', [{ key: 'pipeline.name' }]), running)).toMatch(
      /pipeline\.name is not set .*nothing to do/,
    );
  });

  it('checks keys against the policy config globs: deny wins, none allowed without config.allow', () => {
    const intent = intentOf(
      config('set', [
        { key: 'high-availability.type', value: 'NONE' },
        { key: 'execution.checkpointing.interval', value: '30s' },
      ]),
    );
    const policy = {
      config: { allow: ['execution.checkpointing.*', 'high-availability.*'], deny: ['high-availability*'] },
    };
    const denied = runChecks({ intent: intent as never, resource: running, now: NOW, policy }).find(
      (c) => c.name === 'config-keys',
    );
    expect(denied).toMatchObject({
      outcome: 'fail',
      message: `high-availability.type is denied by the policy's config.deny "high-availability*"`,
    });
    const none = runChecks({ intent: intent as never, resource: running, now: NOW }).find(
      (c) => c.name === 'config-keys',
    );
    expect(none?.message).toMatch(/is not allowed: the policy allows no keys \(no config\.allow\)/);
  });
});

describe('config evidence', () => {
  it('IGNORE-class keys complete on observedGeneration and the spec, without job criteria, and say no redeploy happened', () => {
    const plan = planFor(
      config('set', [{ key: 'kubernetes.operator.periodic.savepoint.interval', value: '1h' }]),
      running,
    );
    const resource = flinkDeployment({
      generation: 4,
      spec: specPatchOf(plan),
      status: { reconciliationStatus: { lastReconciledSpec: reconciledSpecJson(running.spec) } },
    });
    const verdict = judge({ kind: 'config', plan, resource, before: running });
    expect(verdict.outcome).toBe('completed');
    expect(Object.keys(metMap(verdict))).toEqual([
      'generation-observed',
      'reconciled-deployed',
      'spec-holds:spec.flinkConfiguration.kubernetes.operator.periodic.savepoint.interval',
      'no-blocking-warnings',
    ]);
    expect(verdict.outcome === 'completed' && verdict.notes[0]).toMatch(
      /classifies this change as IGNORE, so no redeploy happened/,
    );
    const unobserved = flinkDeployment({ generation: 4, spec: specPatchOf(plan), status: { observedGeneration: 3 } });
    expect(judge({ kind: 'config', plan, resource: unobserved, before: running }).outcome).toBe('pending');
  });

  it('any other key is judged on the base predicate with the reconciled values', () => {
    const plan = planFor(
      config('set', [
        { key: 'execution.checkpointing.interval', value: '30s' },
        { key: 'job.autoscaler.enabled', value: 'false' },
      ]),
      running,
    );
    const stale = flinkDeployment({
      generation: 4,
      spec: specPatchOf(plan),
      status: { reconciliationStatus: { lastReconciledSpec: reconciledSpecJson(running.spec) } },
    });
    const verdict = judge({ kind: 'config', plan, resource: stale, before: running });
    expect(verdict.outcome).toBe('pending');
    expect(metMap(verdict)['spec-reconciled:spec.flinkConfiguration.execution.checkpointing.interval']).toBe(false);
    expect(metMap(verdict)['job-running']).toBe(true);
  });
});

describe('undo of config and resources', () => {
  const CTX = { opId: 'op-undo01', requester: 'U0BOB', nonce: 1_767_225_900_000 };
  function undone(raw: Record<string, unknown>, before = running) {
    const plan = planFor(raw, before);
    return {
      record: { id: 'op-first1', kind: raw.kind as 'config', state: 'COMPLETED', plan, intent: intentOf(raw) },
      after: editSpec(before, specPatchOf(plan)),
    };
  }

  it('puts back every configuration key the operation set, writing null where it was unset', () => {
    const { record, after } = undone(
      config('set', [
        { key: 'execution.checkpointing.interval', value: '30s' },
        { key: 'restart-strategy.type', value: 'none' },
      ]),
    );
    const result = planUndo(record, { resource: after }, CTX);
    expect(result.ok && result.plan.diff).toEqual([
      { path: 'spec.flinkConfiguration.execution.checkpointing.interval', before: '30s', after: '60s' },
      { path: 'spec.flinkConfiguration.restart-strategy.type', before: 'none', after: null },
    ]);
    expect(result.ok && result.invertedKind).toBe('config');
  });

  it('refuses when a key no longer holds what the operation set', () => {
    const { record, after } = undone(config('unset', [{ key: 'execution.checkpointing.interval' }]));
    const changed = editSpec(after, { flinkConfiguration: { 'execution.checkpointing.interval': '10s' } });
    const result = planUndo(record, { resource: changed }, CTX);
    expect(result.ok ? '' : result.refusal).toMatch(
      /spec\.flinkConfiguration\.execution\.checkpointing\.interval was changed since op-first1: now 10s/,
    );
  });

  it('puts back the previous resources', () => {
    const { record, after } = undone(resources({ taskManagerMemory: '8g' }));
    const result = planUndo(record, { resource: after }, CTX);
    expect(result.ok && result.plan.diff).toEqual([
      { path: 'spec.taskManager.resource.memory', before: '8g', after: '4096m' },
    ]);
  });

  it('puts back a request and the limit raised with it, judged as resources', () => {
    const before = flinkDeployment({
      spec: { taskManager: { resources: { requests: { memory: '2Gi' }, limits: { memory: '4Gi' } } } },
    });
    const { record, after } = undone(resources({ taskManagerMemory: '8g' }), before);
    const result = planUndo(record, { resource: after }, CTX);
    expect(result.ok && result.plan.diff).toEqual([
      { path: 'spec.taskManager.resources.requests.memory', before: '8Gi', after: '2Gi' },
      { path: 'spec.taskManager.resources.limits.memory', before: '8Gi', after: '4Gi' },
    ]);
    expect(result.ok && result.invertedKind).toBe('resources');
  });
});

describe('policy config and limits', () => {
  const base = { version: 1, namespaces: [{ name: 'streaming-prod' }] };

  it('parses the config and limits blocks and explains them', () => {
    const result = validatePolicy({
      ...base,
      config: {
        allow: ['execution.checkpointing.*', 'restart-strategy.*', 'taskmanager.memory.*', 'job.autoscaler.enabled'],
        deny: ['high-availability*', 'kubernetes.operator.*'],
      },
      limits: { taskManagerMemory: '16g', taskManagerCpu: 8, parallelism: 512 },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.limits).toEqual({
      taskManagerMemory: { text: '16g', bytes: 16 * 2 ** 30 },
      taskManagerCpu: 8,
      parallelism: 512,
    });
    const text = describePolicy(result.policy as Policy);
    expect(text).toContain(
      '  - allowed: "execution.checkpointing.*", "restart-strategy.*", "taskmanager.memory.*", "job.autoscaler.enabled";',
    );
    expect(text).toContain('  - denied even when allowed: "high-availability*", "kubernetes.operator.*".');
    expect(text).toContain('  - TaskManager memory at most 16g;');
    expect(text).toContain('  - parallelism at most 512;');
  });

  it('names each problem by its path', () => {
    const result = validatePolicy({
      ...base,
      config: { allow: ['ok.*', 'bad key'], deny: 'x', extra: [] },
      limits: { taskManagerMemory: '16 zb', taskManagerCpu: '500m', parallelism: 0, jobManagerMemry: '1g' },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config\.allow\[1\]: "bad key" is not a configuration key glob/),
        expect.stringMatching(/^config\.deny: must be a list/),
        expect.stringMatching(/^config\.extra: unknown key/),
        expect.stringMatching(/^limits\.taskManagerMemory: the limit "16 zb" has an unknown unit "zb"/),
        expect.stringMatching(/^limits\.taskManagerCpu: the limit "500m" is not a CPU amount/),
        expect.stringMatching(/^limits\.parallelism: must be at least 1/),
        expect.stringMatching(/^limits\.jobManagerMemry: unknown key \(did you mean "jobManagerMemory"\?\)/),
      ]),
    );
  });

  it('warns about an allow glob a deny glob covers', () => {
    const result = validatePolicy({
      ...base,
      config: { allow: ['high-availability.type'], deny: ['high-availability*'] },
    });
    expect(result.warnings).toEqual([
      'config.allow[0]: "high-availability.type" is covered by config.deny "high-availability*" (deny wins); it allows nothing',
    ]);
  });
});
