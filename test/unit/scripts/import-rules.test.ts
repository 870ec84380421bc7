// The import rule's tables (scripts/import-rules.ts) on small trees written to a temp dir, and on the real tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LAYERS, areaOf, checkImports, projectRoots, type Problem } from '../../../scripts/import-rules.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → source) under a fresh temp dir, and returns the dir. */
function plant(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-rules-'));
  dirs.push(dir);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

/** Checks `files` as the bot's src/ (paths relative to it). */
function check(files: Record<string, string>): Problem[] {
  return checkImports([{ dir: plant(files), layers: LAYERS }]).problems;
}

const kinds = (problems: Problem[]) => problems.map((p) => p.kind);
const messages = (problems: Problem[]) => problems.map((p) => p.message);

describe('the layer table of src/', () => {
  it('refuses the domain importing app, naming the file, the line, the import and the rule', () => {
    const problems = check({
      'domain/model/a.ts': "// a\nimport { b } from '../../app/b.js';\nexport const a = b;\n",
      'app/b.ts': 'export const b = 1;\n',
    });
    expect(problems).toEqual([expect.objectContaining({ kind: 'layer', file: 'domain/model/a.ts', line: 2 })]);
    expect(problems[0]?.message).toMatch(
      /^domain\/model\/a\.ts:2: import '\.\.\/\.\.\/app\/b\.js' reaches app \(app\/b\.ts\): breaks "domain\/model may import domain\/model; /,
    );
    expect(problems[0]?.message).toContain('; and of packages only zod, node:crypto"');
    expect(problems[0]?.message).not.toContain('\n');
  });

  it('lets the domain use zod and node:crypto only, among bare specifiers', () => {
    const ok =
      "import { z } from 'zod';\nimport { createHash } from 'node:crypto';\nexport const s = z.string(); export const h = createHash;\n";
    expect(check({ 'domain/kit/a.ts': ok })).toEqual([]);
    const problems = check({
      'domain/kit/a.ts': "import { readFileSync } from 'node:fs';\nimport type { Redis } from 'ioredis';\n",
    });
    expect(kinds(problems)).toEqual(['package', 'package']);
    expect(problems[1]?.message).toContain("domain/kit/a.ts:2: import type 'ioredis' breaks");
  });

  it('refuses peers importing each other (worker → slack)', () => {
    const problems = check({
      'worker/run.ts': "export { post } from '../slack/post.js';\n",
      'slack/post.ts': 'export const post = 1;\n',
    });
    expect(messages(problems)).toEqual([
      expect.stringContaining("worker/run.ts:1: import '../slack/post.js' reaches slack (slack/post.ts)"),
    ]);
  });

  it('lets slack/blocks read app views, not app services', () => {
    const app = { 'app/views.ts': 'export interface V { a: 1 }\n', 'app/queries.ts': 'export const q = 1;\n' };
    expect(check({ ...app, 'slack/blocks/q.ts': "import type { V } from '../../app/views.js';\n" })).toEqual([]);
    expect(kinds(check({ ...app, 'slack/blocks/q.ts': "import { q } from '../../app/queries.js';\n" }))).toEqual([
      'layer',
    ]);
  });

  it('refuses a module the table does not place, at line 1', () => {
    expect(check({ 'misc/x.ts': 'export const x = 1;\n' })).toEqual([
      {
        kind: 'unplaced',
        file: 'misc/x.ts',
        line: 1,
        message: 'misc/x.ts:1: is in no area of the layer table (scripts/import-rules.ts)',
      },
    ]);
  });

  it('places a module in the longest area that contains it; app/ports as a file or a folder', () => {
    const paths = [
      'app/views.ts',
      'app/views/x.ts',
      'app/viewsx.ts',
      'app/ports.ts',
      'app/ports/index.ts',
      'slack/blocks/a.ts',
      'slack/app.ts',
    ];
    expect(paths.map(areaOf)).toEqual([
      'app/views',
      'app/views',
      'app',
      'app/ports',
      'app/ports',
      'slack/blocks',
      'slack',
    ]);
    expect(['slack-client/c.ts', 'cli/args.ts', 'config.ts', 'index.ts', 'domain/kinds/scale.ts'].map(areaOf)).toEqual([
      'slack-client',
      'cli/args',
      'config',
      'index',
      'domain/kinds',
    ]);
  });
});

describe('adapters', () => {
  const app = {
    'app/ports.ts': 'export interface Port { go(): void }\n',
    'app/ports/freezes.ts': 'export interface Freezes { list(): string[] }\n',
    'app/views.ts': 'export interface View { a: 1 }\n',
    'app/operations.ts': 'export interface Ops { run(): void }\nexport const ops = 1;\n',
  };

  it('may name app port types (app/ports.ts or app/ports/) and views, with `import type` only', () => {
    const store = [
      "import type { Port } from '../app/ports.js';",
      "import type { Freezes } from '../app/ports/freezes.js';",
      "import type { View } from '../app/views.js';",
      "export type P = import('../app/ports.js').Port;",
    ].join('\n');
    expect(check({ ...app, 'store/impl.ts': store })).toEqual([]);
    // Under verbatimModuleSyntax `import { type Port }` still loads the module at run time.
    const inline = check({ ...app, 'kube/impl.ts': "import { type Port } from '../app/ports.js';\n" });
    expect(messages(inline)).toEqual([
      expect.stringContaining("kube/impl.ts:1: import '../app/ports.js' must be `import type`"),
    ]);
  });

  it('may not name an app service, even as a type', () => {
    for (const adapter of ['store', 'kube', 'queue', 'http', 'slack-client']) {
      const problems = check({ ...app, [`${adapter}/impl.ts`]: "import type { Ops } from '../app/operations.js';\n" });
      expect(messages(problems)).toEqual([
        expect.stringContaining(
          `${adapter}/impl.ts:1: import type '../app/operations.js' reaches app (app/operations.ts)`,
        ),
      ]);
    }
  });
});

describe("the domain's order: model → kit → kinds → engines", () => {
  const domain = {
    'domain/model/target.ts': 'export interface Target { name: string }\n',
    'domain/kit/values.ts': "import type { Target } from '../model/target.js';\nexport type V = Target;\n",
    'domain/kinds/scale.ts': "import type { V } from '../kit/values.js';\nexport type S = V;\n",
    'domain/engines/plan.ts':
      "import type { S } from '../kinds/scale.js';\nimport type { Target } from '../model/target.js';\nexport type P = [S, Target];\n",
  };

  it('lets each layer import the ones before it', () => {
    expect(check(domain)).toEqual([]);
  });

  it('refuses an earlier layer importing a later one, types included', () => {
    const back: Record<string, string> = {
      'domain/model/x.ts': "import type { V } from '../kit/values.js';\nexport type X = V;\n",
      'domain/kit/x.ts': "import { type S } from '../kinds/scale.js';\nexport type X = S;\n",
      'domain/kinds/x.ts': "export type X = import('../engines/plan.js').P;\n",
    };
    const problems = check({ ...domain, ...back });
    expect(messages(problems).sort()).toEqual([
      expect.stringContaining("domain/kinds/x.ts:1: import type '../engines/plan.js' reaches domain/engines"),
      expect.stringContaining("domain/kit/x.ts:1: import '../kinds/scale.js' reaches domain/kinds"),
      expect.stringContaining("domain/model/x.ts:1: import type '../kit/values.js' reaches domain/kit"),
    ]);
  });

  it('refuses a folder beside the four (the folders from before the order are gone)', () => {
    expect(kinds(check({ 'domain/misc/x.ts': 'export const x = 1;\n' }))).toEqual(['unplaced']);
    expect(kinds(check({ 'domain/policy/schema.ts': 'export const s = 1;\n' }))).toEqual(['unplaced']);
  });
});

describe('the roots: src/ and packages/sim/src', () => {
  const repo = {
    'package.json': '{"name":"flink-chatops"}',
    'packages/sim/package.json': '{"name":"@flink-chatops/sim"}',
    'src/index.ts': "export { parseArgs } from './cli/args.js';\n",
    'src/cli/args.ts': 'export const parseArgs = 1;\n',
    'src/domain/model/x.ts': 'export const x = 1;\n',
    'packages/sim/src/bot.ts': "export * from '../../../src/index.js';\n",
    'packages/sim/src/kube/server.ts': "import { parseArgs } from '../bot.js';\nexport const s = parseArgs;\n",
  };
  const checkRepo = (files: Record<string, string>): Problem[] => checkImports(projectRoots(plant(files))).problems;

  it('checks both, and lets the simulators import the bot through src/index.ts', () => {
    const dir = plant(repo);
    expect(projectRoots(dir).map((root) => root.name)).toEqual(['src', 'packages/sim/src']);
    expect(checkImports(projectRoots(dir))).toEqual({ modules: 5, problems: [] });
  });

  it('refuses the simulators reaching past the entry, even for a type, or naming the bot package', () => {
    const problems = checkRepo({
      ...repo,
      'packages/sim/src/a.ts': "import type { x } from '../../../src/domain/model/x.js';\nexport type A = typeof x;\n",
      'packages/sim/src/b.ts': "import { parseArgs } from 'flink-chatops';\nexport const b = parseArgs;\n",
    });
    expect(messages(problems)).toEqual([
      "packages/sim/src/a.ts:1: import type '../../../src/domain/model/x.js' reaches outside packages/sim/src (../../../src/domain/model/x.ts): it may import from outside it, only the bot's public entry src/index.ts",
      "packages/sim/src/b.ts:1: import 'flink-chatops' is refused: import the bot through its public entry, by relative path to src/index.ts",
    ]);
  });

  it('refuses src/ importing the simulators, by path or by package name', () => {
    const problems = checkRepo({
      ...repo,
      'src/cli/main.ts':
        "import { s } from '../../packages/sim/src/kube/server.js';\nexport const load = () => import('@flink-chatops/sim/kube/server');\nexport const m = s;\n",
    });
    expect(messages(problems)).toEqual([
      "src/cli/main.ts:1: import '../../packages/sim/src/kube/server.js' reaches outside src (../packages/sim/src/kube/server.ts): it may import nothing outside it",
      "src/cli/main.ts:2: import() '@flink-chatops/sim/kube/server' is refused: nothing in the bot imports the simulators (packages/sim)",
    ]);
  });

  it('checks src/ alone while packages/sim/src does not exist', () => {
    const dir = plant({ 'package.json': '{"name":"flink-chatops"}', 'src/log.ts': 'export const log = 1;\n' });
    expect(projectRoots(dir).map((root) => root.name)).toEqual(['src']);
    expect(checkImports(projectRoots(dir)).problems).toEqual([]);
  });
});

describe('cycles', () => {
  it('counts import(): a loop through a lazy import is a cycle, reported at the first import of the loop', () => {
    const problems = check({
      'app/a.ts': "export const n = 1;\nexport const load = async () => (await import('./b.js')).x;\n",
      'app/b.ts': "import { n } from './a.js';\nexport const x = n;\n",
    });
    expect(messages(problems)).toEqual(['app/a.ts:2: import cycle: app/a.ts → import() app/b.ts → app/a.ts']);
  });

  it('counts type-only imports and `export … from`', () => {
    const problems = check({
      'app/a.ts': "export type { B } from './b.js';\nexport interface A { n: number }\n",
      'app/b.ts': "import type { A } from './a.js';\nexport type B = A;\n",
    });
    expect(messages(problems)).toEqual(['app/a.ts:1: import cycle: app/a.ts → app/b.ts → app/a.ts']);
  });

  it('reports one shortest loop per group of modules that import each other', () => {
    const problems = check({
      'app/a.ts': "import './b.js';\n",
      'app/b.ts': "import './c.js';\nimport './a.js';\n",
      'app/c.ts': "import './a.js';\n",
      'app/d.ts': "import './a.js';\n",
    });
    expect(messages(problems)).toEqual(['app/a.ts:1: import cycle: app/a.ts → app/b.ts → app/a.ts']);
  });
});

describe('the real tree', () => {
  it('follows the layer tables and has no import cycles', () => {
    const result = checkImports(projectRoots(fileURLToPath(new URL('../../..', import.meta.url))));
    expect(result.modules).toBeGreaterThan(100);
    expect(messages(result.problems)).toEqual([]);
  });
});
