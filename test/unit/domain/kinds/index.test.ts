// Properties of the kind registry (KINDS is the only list of kinds): each kind's examples parse to its own intent
// and plan; the intent union, the parser and help know every kind; every "kinds that …" behaviour follows the
// kind's traits; every undoable kind's undo puts back exactly what its plan set. No list of kind names here, so
// adding a kind adds cases instead of edits.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INTENT_KINDS,
  KINDS,
  KIND_NAMES,
  OperationIntentSchema,
  UNDOABLE_KINDS,
  describeIntent,
  inverseOf,
  isKindName,
  judgedKind,
  kindModule,
  kindsWhere,
  undo,
  type KindIntent,
  type KindName,
} from '../../../../src/domain/kinds/index.js';
import { helpText } from '../../../../src/domain/engines/language/help.js';
import { parseCommand } from '../../../../src/domain/engines/language/parse.js';
import { VERB_NAMES, spelledVerb, verbSpec } from '../../../../src/domain/engines/language/verbs.js';
import { applyMergePatch, getPath, patchLeaves, type JsonRecord } from '../../../../src/domain/model/merge-patch.js';
import type { Plan } from '../../../../src/domain/model/plan.js';
import { formatTarget, type Target } from '../../../../src/domain/model/target.js';
import { notApplicable, planOperation } from '../../../../src/domain/engines/planning/planner.js';
import { planUndo } from '../../../../src/domain/engines/planning/undo.js';
import { CHECK, runChecks } from '../../../../src/domain/engines/policy/checks.js';
import {
  FIXTURE_EPOCH_MS,
  PLAN_CONTEXT,
  flinkDeployment,
  flinkSessionJob,
  sessionCluster,
} from '../../../support/fixtures.js';

const SRC = join(import.meta.dirname, '..', '..', '..', '..', 'src');
const running = flinkDeployment();
const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });
/** Paused for GitOps (Flux's per-object switch), for the kinds that act only on a paused target. */
const paused = flinkDeployment({ annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' } });
const TARGET: Target = {
  kind: 'FlinkDeployment',
  namespace: 'streaming-prod',
  name: String(getPath(running, ['metadata', 'name'])),
};

/** Each of the kind's examples as the parser reads it, aimed at the fixture deployment. */
function exampleIntents(kind: KindName): { example: string; intent: KindIntent }[] {
  return KINDS[kind].verb.examples.map((example) => {
    const parsed = parseCommand(example, { defaultNamespace: 'analytics' });
    if (parsed.type !== 'intent' || parsed.intent.kind !== kind)
      throw new Error(`${example} → ${JSON.stringify(parsed)}`);
    return { example, intent: { ...parsed.intent, target: TARGET } as KindIntent };
  });
}

/** The plans of the kind's examples on a running, a suspended or a paused deployment (whichever each applies to). */
function examplePlans(kind: KindName): { example: string; before: unknown; plan: Plan }[] {
  return exampleIntents(kind).flatMap(({ example, intent }) => {
    for (const before of [running, suspended, paused]) {
      const result = planOperation(intent, { resource: before }, PLAN_CONTEXT);
      if (result.ok) return [{ example, before, plan: result.plan }];
    }
    return [];
  });
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The code without comments, so documentation may name kinds freely. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('the kind registry', () => {
  const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: code(path) }));

  it.each([...INTENT_KINDS])(
    '%s is written as a literal in its module and at most two other files under src/',
    (kind) => {
      const literal = new RegExp(`['"\`]${kind}['"\`]`);
      const where = files.filter((f) => literal.test(f.text)).map((f) => f.path);
      expect(where).toContain(`domain/kinds/${kind}.ts`);
      expect(where.length, where.join(', ')).toBeLessThanOrEqual(3);
    },
  );

  it('lists every kind once; the parser and help know exactly those as operations, undo last', () => {
    expect(new Set(INTENT_KINDS).size).toBe(INTENT_KINDS.length);
    expect(INTENT_KINDS).toEqual([...KIND_NAMES, undo.name]);
    expect(VERB_NAMES.filter((v) => verbSpec(v).group === 'operation')).toEqual([...INTENT_KINDS]);
    const overview = helpText();
    for (const kind of INTENT_KINDS) {
      expect(overview).toContain(`• \`/flink ${spelledVerb(kind)}`);
      expect(overview).toContain(verbSpec(kind).summary);
    }
  });

  it('builds the intent union from the registry: every kind schema and undo, nothing else', () => {
    expect(OperationIntentSchema.options).toEqual([...KIND_NAMES.map((k) => KINDS[k].intent), undo.intent]);
  });
});

describe.each(KIND_NAMES)('%s', (kind) => {
  const module = kindModule(kind);
  const traits = module.traits;

  it('has examples that parse to an intent of its own kind that its own schema accepts', () => {
    expect(module.verb.examples.length).toBeGreaterThan(0);
    for (const { intent } of exampleIntents(kind))
      expect(module.intent.safeParse(intent).success, JSON.stringify(intent)).toBe(true);
  });

  it('plans at least one of its examples, as the change its traits name, described from its module', () => {
    const plans = examplePlans(kind);
    expect(plans.length, 'no example plans on a running, a suspended or a paused deployment').toBeGreaterThan(0);
    for (const { plan } of plans) expect(plan.change.type).toBe(traits.change);
    for (const { intent } of exampleIntents(kind))
      expect(describeIntent(intent)).toMatch(new RegExp(`^${kind} ${formatTarget(TARGET)}`));
  });

  it('takes --mode exactly when its traits say it has a mode', () => {
    expect(module.verb.flags.some((f) => f.name === 'mode')).toBe(traits.hasMode);
  });

  it('applies to session clusters and session jobs as its traits say, and says why not', () => {
    const cluster = sessionCluster();
    const clusterTarget: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'session-cluster' };
    expect(notApplicable(kind, clusterTarget, cluster, true) === undefined).toBe(traits.onSessionCluster);
    const job: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clickstream-sessionizer' };
    const refusal = notApplicable(kind, job, flinkSessionJob(), false);
    expect(refusal === undefined).toBe(traits.onSessionJob);
    if (!traits.onSessionJob)
      expect(refusal).toContain(module.sessionJobRefusal ?? 'a reason of its own (sessionJobRefusal)');
    expect(kindsWhere('onSessionCluster').includes(kind)).toBe(traits.onSessionCluster);
  });

  it('is refused on a suspended target exactly when its traits say so', () => {
    for (const { intent } of exampleIntents(kind)) {
      const result = planOperation(intent, { resource: suspended }, PLAN_CONTEXT);
      const refused =
        !result.ok &&
        /is suspended: the operator records the change but applies it only at resume/.test(result.refusal);
      expect(refused, JSON.stringify(result)).toBe(traits.refusedWhileSuspended);
    }
  });

  it('gets the shared stop and redeploy checks exactly when its traits say it stops or redeploys the job', () => {
    const [first] = exampleIntents(kind);
    const names = (mode: 'last-state' | 'stateless') =>
      runChecks({
        intent: first!.intent,
        resource: running,
        effectiveUpgradeMode: mode,
        now: new Date(FIXTURE_EPOCH_MS),
      }).map((c) => c.name);
    expect(names('last-state').includes(CHECK.highAvailability)).toBe(traits.stopsJob);
    expect(names('stateless').includes(CHECK.statelessDropsState)).toBe(traits.redeploys);
  });
});

describe('undo', () => {
  it('inverts exactly the kinds with an undo spec, each as a kind of the registry, and its verb names them', () => {
    expect(UNDOABLE_KINDS).toEqual(KIND_NAMES.filter((k) => kindModule(k).undo !== undefined));
    for (const kind of UNDOABLE_KINDS) expect(isKindName(inverseOf(kind)), kind).toBe(true);
    for (const kind of KIND_NAMES) {
      expect(new RegExp(`\\b${kind}\\b`).test(undo.verb.summary), `undo's summary and ${kind}`).toBe(
        UNDOABLE_KINDS.includes(kind),
      );
    }
    expect(judgedKind('undo', { judgedAs: inverseOf(UNDOABLE_KINDS[0]!) })).toBe(inverseOf(UNDOABLE_KINDS[0]!));
    expect(() => judgedKind('undo', {})).toThrow(/judgedAs/);
  });

  it.each([...UNDOABLE_KINDS])(
    'of %s puts back every field its plan set, nonces aside, and is judged as its inverse',
    (kind) => {
      const spec = kindModule(kind).undo!;
      const plans = examplePlans(kind);
      expect(plans.length).toBeGreaterThan(0);
      for (const { example, before, plan } of plans) {
        const patch = plan.change.type === 'patch' ? (plan.change.patch as JsonRecord) : {};
        const after = applyMergePatch(before, patch);
        const intent = exampleIntents(kind).find((e) => e.example === example)!.intent;
        const result = planUndo(
          { id: PLAN_CONTEXT.opId, kind, state: 'COMPLETED', plan, intent },
          { resource: after },
          { ...PLAN_CONTEXT, opId: 'op-undo01' },
        );
        if (!result.ok) throw new Error(`${example}: ${result.refusal}`);
        expect(result.plan.judgedAs).toBe(spec.inverse);
        const undone = applyMergePatch(after, result.plan.change.type === 'patch' ? result.plan.change.patch : {});
        const set = patchLeaves(patch).filter(
          (leaf) => leaf.path[0] === 'spec' && !/Nonce$/.test(leaf.path.at(-1) ?? ''),
        );
        expect(set.length, example).toBeGreaterThan(0);
        for (const leaf of set)
          expect(getPath(undone, leaf.path), `${example}: ${leaf.path.join('.')}`).toEqual(getPath(before, leaf.path));
      }
    },
  );
});

describe('values', () => {
  const env = { ctx: { defaultNamespace: 'analytics' }, command: '/flink' };
  it.each(VERB_NAMES)('every value %s takes has an example its own check accepts', (verb) => {
    const spec = verbSpec(verb);
    for (const { kind } of [...spec.args, ...spec.flags])
      expect(kind.check(kind.example, env, 'value').ok, `${verb}: ${kind.placeholder}`).toBe(true);
  });
});
