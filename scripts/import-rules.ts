// The import rule of src/ (docs/development.md "Import rule", DESIGN "layout and import rule"): the layer table, and the checker.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Who may import whom, by area: a folder or a file under src/, named without `.ts`; a module belongs to the
 * longest area that contains it, and may always import its own area. `may`: areas it imports freely. `types`:
 * areas it may name with `import type`/`export type` only. `lazy`: areas it may reach only through `import()`.
 * `packages`: when set, the only bare specifiers it may use (otherwise any).
 *
 * DESIGN's arrows ("may be imported by"): domain → config, log → adapters → app → {worker, notifier, slack} →
 * roles → cli. Adapters implement app ports, so they may name app types (erased at run time, so the run-time
 * graph still points one way). sandbox sits beside cli: it may use roles and cli/args, and only cli imports it.
 */
const UTIL = ['config', 'log'];
const ADAPTERS = ['store', 'kube', 'queue', 'http', 'slack-client'];
const APP = ['domain', ...UTIL, ...ADAPTERS, 'app', 'app/views'];
const BELOW_ROLES = [...APP, 'worker', 'notifier', 'slack', 'slack/blocks'];

interface AreaRule {
  may: readonly string[];
  types?: readonly string[];
  lazy?: readonly string[];
  packages?: readonly string[];
}

const ADAPTER: AreaRule = { may: ['domain', ...UTIL, ...ADAPTERS], types: ['app', 'app/views'] };

export const LAYERS: Readonly<Record<string, AreaRule>> = {
  domain: { may: [], packages: ['zod', 'node:crypto'] }, // pure
  config: { may: ['domain'] }, // leaf utilities, for every area but domain
  log: { may: [] },
  'cli/args': { may: [] }, // the argument parser cli and sandbox share
  store: ADAPTER,
  kube: ADAPTER,
  queue: ADAPTER,
  http: ADAPTER,
  'slack-client': ADAPTER, // the WebClient factory the notifier, the Bolt app and the bot role share
  'app/views': { may: ['domain'] }, // what answers show; slack/blocks renders them
  app: { may: APP },
  'slack/blocks': { may: ['domain', 'app/views'] },
  worker: { may: APP }, // the three runners are peers: none imports another
  notifier: { may: [...APP, 'slack/blocks'] },
  slack: { may: [...APP, 'slack/blocks'] },
  roles: { may: BELOW_ROLES },
  sandbox: { may: [...BELOW_ROLES, 'roles', 'cli/args'] },
  cli: { may: [...BELOW_ROLES, 'roles', 'cli/args'], lazy: ['sandbox'] },
};

export type ImportKind = 'static' | 'type' | 'dynamic';

export interface ImportEdge {
  /** As written in the source. */
  specifier: string;
  kind: ImportKind;
  /** The module it resolves to (absolute path), for relative specifiers. */
  target?: string;
}

export interface Problem {
  kind: 'cycle' | 'layer' | 'package' | 'unplaced';
  /** The importing module, relative to the root. */
  file: string;
  message: string;
}

export interface CheckResult {
  modules: number;
  problems: Problem[];
}

/**
 * Every import of `source`: static, `export … from`, type-only, and `import()` (also in type positions). Only a
 * whole declaration marked `type` is type-only: under verbatimModuleSyntax `import { type A }` still loads the
 * module. An `import()` of a computed specifier cannot be checked and is skipped.
 */
export function importsOf(source: string, fileName = 'module.ts'): { specifier: string; kind: ImportKind }[] {
  const found: { specifier: string; kind: ImportKind }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.importClause?.isTypeOnly ? 'type' : 'static' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'type' : 'static' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, kind: 'dynamic' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'type' });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return /\.(c|m)?ts$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
    });
}

/** A module's path relative to the root, `/`-separated. */
function nameOf(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}

/** `./x.js` → `x.ts` (NodeNext style), else the path as written, else its `index.ts`; the first when none exists. */
function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.(c|m)?js$/, (ext) => ext.replace('js', 'ts')), base, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? (candidates[0] as string);
}

/** The area of a module (path relative to the root, `/`-separated): the longest table key that contains it. */
export function areaOf(path: string): string | undefined {
  const bare = path.replace(/\.(c|m)?ts$/, '');
  return Object.keys(LAYERS)
    .filter((area) => bare === area || bare.startsWith(`${area}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** The rule of an area in words, for messages. */
export function describeRule(area: string): string {
  const rule = LAYERS[area] as AreaRule;
  const parts = [`${area} may import ${[...new Set([area, ...rule.may])].join(', ')}`];
  if (rule.types) parts.push(`types only from ${rule.types.join(', ')}`);
  if (rule.lazy) parts.push(`${rule.lazy.join(', ')} only through import()`);
  if (rule.packages) parts.push(`and of packages only ${rule.packages.join(', ')}`);
  return parts.join('; ');
}

/** Why `edge` from a module of `area` breaks the table, or undefined when it is allowed. */
function layerProblem(area: string, edge: ImportEdge, targetArea: string): string | undefined {
  const rule = LAYERS[area] as AreaRule;
  if (targetArea === area || rule.may.includes(targetArea)) return undefined;
  if (rule.types?.includes(targetArea)) return edge.kind === 'type' ? undefined : `must be \`import type\``;
  if (rule.lazy?.includes(targetArea)) return edge.kind === 'dynamic' ? undefined : `must be a lazy import()`;
  return `reaches ${targetArea}`;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

function checkEdges(root: string, file: string, edges: readonly ImportEdge[]): Problem[] {
  const name = nameOf(root, file);
  const area = areaOf(name);
  if (area === undefined) return [{ kind: 'unplaced', file: name, message: `${name} is in no area of the layer table (scripts/import-rules.ts)` }];
  const rule = LAYERS[area] as AreaRule;
  const problems: Problem[] = [];
  for (const edge of edges) {
    const shown = `${name}: ${edge.kind === 'dynamic' ? 'import()' : edge.kind === 'type' ? 'import type' : 'import'} '${edge.specifier}'`;
    if (!edge.specifier.startsWith('.')) {
      if (rule.packages && !rule.packages.includes(packageName(edge.specifier))) {
        problems.push({ kind: 'package', file: name, message: `${shown} breaks "${describeRule(area)}"` });
      }
      continue;
    }
    const target = nameOf(root, edge.target ?? resolveRelative(file, edge.specifier));
    const targetArea = target.startsWith('..') ? 'outside the root' : (areaOf(target) ?? target);
    const why = layerProblem(area, edge, targetArea);
    if (why) problems.push({ kind: 'layer', file: name, message: `${shown} ${why} (${target}): breaks "${describeRule(area)}"` });
  }
  return problems;
}

/** One cycle per strongly connected group of modules (Tarjan), as a path that starts and ends on the same module. */
export function findCycles(graph: ReadonlyMap<string, readonly ImportEdge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const next = (file: string): string[] => (graph.get(file) ?? []).flatMap((e) => (e.target && graph.has(e.target) ? [e.target] : []));
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const to of next(file)) {
      if (!index.has(to)) connect(to);
      if (stack.includes(to)) low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1 || next(file).includes(file)) groups.push(group);
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return groups.map((group) => shortestLoop(group[0] as string, new Set(group), next));
}

/** The shortest path from `start` back to itself inside `group` (breadth first). */
function shortestLoop(start: string, group: ReadonlySet<string>, next: (file: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i] as string;
    for (const to of next(file)) {
      if (!group.has(to) || cameFrom.has(to)) continue;
      cameFrom.set(to, file);
      if (to === start) {
        const path: string[] = [];
        for (let at = file; at !== start; at = cameFrom.get(at) as string) path.unshift(at);
        return [start, ...path, start];
      }
      queue.push(to);
    }
  }
  return [start, start];
}

/** Checks every module under `root` (the src/ folder) against the layer table and for import cycles. */
export function checkImports(root: string): CheckResult {
  const files = sourceFiles(root);
  const graph = new Map<string, ImportEdge[]>(
    files.map((file) => [
      file,
      importsOf(readFileSync(file, 'utf8'), file).map((edge) =>
        edge.specifier.startsWith('.') ? { ...edge, target: resolveRelative(file, edge.specifier) } : edge,
      ),
    ]),
  );
  const problems = files.flatMap((file) => checkEdges(root, file, graph.get(file) ?? []));
  const name = (file: string): string => nameOf(root, file);
  for (const cycle of findCycles(graph)) {
    const steps = cycle.slice(1).map((to, i) => {
      const from = cycle[i] as string;
      const dynamic = (graph.get(from) ?? []).every((e) => e.target !== to || e.kind === 'dynamic');
      return `${dynamic ? ' → import() ' : ' → '}${name(to)}`;
    });
    problems.push({ kind: 'cycle', file: name(cycle[0] as string), message: `import cycle: ${name(cycle[0] as string)}${steps.join('')}` });
  }
  return { modules: files.length, problems };
}
