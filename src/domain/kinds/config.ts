// config: set or unset spec.flinkConfiguration keys (flat or nested), limited to the policy's `config` globs.
import { z } from 'zod';
import { desiredFields } from '../kit/evidence/criteria.js';
import { configEvidence } from '../kit/evidence/config-evidence.js';
import { badValue, describeChar, okValue, show, type ValueCheck, type ValueSpec } from '../kit/language/values.js';
import { nearest } from '../kit/language/suggest.js';
import { unwrapLinks } from '../kit/language/tokenize.js';
import { OPERATION_FLAGS, TARGET, type Bound } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { configLocations, configValue } from '../model/flink-config.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { getPath, isRecord, patchLeaves } from '../model/merge-patch.js';
import type { Plan } from '../model/plan.js';
import { TargetSchema } from '../model/target.js';
import { specFieldSetting } from '../model/resource-requirements.js';
import { effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { patchOutcome, refusal, who, type FieldEdit, type FieldPath } from '../kit/planning/edits.js';
import { CHECK, fail, pass, type CheckCtx, type CheckPolicy } from '../kit/policy/check-kit.js';
import { matchesGlob } from '../kit/policy/glob.js';
import { configMemoryCheck } from '../kit/policy/config-limits.js';
import { movesState } from '../model/state-location-keys.js';
import { shownConfigValue } from '../model/secret-config.js';
import { autoscalerOverrides, switchesAutoscalerOff } from '../model/autoscaler.js';
import type { KindModule } from './kind.js';

/** Keys per command: enough for any real change, and a card that still fits Slack. */
export const MAX_CONFIG_ENTRIES = 50;
const MAX_CONFIG_KEY = 200;
const MAX_CONFIG_VALUE = 1000;
/** `config <target> set|unset …`: the sub-verb, the second positional. */
const CONFIG_ACTIONS = ['set', 'unset'] as const;
type ConfigAction = (typeof CONFIG_ACTIONS)[number];
/** One `key=value` (set) or `key` (unset) of a `config` command. */
interface ConfigEntry {
  key: string;
  value?: string;
}
/** What config's own arguments bind to (its value checks below produce them). */
type ConfigBound = Bound<{ configAction: ConfigAction; configEntries: ConfigEntry[] }>;

const OWN_PATHS = { flinkConfiguration: ['spec', 'flinkConfiguration'] } as const satisfies Record<string, FieldPath>;
/**
 * The operator's IGNORE class for flinkConfiguration (AbstractFlinkSpec's @SpecDiff; docs/lifecycle.md#operator-traps).
 */
export const IGNORE_CLASS_PREFIXES = ['kubernetes.operator', 'job.autoscaler', 'parallelism.default'];

const Entry = z.object({
  key: z.string().min(1).max(MAX_CONFIG_KEY),
  value: z.string().min(1).max(MAX_CONFIG_VALUE).optional(),
});

export const ConfigIntent = z
  .object({
    kind: z.literal('config'),
    target: TargetSchema,
    action: z.enum(CONFIG_ACTIONS),
    entries: z.array(Entry).min(1).max(MAX_CONFIG_ENTRIES),
    ...COMMON_INTENT_FIELDS,
  })
  .refine((i) => i.entries.every((e) => (i.action === 'set') === (e.value !== undefined)), {
    message: 'set takes key=value, unset takes key',
  })
  .refine((i) => new Set(i.entries.map((e) => e.key)).size === i.entries.length, { message: 'each key once' });
type Intent = z.infer<typeof ConfigIntent>;

const ACTION: ValueSpec = {
  placeholder: 'set|unset',
  description: '`set` writes the values, `unset` removes the keys (writes null)',
  example: 'set',
  check: (text) => {
    const action = text.toLowerCase();
    if ((CONFIG_ACTIONS as readonly string[]).includes(action)) return okValue(action);
    const suggestion = nearest(action, CONFIG_ACTIONS, {
      add: 'set',
      put: 'set',
      remove: 'unset',
      delete: 'unset',
      del: 'unset',
      rm: 'unset',
    });
    const guess = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
    return badValue(`after the target, config takes set or unset; got ${show(text)}${guess}`, suggestion);
  },
};

/** Flink keys: dot-separated words of letters, digits, `-` and `_` (`execution.checkpointing.interval`). */
const CONFIG_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

function configKeyProblem(key: string): string | undefined {
  if (key.length === 0)
    return 'an entry has no key before "="; write key=value, e.g. execution.checkpointing.interval=30s';
  if (key.length > MAX_CONFIG_KEY)
    return `the key ${show(key)} is ${key.length} characters long; at most ${MAX_CONFIG_KEY}`;
  const bad = /[\s\p{Cc}\p{Cf}]/u.exec(key);
  if (bad) return `the key ${show(key)} contains ${describeChar(bad[0])}; configuration keys have none`;
  if (!CONFIG_KEY.test(key))
    return `${show(key)} is not a Flink configuration key: words of letters, digits, "-" and "_" joined by dots`;
  return undefined;
}

function configValueProblem(key: string, value: string): string | undefined {
  if (value.trim().length === 0) return `${key}= has no value; to remove a key use \`config <target> unset ${key}\``;
  if (value.length > MAX_CONFIG_VALUE)
    return `the value of ${key} is ${value.length} characters long; at most ${MAX_CONFIG_VALUE}`;
  const bad = /[\p{Cc}\p{Cf}]/u.exec(value);
  if (bad) return `the value of ${key} contains ${describeChar(bad[0])}`;
  if (value.includes('=')) {
    return `the value of ${key} contains "=" (${show(shownConfigValue(key, value), 40)}): write one key=value per entry, separated by spaces; values with "=" cannot be set from chat`;
  }
  return undefined;
}

/** `key=value` → {key, value}; `key` → {key}; whether the sub-verb wants a value is the verb's own check. */
function configEntry(text: string): ValueCheck {
  const entry = unwrapLinks(text);
  const eq = entry.indexOf('=');
  const key = eq < 0 ? entry : entry.slice(0, eq);
  const keyProblem = configKeyProblem(key);
  if (keyProblem !== undefined) return badValue(keyProblem);
  if (eq < 0) return okValue({ key });
  const value = entry.slice(eq + 1).trim();
  const problem = configValueProblem(key, value);
  return problem === undefined ? okValue({ key, value }) : badValue(problem);
}

const ENTRY: ValueSpec = {
  placeholder: '<key>[=<value>]…',
  description:
    'Flink configuration keys as Flink writes them flat (`execution.checkpointing.interval`); `set` takes `key=value`, `unset` takes `key`; quote an entry whose value has spaces; a value cannot contain `=`',
  example: 'execution.checkpointing.interval=30s',
  check: configEntry,
};

/** `set` needs `key=value`, `unset` a bare key; a key appears once. */
function validate(b: ConfigBound): string | undefined {
  const entries = b.configEntries ?? [];
  const action = b.configAction ?? 'set';
  for (const e of entries) {
    if (action === 'set' && e.value === undefined)
      return `config set takes key=value; ${JSON.stringify(e.key)} has no "=" (to remove it: config <target> unset ${e.key})`;
    if (action === 'unset' && e.value !== undefined)
      return `config unset takes only keys; write ${e.key}, not ${e.key}=…`;
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.key)) return `${e.key} is given more than once; give each key once`;
    seen.add(e.key);
  }
  return undefined;
}

const isIgnoreClass = (key: string) => IGNORE_CLASS_PREFIXES.some((p) => key.startsWith(p));

/** Turning the autoscaler off makes it drop the overrides it holds: the operator then redeploys the job. */
function clearsAutoscalerOverrides(intent: Intent, resource: unknown): boolean {
  const off = intent.entries.some((e) => switchesAutoscalerOff(e.key, e.value));
  return off && Object.keys(autoscalerOverrides(resource)).length > 0;
}

/** One key's edits: set where the key lives (flat when new), or null at every place it is written. */
function keyEdits(configuration: unknown, entry: ConfigEntry): FieldEdit[] | string {
  const locations = configLocations(configuration, entry.key);
  const current = configValue(configuration, entry.key);
  if (entry.value === undefined) {
    if (locations.length === 0) return `${entry.key} is not set`;
    return locations.map((at) => ({ path: [...OWN_PATHS.flinkConfiguration, ...at], after: null }));
  }
  if (current === entry.value) return `${entry.key} is already ${shownConfigValue(entry.key, entry.value)}`;
  return [{ path: [...OWN_PATHS.flinkConfiguration, ...(locations[0] ?? [entry.key])], after: entry.value }];
}

/** Keys the operator writes from the spec's memory and cpu over flinkConfiguration: setting them changes nothing. */
function specSetKeys(intent: Intent, resource: unknown): string | undefined {
  const set = intent.entries.flatMap((e) => {
    const field = e.value === undefined ? undefined : specFieldSetting(resource, e.key);
    return field === undefined ? [] : [`${field} sets ${e.key}`];
  });
  if (set.length === 0) return undefined;
  return `${who(intent.target)}: ${set.join(', ')}, and the operator writes it over spec.flinkConfiguration, so the change would do nothing; use resources`;
}

function plan(intent: Intent, resource: unknown) {
  const overridden = specSetKeys(intent, resource);
  if (overridden !== undefined) return refusal(overridden);
  const configuration = getPath(resource, OWN_PATHS.flinkConfiguration);
  const edits: FieldEdit[] = [];
  const same: string[] = [];
  for (const entry of intent.entries) {
    const result = keyEdits(configuration, entry);
    if (typeof result === 'string') same.push(result);
    else edits.push(...result);
  }
  if (edits.length === 0)
    return refusal(`${who(intent.target)}: ${same.join(', ')} (spec.flinkConfiguration); nothing to do`);
  const notes = same.map((s) => `${s} (unchanged)`);
  const keys = intent.entries.map((e) => e.key);
  notes.push(
    keys.every(isIgnoreClass)
      ? 'the operator classifies these keys as IGNORE: it reads them from the spec without redeploying the job'
      : 'the operator redeploys the job with the new configuration (an UPGRADE), using its upgrade mode',
  );
  return patchOutcome(edits, notes, effectiveUpgradeMode(undefined, resource));
}

/** Why the policy's `config` block refuses `key`, or undefined when it admits it. */
function keyRefusal(rules: CheckPolicy['config'], key: string): string | undefined {
  const denied = rules?.deny.find((g) => matchesGlob(g, key));
  if (denied !== undefined) return `${key} is denied by the policy's config.deny "${denied}"`;
  if (!rules?.allow.some((g) => matchesGlob(g, key))) {
    const allowed = rules?.allow.length
      ? `config.allow is ${rules.allow.map((g) => `"${g}"`).join(', ')}`
      : 'the policy allows no keys (no config.allow)';
    return `${key} is not allowed: ${allowed}`;
  }
  // A glob admits a family of keys; one that moves state must be chosen by name (docs/policy.md#state-directories).
  if (movesState(key) && !rules.allow.includes(key)) {
    return `${key} moves where the job's state is kept (checkpoints, savepoints, HA metadata or the restore path), so the policy must name it exactly in config.allow; a glob does not admit it`;
  }
  return undefined;
}

/**
 * Policy `config` (docs/policy.md#keys-limits-and-verification): every key must match an allow glob and no deny glob
 * (deny wins); a key that moves state must be named exactly; none allowed by default.
 */
function keysCheck(ctx: CheckCtx, intent: Intent): CheckResult {
  const rules = ctx.input.policy?.config;
  const refused = intent.entries.flatMap(({ key }) => keyRefusal(rules, key) ?? []);
  if (refused.length > 0) return fail(CHECK.configKeys, refused.join('; '));
  return pass(CHECK.configKeys, `the policy's config block allows ${intent.entries.map((e) => e.key).join(', ')}`);
}

/** The flinkConfiguration keys a plan's patch sets, in flat form. */
function patchedKeys(plan: Plan): string[] {
  return desiredFields(plan)
    .filter((f) => f.specPath[0] === 'flinkConfiguration')
    .map((f) => f.specPath.slice(1).join('.'));
}

/** IGNORE-class only when the patch touches nothing but IGNORE-class keys. */
function onlyIgnoreClass(plan: Plan): boolean {
  const fields = desiredFields(plan);
  const keys = patchedKeys(plan);
  return keys.length > 0 && keys.length === fields.length && keys.every(isIgnoreClass);
}

/** The entries an undo's patch puts back: a value is set again, `null` unsets (the key "was unset"). */
function inverseEntries(patch: unknown): ConfigEntry[] {
  const configuration = getPath(patch, OWN_PATHS.flinkConfiguration);
  if (!isRecord(configuration)) return [];
  return patchLeaves(configuration).map((leaf) => ({
    key: leaf.path.join('.'),
    ...(leaf.value === null ? {} : { value: typeof leaf.value === 'string' ? leaf.value : JSON.stringify(leaf.value) }),
  }));
}

/** The command in words; a secret value as `•••` (docs/policy.md#secret-values). */
function describe(intent: Intent): string {
  const shown = intent.entries
    .slice(0, 3)
    .map((e) => (e.value === undefined ? e.key : `${e.key}=${shownConfigValue(e.key, e.value)}`));
  const more = intent.entries.length > 3 ? ` and ${intent.entries.length - 3} more` : '';
  return `: ${intent.action} ${shown.join(' ')}${more}`;
}

export const config = {
  intent: ConfigIntent,
  verb: {
    group: 'operation',
    summary: 'set or unset Flink configuration keys (spec.flinkConfiguration), as the policy allows',
    args: [
      TARGET,
      { key: 'configAction', kind: ACTION, required: true },
      { key: 'configEntries', kind: ENTRY, required: true, rest: { max: MAX_CONFIG_ENTRIES } },
    ],
    flags: [...OPERATION_FLAGS],
    examples: [
      'config analytics/clickstream set execution.checkpointing.interval=30s',
      'config clickstream set restart-strategy.type=fixed-delay restart-strategy.fixed-delay.attempts=10 --reason "flaky sink"',
      'config clickstream unset execution.checkpointing.interval',
    ],
    synonyms: ['conf', 'configure', 'configuration', 'setting', 'settings'],
    validate,
    build: (b: ConfigBound) => ({ target: b.target, action: b.configAction, entries: b.configEntries }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: true,
  },
  redeploysJob: (intent, resource) =>
    !intent.entries.every((e) => isIgnoreClass(e.key)) || clearsAutoscalerOverrides(intent, resource),
  plan: ({ intent, resource }) => plan(intent, resource),
  checks: (ctx, intent) => [
    keysCheck(ctx, intent),
    ...configMemoryCheck(intent.entries, ctx.input.policy?.limits, ctx.input.resource),
  ],
  evidence: (ctx) => configEvidence(ctx, { ignoreClass: onlyIgnoreClass(ctx.plan), keys: patchedKeys(ctx.plan) }),
  undo: { inverse: 'config', paths: [], under: [OWN_PATHS.flinkConfiguration] },
  asInverse: (target, patch) => ({
    kind: 'config',
    target,
    action: 'set',
    entries: inverseEntries(patch),
    incidentChannels: [],
  }),
  describe,
} as const satisfies KindModule<Intent>;
