// The ways around `import` and the domain's impure globals (scripts/import-rules/scan.ts), planted in temp trees.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAYERS, checkImports, importsOf, type Problem } from '../../../../scripts/import-rules.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path under src/ → source) to a fresh temp dir and checks it as the bot's src/. */
function check(files: Record<string, string>): Problem[] {
  const dir = mkdtempSync(join(tmpdir(), 'import-scan-'));
  dirs.push(dir);
  for (const [path, source] of Object.entries({ 'app/y.ts': 'export const y = 1;\n', ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return checkImports([{ dir, layers: LAYERS }]).problems;
}

const lines = (problems: Problem[]) => problems.map((p) => `${p.kind} ${p.message}`);

describe('require', () => {
  it('refuses require() calls, and still checks where they lead', () => {
    const problems = check({ 'domain/model/a.ts': "export const a = 1;\nconst y = require('../../app/y.js');\n" });
    expect(lines(problems)).toEqual([
      "require domain/model/a.ts:2: require('../../app/y.js'): use import",
      expect.stringContaining("layer domain/model/a.ts:2: require() '../../app/y.js' reaches app (app/y.ts)"),
    ]);
  });

  it('refuses createRequire, and a require it made called with a specifier', () => {
    const source =
      "import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const y = load('./y.js');\n";
    expect(lines(check({ 'app/a.ts': source }))).toEqual([
      'require app/a.ts:1: createRequire (node:module): use import',
      'require app/a.ts:2: createRequire (node:module): use import',
      "require app/a.ts:3: load('./y.js'): use import",
    ]);
  });

  it('refuses module.createRequire, an aliased createRequire, and module.require', () => {
    const viaModule =
      "import module from 'node:module';\nconst r = module.createRequire(import.meta.url);\nexport const y = r('zod');\n";
    expect(lines(check({ 'app/a.ts': viaModule }))).toEqual([
      'require app/a.ts:2: createRequire (node:module): use import',
      "require app/a.ts:3: r('zod'): use import",
    ]);
    const aliased =
      "import { createRequire as cr } from 'node:module';\nconst r = cr(import.meta.url);\nr(process.env.X);\n";
    expect(lines(check({ 'app/a.ts': aliased }))).toEqual([
      'require app/a.ts:1: createRequire (node:module): use import',
      'require app/a.ts:3: r(…): use import',
    ]);
    expect(lines(check({ 'app/a.ts': "export const y = module.require('./y.js');\n" }))).toEqual([
      "require app/a.ts:1: module.require('./y.js'): use import",
    ]);
  });

  it('refuses `import x = require()`, and still checks where it leads', () => {
    const problems = check({ 'store/a.ts': "import y = require('../app/y.js');\nexport const a = y;\n" });
    expect(lines(problems)).toEqual([
      'require store/a.ts:1: import y = require(…): use import',
      expect.stringContaining("layer store/a.ts:1: import = require() '../app/y.js' reaches app (app/y.ts)"),
    ]);
  });
});

describe('specifiers the checker cannot follow', () => {
  it('refuses import() of a computed specifier, and takes a template without substitutions as literal', () => {
    const source = [
      'export const a = (name: string) => import(name);',
      'export const b = (n: string) => import(`./x/${n}.js`);',
      'export const c = () => import(`./y.js`);',
    ].join('\n');
    expect(lines(check({ 'app/a.ts': source }))).toEqual([
      'computed app/a.ts:1: import() of a computed specifier cannot be checked: name the module literally',
      'computed app/a.ts:2: import() of a computed specifier cannot be checked: name the module literally',
    ]);
  });

  it('refuses # (package.json "imports"), absolute and URL specifiers, and accepts node: builtins', () => {
    const source = "import '#store/x';\nimport '/abs/x.js';\nimport 'file:///abs/x.js';\nimport 'node:fs';\n";
    expect(lines(check({ 'app/a.ts': source }))).toEqual([
      `specifier app/a.ts:1: import '#store/x' is a package.json "imports" (#) specifier: this project does not use them, and the checker cannot place it`,
      "specifier app/a.ts:2: import '/abs/x.js' cannot be placed by the checker: use a relative path or a package name",
      "specifier app/a.ts:3: import 'file:///abs/x.js' cannot be placed by the checker: use a relative path or a package name",
    ]);
  });

  it('refuses triple-slash references', () => {
    const source = '/// <reference path="../app/y.ts" />\n/// <reference types="node" />\nexport const a = 1;\n';
    expect(lines(check({ 'store/a.ts': source }))).toEqual([
      'reference store/a.ts:1: /// <reference path="../app/y.ts" /> (use import type)',
      'reference store/a.ts:2: /// <reference types="node" /> (use import type)',
    ]);
  });
});

describe('the domain is pure', () => {
  it('refuses the clock, randomness, the process and global I/O, each at its line', () => {
    const source = [
      'export const a = Date.now();',
      'export const b = new Date();',
      'export const c = performance.now();',
      'export const d = Math.random();',
      'export const e = process.env.TZ;',
      'export const f = process.hrtime.bigint();',
      "import { randomUUID } from 'node:crypto';",
      'export const g = globalThis;',
      'export const h = Date();',
      'export const i = { process };',
      'export const j = () => setTimeout(() => undefined, 1);',
    ].join('\n');
    const problems = check({ 'domain/kinds/a.ts': source });
    expect(problems.every((p) => p.kind === 'impure' && p.file === 'domain/kinds/a.ts')).toBe(true);
    expect(problems.map((p) => `${p.line} ${p.message.split(' in ')[0]}`)).toEqual([
      '1 domain/kinds/a.ts:1: Date.now',
      '2 domain/kinds/a.ts:2: new Date()',
      '3 domain/kinds/a.ts:3: performance.now',
      '4 domain/kinds/a.ts:4: Math.random',
      '5 domain/kinds/a.ts:5: process.env',
      '6 domain/kinds/a.ts:6: process.hrtime',
      '7 domain/kinds/a.ts:7: randomUUID',
      '8 domain/kinds/a.ts:8: globalThis',
      '9 domain/kinds/a.ts:9: Date()',
      '10 domain/kinds/a.ts:10: process',
      '11 domain/kinds/a.ts:11: setTimeout',
    ]);
    expect(problems[0]?.message).toBe(
      'domain/kinds/a.ts:1: Date.now in domain/kinds, which is pure: it takes the clock, randomness and the environment as parameters',
    );
  });

  it('lets the domain name a time it is given, and words that only look like globals', () => {
    const source = [
      '// Date.now() and process.env are read by the caller.',
      'export const at = (ms: number) => new Date(ms).toISOString();',
      'export const name = (o: { process: string }) => o.process;',
      'export const rec = { process: 1, random: 2 };',
      'export type Env = typeof process.env;',
      "export const text = 'Math.random()';",
    ].join('\n');
    expect(check({ 'domain/model/a.ts': source })).toEqual([]);
  });

  it('lets other areas use the clock', () => {
    expect(check({ 'app/a.ts': 'export const now = () => Date.now() + Number(process.env.SKEW ?? 0);\n' })).toEqual([]);
  });
});

describe('importsOf', () => {
  it('finds static, re-exported, type-only, dynamic and require imports with their lines, in type positions too', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export * from './d.js';",
      "export type { E } from './e.js';",
      "const f = () => import('./f.js');",
      "type G = typeof import('./g.js');",
      "import './h.js';",
      "import i = require('./i.js');",
      "const j = require('./j.js');",
      "declare module './k.js' { interface K { k: 1 } }",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: './a.js', kind: 'static', line: 1 },
      { specifier: './b.js', kind: 'type', line: 2 },
      { specifier: './c.js', kind: 'static', line: 3 },
      { specifier: './d.js', kind: 'static', line: 4 },
      { specifier: './e.js', kind: 'type', line: 5 },
      { specifier: './f.js', kind: 'dynamic', line: 6 },
      { specifier: './g.js', kind: 'type', line: 7 },
      { specifier: './h.js', kind: 'static', line: 8 },
      { specifier: './i.js', kind: 'require', line: 9, form: 'import = require()' },
      { specifier: './j.js', kind: 'require', line: 10, form: 'require()' },
      { specifier: './k.js', kind: 'type', line: 11, form: 'declare module' },
    ]);
  });
});
