// The import lint (scripts/import-rules.ts) on small trees written to a temp dir, and on the real src/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { areaOf, checkImports, importsOf, type Problem } from '../../scripts/import-rules.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path under the root → source) and checks the tree; every file not given is empty. */
function check(files: Record<string, string>): Problem[] {
  const root = mkdtempSync(join(tmpdir(), 'import-rules-'));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return checkImports(root).problems;
}

const kinds = (problems: Problem[]) => problems.map((p) => p.kind);

describe('the layer table', () => {
  it('refuses domain importing app, and names the file, the import and the rule', () => {
    const problems = check({ 'domain/a.ts': "import { b } from '../app/b.js';\nexport const a = b;\n", 'app/b.ts': 'export const b = 1;\n' });
    expect(kinds(problems)).toEqual(['layer']);
    expect(problems[0]?.file).toBe('domain/a.ts');
    expect(problems[0]?.message).toContain("domain/a.ts: import '../app/b.js' reaches app (app/b.ts)");
    expect(problems[0]?.message).toContain('breaks "domain may import domain; and of packages only zod, node:crypto"');
  });

  it('lets domain use zod and node:crypto only, among bare specifiers', () => {
    const ok = "import { z } from 'zod';\nimport { createHash } from 'node:crypto';\nexport const s = z.string(); export const h = createHash;\n";
    expect(check({ 'domain/a.ts': ok })).toEqual([]);
    const problems = check({ 'domain/a.ts': "import { readFileSync } from 'node:fs';\nimport type { Redis } from 'ioredis';\n" });
    expect(kinds(problems)).toEqual(['package', 'package']);
    expect(problems[1]?.message).toContain("domain/a.ts: import type 'ioredis' breaks");
  });

  it('refuses peers importing each other (worker → slack)', () => {
    const problems = check({ 'worker/run.ts': "export { post } from '../slack/post.js';\n", 'slack/post.ts': 'export const post = 1;\n' });
    expect(kinds(problems)).toEqual(['layer']);
    expect(problems[0]?.message).toContain("worker/run.ts: import '../slack/post.js' reaches slack (slack/post.ts)");
  });

  it('lets adapters name the app ports they implement, with `import type` only', () => {
    const files = { 'app/ports.ts': 'export interface Port { go(): void }\n' };
    expect(check({ ...files, 'store/impl.ts': "import type { Port } from '../app/ports.js';\n" })).toEqual([]);
    expect(check({ ...files, 'kube/impl.ts': "export type P = import('../app/ports.js').Port;\n" })).toEqual([]);
    // Under verbatimModuleSyntax `import { type Port }` still loads the module at run time.
    const inline = check({ ...files, 'store/impl.ts': "import { type Port } from '../app/ports.js';\n" });
    const message = "store/impl.ts: import '../app/ports.js' must be `import type`";
    expect(inline.map((p) => p.message)).toEqual([expect.stringContaining(message)]);
  });

  it('lets slack/blocks read app views, not app services', () => {
    const app = { 'app/views.ts': 'export interface V { a: 1 }\n', 'app/queries.ts': 'export const q = 1;\n' };
    expect(check({ ...app, 'slack/blocks/q.ts': "import type { V } from '../../app/views.js';\n" })).toEqual([]);
    expect(kinds(check({ ...app, 'slack/blocks/q.ts': "import { q } from '../../app/queries.js';\n" }))).toEqual(['layer']);
  });

  it('lets only cli import sandbox, and only through import()', () => {
    const sandbox = { 'sandbox/x.ts': "export { parseArgs } from '../cli/args.js';\n", 'cli/args.ts': 'export const parseArgs = 1;\n' };
    expect(check({ ...sandbox, 'cli/main.ts': "export const load = () => import('../sandbox/x.js');\n" })).toEqual([]);
    const eager = check({ ...sandbox, 'cli/main.ts': "export { parseArgs } from '../sandbox/x.js';\n" });
    const lazyOnly = "cli/main.ts: import '../sandbox/x.js' must be a lazy import()";
    expect(eager.map((p) => p.message)).toEqual([expect.stringContaining(lazyOnly)]);
    const fromRoles = check({ ...sandbox, 'roles/bot.ts': "export const load = () => import('../sandbox/x.js');\n" });
    const onlyCli = "roles/bot.ts: import() '../sandbox/x.js' reaches sandbox";
    expect(fromRoles.map((p) => p.message)).toEqual([expect.stringContaining(onlyCli)]);
  });

  it('refuses a module the table does not place', () => {
    expect(kinds(check({ 'misc/x.ts': 'export const x = 1;\n' }))).toEqual(['unplaced']);
  });

  it('places a module in the longest area that contains it', () => {
    const paths = ['app/views.ts', 'app/views/x.ts', 'app/viewsx.ts', 'slack/blocks/a.ts', 'slack/app.ts', 'slack-client/c.ts', 'cli/args.ts', 'config.ts'];
    expect(paths.map(areaOf)).toEqual([
      'app/views',
      'app/views',
      'app',
      'slack/blocks',
      'slack',
      'slack-client',
      'cli/args',
      'config',
    ]);
  });
});

describe('cycles', () => {
  it('counts import(): a cli ↔ sandbox loop through a lazy import is a cycle', () => {
    const problems = check({
      'cli/main.ts': "export const parseArgs = 1;\nexport const load = async () => (await import('../sandbox/x.js')).x;\n",
      'sandbox/x.ts': "import { parseArgs } from '../cli/main.js';\nexport const x = parseArgs;\n",
    });
    expect(kinds(problems).sort()).toEqual(['cycle', 'layer']);
    expect(problems.find((p) => p.kind === 'cycle')?.message).toBe('import cycle: cli/main.ts → import() sandbox/x.ts → cli/main.ts');
  });

  it('counts type-only imports and `export … from`', () => {
    const problems = check({
      'app/a.ts': "export type { B } from './b.js';\nexport interface A { n: number }\n",
      'app/b.ts': "import type { A } from './a.js';\nexport type B = A;\n",
    });
    expect(problems.map((p) => p.message)).toEqual(['import cycle: app/a.ts → app/b.ts → app/a.ts']);
  });

  it('reports one shortest loop per group of modules that import each other', () => {
    const problems = check({
      'app/a.ts': "import './b.js';\n",
      'app/b.ts': "import './c.js';\nimport './a.js';\n",
      'app/c.ts': "import './a.js';\n",
      'app/d.ts': "import './a.js';\n",
    });
    expect(problems.map((p) => p.message)).toEqual(['import cycle: app/a.ts → app/b.ts → app/a.ts']);
  });
});

describe('importsOf', () => {
  it('finds static, re-exported, type-only and dynamic imports, in type positions too', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export * from './d.js';",
      "export type { E } from './e.js';",
      "const f = () => import('./f.js');",
      "type G = typeof import('./g.js');",
      "import './h.js';",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: './a.js', kind: 'static' },
      { specifier: './b.js', kind: 'type' },
      { specifier: './c.js', kind: 'static' },
      { specifier: './d.js', kind: 'static' },
      { specifier: './e.js', kind: 'type' },
      { specifier: './f.js', kind: 'dynamic' },
      { specifier: './g.js', kind: 'type' },
      { specifier: './h.js', kind: 'static' },
    ]);
  });
});

describe('the real src/', () => {
  it('follows the layer table and has no import cycles', () => {
    const result = checkImports(fileURLToPath(new URL('../../src', import.meta.url)));
    expect(result.modules).toBeGreaterThan(100);
    expect(result.problems.map((p) => p.message)).toEqual([]);
  });
});
