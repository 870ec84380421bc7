// README.md stays true: its generated blocks match the parser's schema and the example policy, its configuration
// table matches src/config.ts, its metrics table matches the registry, and every link, script and verb exists.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isVerb } from '../../src/domain/language/verbs.js';
import { createMetrics, METRIC_PREFIX } from '../../src/http/metrics.js';
import { BLOCKS, currentBlock } from '../../scripts/gen-command-reference.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** The text of one `## ` section, without its heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const rest = markdown.slice(start + heading.length + 5);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Table rows of a section as arrays of cells (header and separator dropped). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
}

/** Environment variables of src/config.ts with their zod default (undefined when there is none). */
function configVariables(): Map<string, string | undefined> {
  const source = read('src/config.ts');
  const schema = /const EnvSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(source)?.[1];
  if (!schema) throw new Error('src/config.ts: EnvSchema not found');
  const parts = schema.split(/^ {2}(?=[A-Z][A-Z0-9_]+:)/m).filter((p) => /^[A-Z]/.test(p));
  return new Map(
    parts.map((part) => {
      const name = /^([A-Z0-9_]+):/.exec(part)?.[1] ?? '';
      const fallback = /\.default\(\s*'?([^')]*)'?\s*\)/.exec(part)?.[1] ?? /duration\('[A-Z_]+', '([^']+)'\)/.exec(part)?.[1];
      return [name, fallback] as const;
    }),
  );
}

describe('generated blocks', () => {
  it.each(BLOCKS.map((b) => [b.name, b] as const))('%s is what `npm run docs:commands` renders', (_name, block) => {
    expect(currentBlock(readme, block.name), 'run `npm run docs:commands`').toBe(block.render());
  });

  it('the script that renders them is an npm script', () => {
    expect(pkg.scripts['docs:commands']).toBe('tsx scripts/gen-command-reference.ts');
  });
});

describe('configuration table', () => {
  const rows = tableRows(section(readme, 'Configuration'));
  const documented = new Map(rows.flatMap(([name = '', , fallback = '']) => [...name.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => [m[1] ?? '', fallback] as const)));
  const variables = configVariables();

  it('names every variable src/config.ts reads, and no other', () => {
    expect([...documented.keys()].sort()).toEqual([...variables.keys()].sort());
  });

  it.each([...variables].filter(([, fallback]) => fallback !== undefined))('%s shows its default %s', (name, fallback) => {
    expect(documented.get(name)).toContain(`\`${fallback ?? ''}\``);
  });
});

describe('the two commands', () => {
  const text = section(readme, 'The two commands');
  it('are `npm ci && npm start` and `npm test`, and both scripts exist', () => {
    expect(text).toContain('```sh\nnpm ci && npm start\n```');
    expect(text).toContain('```sh\nnpm test\n```');
    expect(pkg.scripts.start).toMatch(/src\/cli\/main\.ts sandbox$/);
    expect(pkg.scripts.test).toBeDefined();
  });
});

describe('references', () => {
  const documents = ['README.md', 'deploy/README.md'];

  it.each(documents)('%s links only to files that exist', (doc) => {
    const links = [...read(doc).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? '').filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !existsSync(join(ROOT, dirname(doc), link)))).toEqual([]);
  });

  it.each(documents)('%s names only npm scripts that exist', (doc) => {
    const scripts = [...read(doc).matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => m[1] ?? '');
    expect(scripts.filter((s) => !(s in pkg.scripts))).toEqual([]);
  });

  it('names only /flink verbs the parser knows', () => {
    const prose = readme.replace(currentBlock(readme, 'commands'), '');
    const verbs = [...prose.matchAll(/`\/flink ([a-z][a-z-]*)/g)].map((m) => m[1] ?? '');
    expect(verbs.length).toBeGreaterThan(0);
    expect(verbs.filter((v) => !isVerb(v))).toEqual([]);
  });

  it('lists exactly the flink_chatops metrics the registry exposes', () => {
    const registry = new Registry();
    createMetrics({ registry, defaultMetrics: false });
    const exposed = registry.getMetricsAsArray().map((m) => m.name);
    const documented = tableRows(section(readme, 'Health, metrics and logs')).flatMap(([name = '']) =>
      name.startsWith(`\`${METRIC_PREFIX}`) ? [name.replaceAll('`', '')] : [],
    );
    expect(documented.sort()).toEqual(exposed.sort());
  });
});
