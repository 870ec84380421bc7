// resources: TaskManager and JobManager memory and CPU (spec.{taskManager,jobManager}.resource), checked against policy limits.
import { z } from 'zod';
import { redeployRule } from '../kit/evidence/redeploy.js';
import { badValue, okValue, type ValueSpec } from '../kit/language/values.js';
import { OPERATION_FLAGS, TARGET, type FlagSpec } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { formatBytes, parseCpu, parseMemorySize, specMemoryBytes } from '../model/memory-size.js';
import { getPath } from '../model/merge-patch.js';
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

const OWN_PATHS = {
  taskManagerMemory: ['spec', 'taskManager', 'resource', 'memory'],
  taskManagerCpu: ['spec', 'taskManager', 'resource', 'cpu'],
  jobManagerMemory: ['spec', 'jobManager', 'resource', 'memory'],
  jobManagerCpu: ['spec', 'jobManager', 'resource', 'cpu'],
} as const satisfies Record<FieldKey, FieldPath>;

const MEMORY: ValueSpec = {
  placeholder: '<size>',
  description:
    'a Flink memory size: a number and a unit b, k/kb, m/mb, g/gb or t/tb (any case), e.g. `2048m`, `4g`, `1.5gb`; written to the spec as a whole number in the largest exact unit',
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

/** Each resource field: its flag, spec path, words, and the policy limit that caps it. */
const FIELDS: readonly {
  key: FieldKey;
  flag: string;
  path: (typeof OWN_PATHS)[FieldKey];
  what: string;
  memory: boolean;
}[] = [
  {
    key: 'taskManagerMemory',
    flag: 'tm-memory',
    path: OWN_PATHS.taskManagerMemory,
    what: 'TaskManager memory',
    memory: true,
  },
  { key: 'taskManagerCpu', flag: 'tm-cpu', path: OWN_PATHS.taskManagerCpu, what: 'TaskManager CPU', memory: false },
  {
    key: 'jobManagerMemory',
    flag: 'jm-memory',
    path: OWN_PATHS.jobManagerMemory,
    what: 'JobManager memory',
    memory: true,
  },
  { key: 'jobManagerCpu', flag: 'jm-cpu', path: OWN_PATHS.jobManagerCpu, what: 'JobManager CPU', memory: false },
];

const FLAGS: FlagSpec[] = FIELDS.map((f) => ({
  name: f.flag,
  key: f.key,
  kind: f.memory ? MEMORY : CPU,
  description: `the new ${f.what} (spec.${f.path.slice(1).join('.')})`,
}));

/** Whether the spec already holds this value (memory compared in bytes: `4096m` is `4g`). */
function holds(resource: unknown, field: (typeof FIELDS)[number], value: string | number): boolean {
  const current = getPath(resource, field.path);
  if (field.memory) return specMemoryBytes(current) === specMemoryBytes(value);
  return typeof current === 'number' ? current === value : typeof current === 'string' && Number(current) === value;
}

function plan(intent: Intent, resource: unknown) {
  const edits: FieldEdit[] = [];
  const same: string[] = [];
  for (const field of FIELDS) {
    const value = intent[field.key];
    if (value === undefined) continue;
    if (holds(resource, field, value)) same.push(`${field.what} is already ${String(value)}`);
    else edits.push({ path: field.path, after: value });
  }
  if (edits.length === 0) return refusal(`${who(intent.target)}: ${same.join(', ')}; nothing to do`);
  const notes = same.map((s) => `${s} (unchanged)`);
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
    const amount = field.memory ? (specMemoryBytes(value) ?? Infinity) : Number(value);
    const shown = field.memory ? formatBytes(amount) : String(value);
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
    summary: 'change TaskManager / JobManager memory and CPU (spec.taskManager.resource, spec.jobManager.resource)',
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
  evidence: (ctx) =>
    redeployRule(ctx, {
      notVerified: ['the memory and CPU the pods actually got (pod resources) not checked'],
      restoresInSavepointMode: true,
    }),
  undo: {
    inverse: 'resources',
    paths: [OWN_PATHS.taskManagerMemory, OWN_PATHS.taskManagerCpu, OWN_PATHS.jobManagerMemory, OWN_PATHS.jobManagerCpu],
  },
  asInverse: (target, patch) => {
    const value = (path: readonly string[]) => getPath(patch, path) ?? undefined;
    const memory = (path: readonly string[]) => (typeof value(path) === 'string' ? (value(path) as string) : undefined);
    const cpu = (path: readonly string[]) => (typeof value(path) === 'number' ? (value(path) as number) : undefined);
    return {
      kind: 'resources',
      target,
      taskManagerMemory: memory(OWN_PATHS.taskManagerMemory),
      taskManagerCpu: cpu(OWN_PATHS.taskManagerCpu),
      jobManagerMemory: memory(OWN_PATHS.jobManagerMemory),
      jobManagerCpu: cpu(OWN_PATHS.jobManagerCpu),
      incidentChannels: [],
    };
  },
  sessionJobRefusal: 'a session job has no resources of its own (they belong to its session cluster)',
  describe,
} as const satisfies KindModule<Intent>;
