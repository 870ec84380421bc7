// README.md and docs/ stay true: the generated blocks match the parser's schema and the example policy, the
// configuration table matches src/config.ts, the metrics table the registry, every config variable and policy key
// (read from both schemas) is documented, every page is linked from the README, and every link, script and verb exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { EnvSchema } from '../../src/config.js';
import { verbNamed } from '../../src/domain/engines/language/verbs.js';
import { PolicySchema } from '../../src/domain/engines/policy/schema.js';
import { createMetrics, METRIC_PREFIX } from '../../src/http/metrics.js';
import { BLOCKS, currentBlock } from '../../scripts/gen-command-reference.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const docsText = DOCS.map(read).join('\n');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** The text of one `## ` section, without its heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
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
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
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
      const fallback =
        /\.default\(\s*'?([^')]*)'?\s*\)/.exec(part)?.[1] ?? /duration\('[A-Z_]+', '([^']+)'\)/.exec(part)?.[1];
      // `.default(DEFAULT_CLUSTER)`: the value of that module constant.
      const constant =
        fallback && /^[A-Z][A-Z0-9_]*$/.test(fallback)
          ? new RegExp(`const ${fallback} = '([^']*)'`).exec(source)?.[1]
          : undefined;
      return [name, constant ?? fallback] as const;
    }),
  );
}

/** Every object key a zod schema accepts, as dotted paths (arrays and records add no segment). */
function schemaKeys(schema: z.ZodType, path = ''): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  const inner = (key: string) => schemaKeys(def[key] as z.ZodType, path);
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, value]) => {
        const here = path ? `${path}.${key}` : key;
        return [here, ...schemaKeys(value, here)];
      });
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return inner('innerType');
    case 'array':
      return inner('element');
    case 'record':
      return inner('valueType');
    case 'pipe':
      return inner('in');
    case 'union':
      return (def.options as z.ZodType[]).flatMap((o) => schemaKeys(o, path));
    case 'intersection':
      return [...inner('left'), ...inner('right')];
    case 'lazy':
      return schemaKeys((def.getter as () => z.ZodType)(), path);
    default:
      return [];
  }
}

describe('generated blocks', () => {
  it.each(BLOCKS.map((b) => [b.name, b] as const))('%s is what `npm run docs:commands` renders', (_name, block) => {
    expect(currentBlock(read(block.file), block.name), 'run `npm run docs:commands`').toBe(block.render());
  });

  it('live in docs/', () => {
    expect(BLOCKS.map((b) => b.file)).toEqual(['docs/commands.md', 'docs/policy.md']);
  });

  it('the script that renders them is an npm script', () => {
    expect(pkg.scripts['docs:commands']).toBe('tsx scripts/gen-command-reference.ts');
  });
});

describe('configuration table', () => {
  const rows = tableRows(`\n${read('docs/configuration.md')}`);
  const documented = new Map(
    rows.flatMap(([name = '', , fallback = '']) =>
      [...name.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => [m[1] ?? '', fallback] as const),
    ),
  );
  const variables = configVariables();

  it('names every variable src/config.ts reads, and no other', () => {
    expect([...documented.keys()].sort()).toEqual([...variables.keys()].sort());
  });

  it('documents every variable the config schema reads (EnvSchema.shape)', () => {
    const keys = Object.keys(EnvSchema.shape);
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => !documented.has(k))).toEqual([]);
  });

  it.each([...variables].filter(([, fallback]) => fallback !== undefined))(
    '%s shows its default %s',
    (name, fallback) => {
      expect(documented.get(name)).toContain(`\`${fallback ?? ''}\``);
    },
  );
});

describe('the two commands', () => {
  const text = section(readme, 'The two commands');
  it('are `npm ci && npm start` and `npm test`, and both scripts exist', () => {
    expect(text).toContain('```sh\nnpm ci && npm start\n```');
    expect(text).toContain('```sh\nnpm test\n```');
    expect(pkg.scripts.start).toMatch(/packages\/sim\/src\/cli\.ts sandbox$/);
    expect(pkg.scripts.test).toBeDefined();
  });
});

describe('policy keys', () => {
  const keys = schemaKeys(PolicySchema as unknown as z.ZodType);

  it('are read from the policy schema (nested ones included)', () => {
    for (const key of ['groups', 'rules.when.schedule.timezone', 'approval.ttl', 'namespaces.requesters'])
      expect(keys).toContain(key);
  });

  it('every key the policy schema accepts appears in docs/', () => {
    const leaf = (path: string) => path.split('.').at(-1) ?? path;
    expect(keys.filter((path) => !new RegExp(`\\b${leaf(path)}\\b`).test(docsText))).toEqual([]);
  });
});

describe('the landing page', () => {
  it.each(DOCS)('links %s', (doc) => {
    expect(readme).toContain(`](${doc})`);
  });

  it('stays a landing page: what it is, try it, the two commands, how it works, where to read on', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const h of ['Try it', 'How it works', 'The two commands', 'Where to read on']) expect(headings).toContain(h);
    expect(readme.split('\n').length).toBeLessThan(250);
  });
});

describe('references', () => {
  const documents = ['README.md', 'deploy/README.md', ...DOCS];

  it.each(documents)('%s links only to files that exist', (doc) => {
    const links = [...read(doc).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1] ?? '')
      .filter((l) => !/^[a-z]+:/.test(l));
    if (!doc.startsWith('docs/')) expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !existsSync(join(ROOT, dirname(doc), link)))).toEqual([]);
  });

  it.each(documents)('%s names only npm scripts that exist', (doc) => {
    const scripts = [...read(doc).matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => m[1] ?? '');
    expect(scripts.filter((s) => !(s in pkg.scripts))).toEqual([]);
  });

  it('names only /flink verbs the parser knows', () => {
    const commands = read('docs/commands.md');
    const prose = [readme, ...DOCS.map(read)].join('\n').replace(currentBlock(commands, 'commands'), '');
    // Two-word verbs (`/flink gitops resume`) are named by their first two words.
    const named = [...prose.matchAll(/`\/flink ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((m) => verbNamed(m[1] ?? '', m[2]) === undefined).map((m) => m[0])).toEqual([]);
  });

  it('lists exactly the flink_chatops metrics the registry exposes', () => {
    const registry = new Registry();
    createMetrics({ registry, defaultMetrics: false });
    const exposed = registry.getMetricsAsArray().map((m) => m.name);
    const documented = tableRows(section(read('docs/operating.md'), 'Health, metrics and logs')).flatMap(
      ([name = '']) => (name.startsWith(`\`${METRIC_PREFIX}`) ? [name.replaceAll('`', '')] : []),
    );
    expect(documented.sort()).toEqual(exposed.sort());
  });
});
