// Fails when modules under src/ import each other in a cycle (value or type imports alike).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', 'src');
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function edges(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')));
}

const files = sourceFiles(ROOT);
const graph = new Map(files.map((f) => [f, edges(f)]));
const state = new Map<string, 'visiting' | 'done'>();
const cycles: string[][] = [];

function visit(file: string, stack: string[]): void {
  if (state.get(file) === 'done') return;
  if (state.get(file) === 'visiting') {
    cycles.push([...stack.slice(stack.indexOf(file)), file]);
    return;
  }
  state.set(file, 'visiting');
  for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...stack, file]);
  state.set(file, 'done');
}

for (const file of files) visit(file, []);
if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map((f) => relative(ROOT, f)).join(' → ')}`);
  process.exit(1);
}
console.log(`no import cycles in ${files.length} modules`);
