// The kind registry is the one home of each operation kind: the engines dispatch through it, and a kind's name
// appears as a literal only in its own module and at most two other places.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTENT_KINDS, KINDS, KIND_NAMES, describeIntent, inverseOf, judgedKind, kindsWhere, usesUpgradeMode } from '../../src/domain/kinds/index.js';
import { VERB_NAMES, verbSpec } from '../../src/domain/language/verbs.js';
import { ourSubmissionsAfter } from '../../src/domain/planning/ours.js';
import { UNDOABLE_KINDS } from '../../src/domain/planning/undo.js';
import { KINDS_WITH_UPGRADE_MODE } from '../../src/domain/policy/validate.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'sandbox' ? [] : sources(path);
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

  it.each([...INTENT_KINDS])('%s is written as a literal in its module and at most two other files under src/ (sandbox aside)', (kind) => {
    const literal = new RegExp(`['"\`]${kind}['"\`]`);
    const where = files.filter((f) => literal.test(f.text)).map((f) => f.path);
    expect(where).toContain(`domain/kinds/${kind}.ts`);
    expect(where.length, where.join(', ')).toBeLessThanOrEqual(3);
  });

  it('lists every kind once, and the parser, help and intent union know exactly those', () => {
    expect(new Set(INTENT_KINDS).size).toBe(INTENT_KINDS.length);
    const operationVerbs = VERB_NAMES.filter((v) => verbSpec(v).group === 'operation');
    expect(operationVerbs).toEqual([...INTENT_KINDS]);
  });

  it('derives every "kinds that …" list from traits', () => {
    expect(kindsWhere('onSessionCluster')).toEqual(['restart', 'upgrade']);
    expect(KIND_NAMES.filter((k) => !KINDS[k].traits.onSessionJob)).toEqual(['upgrade', 'resources']);
    expect(kindsWhere('stopsJob')).toEqual(['suspend', 'restart', 'scale', 'upgrade', 'resources', 'config']);
    expect(kindsWhere('redeploys')).toEqual(['suspend', 'resume', 'restart', 'scale', 'upgrade', 'resources', 'config']);
    expect(kindsWhere('hasMode')).toEqual(['suspend', 'upgrade']);
    expect(kindsWhere('refusedWhileSuspended')).toEqual(['restart', 'scale', 'upgrade', 'resources', 'config']);
    expect(KINDS_WITH_UPGRADE_MODE).toEqual(['suspend', 'resume', 'restart', 'scale', 'upgrade', 'restore', 'resources', 'config', 'undo']);
    expect(INTENT_KINDS.filter((k) => !usesUpgradeMode(k))).toEqual(['savepoint']);
  });

  it('knows which kinds can be undone and what each undo is judged as', () => {
    expect(UNDOABLE_KINDS).toEqual(['suspend', 'resume', 'scale', 'upgrade', 'resources', 'config']);
    expect(UNDOABLE_KINDS.map(inverseOf)).toEqual(['resume', 'suspend', 'scale', 'upgrade', 'resources', 'config']);
    expect(inverseOf('restart')).toBeUndefined();
    expect(judgedKind('undo', { judgedAs: 'resume' })).toBe('resume');
    expect(judgedKind('scale', {})).toBe('scale');
    expect(() => judgedKind('undo', {})).toThrow(/judgedAs/);
  });

  it('describes each intent in words through its module', () => {
    const target = { kind: 'FlinkDeployment' as const, namespace: 'streaming-prod', name: 'orders' };
    expect(describeIntent({ kind: 'scale', target, parallelism: 8, incidentChannels: [] })).toBe('scale streaming-prod/orders to parallelism 8');
    expect(describeIntent({ kind: 'upgrade', target, image: 'r/i:2', mode: 'savepoint', incidentChannels: [] })).toBe(
      'upgrade streaming-prod/orders to image r/i:2 (mode savepoint)',
    );
    expect(describeIntent({ kind: 'undo', opId: 'op-abcdef', incidentChannels: [] }, target)).toBe('undo op-abcdef on streaming-prod/orders');
  });
});

describe('"made by this bot": one rule for the approval re-check and the worker', () => {
  const plan = { uid: 'uid-1', generation: 5 };
  it('counts only other operations on the same object whose submission came after the plan', () => {
    const records = [
      { id: 'op-self01', submittedGeneration: 7, plan: { uid: 'uid-1' } },
      { id: 'op-ahead1', submittedGeneration: 6, plan: { uid: 'uid-1' } },
      { id: 'op-older1', submittedGeneration: 5, plan: { uid: 'uid-1' } },
      { id: 'op-snap01', plan: { uid: 'uid-1' } },
    ];
    expect(ourSubmissionsAfter(records, plan, 'op-self01')).toEqual([{ opId: 'op-ahead1', generation: 6 }]);
  });

  it('does not count an operation on an earlier object of the same name (the approval re-check used to)', () => {
    const records = [{ id: 'op-gone01', submittedGeneration: 6, plan: { uid: 'uid-0' } }];
    expect(ourSubmissionsAfter(records, plan, 'op-self01')).toEqual([]);
  });
});
