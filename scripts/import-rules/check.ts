// The import checker: every module of each root against its layer table, the ways around `import`, and cycles.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Layers, areaIn, describeRule, layerProblem } from './areas.js';
import { findCycles } from './cycles.js';
import { type FoundImport, type Scan, scan } from './scan.js';

/** A folder checked against its own table. */
export interface Root {
  /** Absolute. */
  dir: string;
  /** How messages name it (`src`): a module is shown as `<name>/<path>`; without it, as its path in the root. */
  name?: string;
  layers: Layers;
  /** Modules outside the root it may import (absolute path → how messages name it), e.g. the bot's entry. */
  entries?: Readonly<Record<string, string>>;
  /** Packages it must not import (package name → why). */
  refused?: Readonly<Record<string, string>>;
}

export interface ImportEdge extends FoundImport {
  /** The module it resolves to (absolute path), for relative specifiers. */
  target?: string;
}

export type ProblemKind =
  'cycle' | 'layer' | 'package' | 'specifier' | 'unplaced' | 'require' | 'computed' | 'reference' | 'impure';

export interface Problem {
  kind: ProblemKind;
  /** The importing module, as messages name it. */
  file: string;
  line: number;
  /** One line: `<file>:<line>: …`. */
  message: string;
}

export interface CheckResult {
  modules: number;
  problems: Problem[];
}

interface Module {
  file: string;
  root: Root;
  /** Relative to the root, `/`-separated. */
  path: string;
  /** As messages name it. */
  name: string;
  found: Scan;
  edges: ImportEdge[];
}

const SOURCE = /\.(c|m)?(t|j)s$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return SOURCE.test(entry) && !/\.d\.(c|m)?ts$/.test(entry) ? [path] : [];
    });
}

/** `./x.js` → `x.ts` (NodeNext style), else the path as written, else its `index.ts`; the first when none exists. */
function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.(c|m)?js$/, (ext) => ext.replace('js', 'ts')), base, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? (candidates[0] as string);
}

function pathIn(dir: string, file: string): string {
  return relative(dir, file).split(sep).join('/');
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

function load(root: Root, file: string): Module {
  const path = pathIn(root.dir, file);
  const found = scan(readFileSync(file, 'utf8'), file);
  const edges = found.imports.map((edge) =>
    edge.specifier.startsWith('.') ? { ...edge, target: resolveRelative(file, edge.specifier) } : edge,
  );
  return { file, root, path, name: root.name ? `${root.name}/${path}` : path, found, edges };
}

function shownEdge(module: Module, edge: ImportEdge): string {
  const form = edge.form ?? (edge.kind === 'dynamic' ? 'import()' : edge.kind === 'type' ? 'import type' : 'import');
  return `${module.name}:${edge.line}: ${form} '${edge.specifier}'`;
}

/** What is wrong with a specifier the checker cannot resolve to a file or a package, if anything. */
function unplacedSpecifier(specifier: string): string | undefined {
  if (specifier.startsWith('#'))
    return 'is a package.json "imports" (#) specifier: this project does not use them, and the checker cannot place it';
  if (isAbsolute(specifier) || (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !specifier.startsWith('node:'))) {
    return 'cannot be placed by the checker: use a relative path or a package name';
  }
  return undefined;
}

/** The problem of one edge of a placed module, if any. */
function edgeProblem(module: Module, area: string, edge: ImportEdge): Omit<Problem, 'file' | 'line'> | undefined {
  const { root } = module;
  const shown = shownEdge(module, edge);
  const unplaced = unplacedSpecifier(edge.specifier);
  if (unplaced) return { kind: 'specifier', message: `${shown} ${unplaced}` };
  if (!edge.specifier.startsWith('.')) {
    const name = packageName(edge.specifier);
    const refused = root.refused?.[name];
    if (refused) return { kind: 'package', message: `${shown} is refused: ${refused}` };
    const allowed = root.layers[area]?.packages;
    if (allowed && !allowed.includes(name))
      return { kind: 'package', message: `${shown} breaks "${describeRule(root.layers, area)}"` };
    return undefined;
  }
  const target = edge.target ?? resolveRelative(module.file, edge.specifier);
  const path = pathIn(root.dir, target);
  if (path.startsWith('..') || isAbsolute(path)) {
    if (root.entries?.[target]) return undefined;
    const only = Object.values(root.entries ?? {});
    const rule = only.length > 0 ? `from outside it, only ${only.join(', ')}` : 'nothing outside it';
    return {
      kind: 'layer',
      message: `${shown} reaches outside ${root.name ?? 'the root'} (${path}): it may import ${rule}`,
    };
  }
  const targetArea = areaIn(root.layers, path) ?? path;
  const why = layerProblem(root.layers, area, edge.kind, targetArea);
  return why
    ? { kind: 'layer', message: `${shown} ${why} (${path}): breaks "${describeRule(root.layers, area)}"` }
    : undefined;
}

/** Every problem of one module but cycles. */
function moduleProblems(module: Module): Problem[] {
  const { root, name } = module;
  const at = (line: number, kind: ProblemKind, text: string): Problem => ({
    kind,
    file: name,
    line,
    message: `${name}:${line}: ${text}`,
  });
  const problems = module.found.escapes.map((e) => at(e.line, e.what, e.text));
  const area = areaIn(root.layers, module.path);
  if (area === undefined)
    return [at(1, 'unplaced', 'is in no area of the layer table (scripts/import-rules.ts)'), ...problems];
  if (root.layers[area]?.pure) {
    for (const use of module.found.impure) {
      problems.push(
        at(
          use.line,
          'impure',
          `${use.name} in ${area}, which is pure: it takes the clock, randomness and the environment as parameters`,
        ),
      );
    }
  }
  for (const edge of module.edges) {
    const problem = edgeProblem(module, area, edge);
    if (problem) problems.push({ ...problem, file: name, line: edge.line });
  }
  return problems;
}

function cycleProblems(modules: ReadonlyMap<string, Module>): Problem[] {
  const graph = new Map([...modules].map(([file, m]) => [file, m.edges]));
  const name = (file: string): string => modules.get(file)?.name ?? file;
  return findCycles(graph).map((cycle) => {
    const first = cycle[0] as string;
    const edgesTo = (from: string, to: string) => (graph.get(from) ?? []).filter((e) => e.target === to);
    const steps = cycle.slice(1).map((to, i) => {
      const dynamic = edgesTo(cycle[i] as string, to).every((e) => e.kind === 'dynamic');
      return `${dynamic ? ' → import() ' : ' → '}${name(to)}`;
    });
    const line = edgesTo(first, cycle[1] as string)[0]?.line ?? 1;
    return {
      kind: 'cycle',
      file: name(first),
      line,
      message: `${name(first)}:${line}: import cycle: ${name(first)}${steps.join('')}`,
    };
  });
}

/**
 * Checks every module under each root (`.ts`, `.mts`, `.cts`, and JavaScript too) against its root's table,
 * refuses the ways around `import` the checker cannot follow, and refuses import cycles, across the roots.
 */
export function checkImports(roots: readonly Root[]): CheckResult {
  const modules = new Map<string, Module>();
  for (const root of roots) for (const file of sourceFiles(root.dir)) modules.set(file, load(root, file));
  const seen = new Set<string>();
  const problems = [...[...modules.values()].flatMap(moduleProblems), ...cycleProblems(modules)].filter((p) => {
    const fresh = !seen.has(p.message);
    seen.add(p.message);
    return fresh;
  });
  return { modules: modules.size, problems };
}
