// The unit tests mirror the sources (docs/development.md#layout-and-conventions), so a module's test is found by its
// path: test/unit/a/b.test.ts tests src/a/b.ts (or src/a/b/index.ts), and so does test/unit/a/b.<aspect>.test.ts, one
// aspect of it in a file of its own; packages/sim/test/unit mirrors packages/sim/src alike. test/unit/support and
// test/unit/scripts test the rigs and scripts, not src/.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Test files under `dir`, relative to it, e.g. `slack/blocks/card.test.ts`. */
function testsUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testsUnder(path).map((file) => join(entry.name, file));
    return entry.name.endsWith('.test.ts') ? [relative(dir, path)] : [];
  });
}

/** The module a test's path names under `src`, if it exists: `<path>.ts` or `<path>/index.ts`, `<path>.<aspect>` too. */
function moduleOf(src: string, test: string): string | undefined {
  const named = test.replace(/\.test\.ts$/, '');
  const bases = [named, named.replace(/\.[\w-]+$/, '')].map((path) => join(src, path));
  return bases.flatMap((base) => [`${base}.ts`, join(base, 'index.ts')]).find((candidate) => existsSync(candidate));
}

/** Tests under `tests` whose path names no module under `src`, as repository paths with what they should mirror. */
function unmirrored(tests: string, src: string): string[] {
  return testsUnder(join(ROOT, tests))
    .filter((test) => moduleOf(join(ROOT, src), test) === undefined)
    .map((test) => `${tests}/${test}: no ${src}/${test.replace(/\.test\.ts$/, '')}.ts (or /index.ts)`);
}

/** Fails listing `found`, one per line after `hint`, unless it is empty. */
function expectNone(found: string[], hint: string): void {
  expect(found, `${hint}:\n${found.join('\n')}`).toEqual([]);
}

const MOVE = 'move each test to the path of the module it is mainly about';

describe('unit tests sit at the path of the module they test', () => {
  it("the bot's: test/unit/<path>.test.ts tests src/<path>.ts", () => {
    const rigs = /^test\/unit\/(support|scripts)\//;
    expectNone(
      unmirrored('test/unit', 'src').filter((line) => !rigs.test(line)),
      MOVE,
    );
  });

  it("the simulators': packages/sim/test/unit/<path>.test.ts tests packages/sim/src/<path>.ts", () => {
    expectNone(unmirrored('packages/sim/test/unit', 'packages/sim/src'), MOVE);
  });

  it('finds the tests it checks, and would name one in the wrong place', () => {
    expect(testsUnder(join(ROOT, 'test/unit'))).toContain(join('slack', 'blocks', 'card.test.ts'));
    expect(moduleOf(join(ROOT, 'src'), 'slack/blocks/card.test.ts')).toBe(join(ROOT, 'src/slack/blocks/card.ts'));
    expect(moduleOf(join(ROOT, 'src'), 'slack/blocks.test.ts')).toBe(join(ROOT, 'src/slack/blocks/index.ts'));
    expect(moduleOf(join(ROOT, 'src'), 'slack/blocks/card.buttons.test.ts')).toBe(
      join(ROOT, 'src/slack/blocks/card.ts'),
    );
    expect(moduleOf(join(ROOT, 'src'), 'blocks-card.test.ts')).toBeUndefined();
    expect(moduleOf(join(ROOT, 'src'), 'slack/blocks/cards.buttons.test.ts')).toBeUndefined();
  });
});
