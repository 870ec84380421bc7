// resources: TaskManager and JobManager memory and CPU, on the field the operator uses (spec.{taskManager,jobManager}
// .resources where it holds requests or limits, else .resource), checked against policy limits.
import { z } from 'zod';
import { resourcesEvidence } from '../kit/evidence/effective-resources.js';
import { badValue, okValue, type ValueSpec } from '../kit/language/values.js';
import { OPERATION_FLAGS, TARGET, type FlagSpec } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { formatBytes, parseCpu, parseMemorySize, specMemoryBytes } from '../model/memory-size.js';
import { getPath } from '../model/merge-patch.js';
import {
  amountOf,
  cpuAmount,
  effectiveAmount,
  effectivePath,
  memoryQuantity,
  roleSpecForOperator,
  type Amount,
  type Role,
} from '../model/resource-requirements.js';
import { TargetSchema } from '../model/target.js';
import { effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { patchOutcome, refusal, who, type FieldEdit, type FieldPath } from '../kit/planning/edits.js';
import { CHECK, fail, pass, type CheckCtx, type PolicyLimits } from '../kit/policy/check-kit.js';
import type { KindModule } from './kind.js';

const MemoryText = z.string().refine((text) => parseMemorySize(text).ok);
const Cpu = z.number().positive().max(10_000);

export const ResourcesIntent = z
  .object({
    kind: z.literal('resources'),
    target: TargetSchema,
    taskManagerMemory: MemoryText.optional(),
    taskManagerCpu: Cpu.optional(),
    jobManagerMemory: MemoryText.optional(),
    jobManagerCpu: Cpu.optional(),
    ...COMMON_INTENT_FIELDS,
  })
  .refine((i) => FIELDS.some((f) => i[f.key] !== undefined), {
    message: 'give at least one of --tm-memory, --tm-cpu, --jm-memory, --jm-cpu',
  });
type Intent = z.infer<typeof ResourcesIntent>;

type FieldKey = 'taskManagerMemory' | 'taskManagerCpu' | 'jobManagerMemory' | 'jobManagerCpu';

/** The deprecated field's paths, what the operator reads unless `resources` is in effect. */
const RESOURCE_PATHS = {
  taskManagerMemory: ['spec', 'taskManager', 'resource', 'memory'],
  taskManagerCpu: ['spec', 'taskManager', 'resource', 'cpu'],
  jobManagerMemory: ['spec', 'jobManager', 'resource', 'memory'],
  jobManagerCpu: ['spec', 'jobManager', 'resource', 'cpu'],
} as const satisfies Record<FieldKey, FieldPath>;

const MEMORY: ValueSpec = {
  placeholder: '<size>',
  description:
    'a Flink memory size: a number and a unit b, k/kb, m/mb, g/gb or t/tb (any case), e.g. `2048m`, `4g`, `1.5gb`; written to the spec as a whole number in the largest exact unit (as a Kubernetes quantity, e.g. `4Gi`, where `resources` is in effect)',
  example: '4g',
  check: (text, _env, label) => {
    const parsed = parseMemorySize(text, label);
    return parsed.ok ? okValue(parsed.size.text) : badValue(parsed.message);
  },
};

const CPU: ValueSpec = {
  placeholder: '<cores>',
  description: 'CPU cores, a positive decimal number, e.g. `0.5`, `2`, `1.25`',
  example: '2',
  check: (text, _env, label) => {
    const parsed = parseCpu(text, label);
    return parsed.ok ? okValue(parsed.cpu) : badValue(parsed.message);
  },
};

/** Each resource field: its flag, role, amount, words, and the policy limit that caps it. */
const FIELDS: readonly { key: FieldKey; flag: string; role: Role; amount: Amount; what: string }[] = [
  { key: 'taskManagerMemory', flag: 'tm-memory', role: 'taskManager', amount: 'memory', what: 'TaskManager memory' },
  { key: 'taskManagerCpu', flag: 'tm-cpu', role: 'taskManager', amount: 'cpu', what: 'TaskManager CPU' },
  { key: 'jobManagerMemory', flag: 'jm-memory', role: 'jobManager', amount: 'memory', what: 'JobManager memory' },
  { key: 'jobManagerCpu', flag: 'jm-cpu', role: 'jobManager', amount: 'cpu', what: 'JobManager CPU' },
];
type Field = (typeof FIELDS)[number];

const FLAGS: FlagSpec[] = FIELDS.map((f) => ({
  name: f.flag,
  key: f.key,
  kind: f.amount === 'memory' ? MEMORY : CPU,
  description: `the new ${f.what} (spec.${f.role}.resources where it holds requests or limits, else spec.${f.role}.resource)`,
}));

/** Whether the field in effect already holds this amount (compared as numbers: `4096m` is `4g` is `4Gi`). */
function holds(resource: unknown, field: Field, value: string | number): boolean {
  const current = effectiveAmount(roleSpecForOperator(resource, field.role).roleSpec, field.amount);
  return current !== undefined && current === amountOf(field.amount, value);
}

/**
 * The edits for one field, on the field in effect (docs/lifecycle.md#resources-on-operator-116): `resource` as
 * before, or in `resources` the request (the limit when only a limit sets it), as a Kubernetes quantity; a limit
 * that the new request would exceed is raised to it. Never moves a target from one field to the other.
 */
function editsFor(resource: unknown, field: Field, value: string | number): { edits: FieldEdit[]; notes: string[] } {
  const { roleSpec, ignored } = roleSpecForOperator(resource, field.role);
  const path = effectivePath(roleSpec, field.amount);
  const unread = ignored
    ? [
        `spec.${field.role}.resources is set, but the operator's lastReconciledSpec has no resources field: an operator before 1.16 reads only spec.${field.role}.resource, so ${field.what} goes there`,
      ]
    : [];
  if (path[0] === 'resource') return { edits: [{ path: RESOURCE_PATHS[field.key], after: value }], notes: unread };
  const amount = amountOf(field.amount, value) ?? 0;
  const written = field.amount === 'memory' ? memoryQuantity(amount) : String(value);
  const edits: FieldEdit[] = [{ path: ['spec', field.role, ...path], after: written }];
  const notes = [
    `spec.${field.role}.resources holds requests or limits, so the operator uses it and ignores spec.${field.role}.resource: ${field.what} goes to spec.${field.role}.${path.join('.')}`,
  ];
  const limit = getPath(roleSpec, ['resources', 'limits', field.amount]);
  const limitAmount = amountOf(field.amount, limit);
  if (path[1] === 'requests' && limitAmount !== undefined && limitAmount < amount) {
    edits.push({ path: ['spec', field.role, 'resources', 'limits', field.amount], after: written });
    notes.push(
      `its limit ${String(limit)} is below the new request: raised to ${written} (a request above its limit is refused by the operator)`,
    );
  }
  return { edits, notes };
}

function plan(intent: Intent, resource: unknown) {
  const edits: FieldEdit[] = [];
  const notes: string[] = [];
  const same: string[] = [];
  for (const field of FIELDS) {
    const value = intent[field.key];
    if (value === undefined) continue;
    if (holds(resource, field, value)) {
      same.push(`${field.what} is already ${String(value)}`);
      continue;
    }
    const edit = editsFor(resource, field, value);
    edits.push(...edit.edits);
    notes.push(...edit.notes);
  }
  if (edits.length === 0) return refusal(`${who(intent.target)}: ${same.join(', ')}; nothing to do`);
  notes.unshift(...same.map((s) => `${s} (unchanged)`));
  notes.push('the operator redeploys the job with the new resources (an UPGRADE), using its upgrade mode');
  return patchOutcome(edits, notes, effectiveUpgradeMode(undefined, resource));
}

/** The policy limit of each field, shown as written. */
function limitOf(limits: PolicyLimits, key: FieldKey): { value: number; shown: string } | undefined {
  const limit = limits[key];
  if (limit === undefined) return undefined;
  return typeof limit === 'number' ? { value: limit, shown: String(limit) } : { value: limit.bytes, shown: limit.text };
}

/** Policy `limits` (docs/policy.md#keys-limits-and-verification): a value above its ceiling fails, naming the limit. */
function limitsCheck(ctx: CheckCtx, intent: Intent): CheckResult {
  const limits = ctx.input.policy?.limits ?? {};
  const over: string[] = [];
  const within: string[] = [];
  for (const field of FIELDS) {
    const value = intent[field.key];
    const limit = limitOf(limits, field.key);
    if (value === undefined || limit === undefined) continue;
    const memory = field.amount === 'memory';
    const amount = memory ? (specMemoryBytes(value) ?? Infinity) : Number(value);
    const shown = memory ? formatBytes(amount) : String(value);
    if (amount > limit.value)
      over.push(`${field.what} ${shown} is above the policy limit limits.${field.key} = ${limit.shown}`);
    else within.push(`${field.what} ${shown} is within limits.${field.key} = ${limit.shown}`);
  }
  if (over.length > 0) return fail(CHECK.limits, over.join('; '));
  if (within.length > 0) return pass(CHECK.limits, within.join('; '));
  return pass(CHECK.limits, 'the policy sets no limit for these resources');
}

function describe(intent: Intent): string {
  const parts = FIELDS.filter((f) => intent[f.key] !== undefined).map((f) => `${f.what} ${String(intent[f.key])}`);
  return ` to ${parts.join(', ')}`;
}

export const resources = {
  intent: ResourcesIntent,
  verb: {
    group: 'operation',
    summary:
      'change TaskManager / JobManager memory and CPU (spec.taskManager/jobManager.resources where it holds requests or limits, else .resource)',
    args: [TARGET],
    flags: [...FLAGS, ...OPERATION_FLAGS],
    examples: [
      'resources analytics/clickstream --tm-memory 8g',
      'resources clickstream --tm-memory 6144m --tm-cpu 2 --reason "OOM loop"',
    ],
    synonyms: ['memory', 'cpu', 'resource'],
    validate: (b) =>
      FIELDS.some((f) => b[f.key] !== undefined)
        ? undefined
        : `resources needs at least one of ${FLAGS.map((f) => `--${f.name}`).join(', ')}`,
    build: (b) => ({
      target: b.target,
      taskManagerMemory: b.taskManagerMemory,
      taskManagerCpu: b.taskManagerCpu,
      jobManagerMemory: b.jobManagerMemory,
      jobManagerCpu: b.jobManagerCpu,
    }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: false,
    readsLastSavepoint: false,
    refusedWhileSuspended: true,
  },
  plan: ({ intent, resource }) => plan(intent, resource),
  checks: (ctx, intent) => [limitsCheck(ctx, intent)],
  evidence: (ctx) => resourcesEvidence(ctx, ['the memory and CPU the pods actually got (pod resources) not checked']),
  undo: {
    inverse: 'resources',
    paths: Object.values(RESOURCE_PATHS),
    under: [
      ['spec', 'taskManager', 'resources'],
      ['spec', 'jobManager', 'resources'],
    ],
  },
  asInverse: (target, patch) => {
    const of = (field: Field) => {
      const role = getPath(patch, ['spec', field.role]);
      const at = (path: string[]) => getPath(role, path) ?? undefined;
      const value =
        at(['resources', 'requests', field.amount]) ??
        at(['resources', 'limits', field.amount]) ??
        at(['resource', field.amount]);
      if (field.amount === 'cpu') return typeof value === 'number' ? value : cpuAmount(value);
      return typeof value === 'string' ? value : undefined;
    };
    const [taskManagerMemory, taskManagerCpu, jobManagerMemory, jobManagerCpu] = FIELDS.map(of);
    return {
      kind: 'resources',
      target,
      taskManagerMemory: taskManagerMemory as string | undefined,
      taskManagerCpu: taskManagerCpu as number | undefined,
      jobManagerMemory: jobManagerMemory as string | undefined,
      jobManagerCpu: jobManagerCpu as number | undefined,
      incidentChannels: [],
    };
  },
  sessionJobRefusal: 'a session job has no resources of its own (they belong to its session cluster)',
  describe,
} as const satisfies KindModule<Intent>;
