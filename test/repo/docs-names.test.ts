// The pages name only what exists (docs/development.md#layout-and-conventions): every `/flink <verb>` is a verb of the
// command table, every `flink-chatops <subcommand>` a subcommand of the CLI, every UPPER_SNAKE name in backticks a
// variable the config reads (or a state, a code constant, or one of the few external names below), and every
// `flink_chatops_*` metric one the registry registers. A failure names the page, the line and the unknown name.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Histogram, Registry, Summary } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { EnvSchema } from '../../src/config.js';
import { verbFamily, verbNamed } from '../../src/domain/engines/language/verbs.js';
import { OPERATION_STATES } from '../../src/domain/model/lifecycle.js';
import { createMetrics, METRIC_PREFIX } from '../../src/http/metrics.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  'deploy/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * UPPER_SNAKE names the pages may write in backticks that are no variable of ours: other tools' settings. Keep it
 * short; a name of our own belongs in src/config.ts instead.
 */
const EXTERNAL_NAMES = new Set([
  // The Flink Kubernetes operator's placeholder savepoint path for a last-state upgrade (docs/deep-verification.md).
  'KUBERNETES_OPERATOR_LAST_STATE',
]);

interface Known {
  /** Whether `/flink <first> [<second>]` names a command. */
  command(first: string, second: string | undefined): boolean;
  /** Whether a word starts two-word verbs (`gitops` of `gitops resume`), so the next word is part of the name. */
  family(word: string): boolean;
  /** CLI subcommand → its own subcommands (empty when its next word is an argument). */
  cli: ReadonlyMap<string, ReadonlySet<string>>;
  variables: ReadonlySet<string>;
  /** UPPER_SNAKE names that are no variable: states, code constants, the image's build arguments, EXTERNAL_NAMES. */
  notVariables: ReadonlySet<string>;
  metrics: ReadonlySet<string>;
}

const SLASH_COMMAND = /(?<![\w./-])\/flink ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g;
/** The CLI where the text runs it: after `npx `, a backtick, or at the start of a (code block) line. */
const CLI_COMMAND = /(?:^\s*(?:\$ )?|`|\bnpx )flink-chatops ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g;
const INLINE_CODE = /`([^`]+)`/g;
const UPPER_SNAKE = /(?<![\w.$-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w.(])/g;
const METRIC = new RegExp(`\\b${METRIC_PREFIX}\\w+`, 'g');

/**
 * Names with our prefix that a fenced YAML block of the page declares as a key or lists as `inputs:` — a log
 * pipeline's stages (docs/audit.md#on-stdout), no metrics.
 */
function pipelineNames(text: string): Set<string> {
  const names = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (fenced && /^\s*(?:\w+:|inputs:)/.test(line)) {
      const key = /^\s*(\w+):/.exec(line)?.[1] ?? '';
      const inputs = /^\s*inputs: \[([^\]]*)\]/.exec(line)?.[1] ?? '';
      for (const name of [key, ...inputs.split(',').map((n) => n.trim())])
        if (name.startsWith(METRIC_PREFIX)) names.add(name);
    }
  }
  return names;
}

/** Every unknown name on a page, as `<page>:<line>: <what> <name>`. */
function unknownNames(page: string, text: string, known: Known): string[] {
  const found: string[] = [];
  const pipeline = pipelineNames(text);
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    const at = `${page}:${index + 1}`;
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    for (const [, first = '', second] of line.matchAll(SLASH_COMMAND)) {
      const name = known.family(first) && second !== undefined ? `${first} ${second}` : first;
      if (!known.command(first, second)) found.push(`${at}: no such command \`/flink ${name}\``);
    }
    for (const [, sub = '', next] of line.matchAll(CLI_COMMAND)) {
      const subs = known.cli.get(sub);
      if (!subs) found.push(`${at}: no such CLI subcommand \`flink-chatops ${sub}\``);
      else if (subs.size > 0 && next !== undefined && !subs.has(next))
        found.push(`${at}: no such CLI subcommand \`flink-chatops ${sub} ${next}\``);
    }
    // Variables in inline code only: fenced blocks hold code and YAML whose constants are no settings.
    if (!fenced)
      for (const [, code = ''] of line.matchAll(INLINE_CODE))
        for (const [name] of code.matchAll(UPPER_SNAKE))
          if (!known.variables.has(name) && !known.notVariables.has(name))
            found.push(`${at}: no such environment variable \`${name}\``);
    for (const [name] of line.matchAll(METRIC))
      if (!known.metrics.has(name) && !pipeline.has(name)) found.push(`${at}: no such metric \`${name}\``);
  });
  return found;
}

/** The CLI's subcommands, from its dispatch table and development-only list in src/cli/main.ts. */
function cliSubcommands(): Map<string, Set<string>> {
  const source = read('src/cli/main.ts');
  const table = /const SUBCOMMANDS\b[^\n]*\{\n([\s\S]*?)\n\};/.exec(source)?.[1] ?? '';
  const names = [...table.matchAll(/^ {2}'?([a-z][a-z-]*)'?:/gm)].map((m) => m[1] ?? '');
  const development = /const DEVELOPMENT_ONLY = \[([^\]]*)\]/.exec(source)?.[1] ?? '';
  names.push(...[...development.matchAll(/'([a-z][a-z-]*)'/g)].map((m) => m[1] ?? ''), 'help');
  const cli = new Map(names.map((name) => [name, new Set<string>()]));
  // `audit` has subcommands of its own, named in its usage text.
  const audit = [...read('src/cli/audit.ts').matchAll(/flink-chatops audit ([a-z][a-z-]*)/g)].map((m) => m[1] ?? '');
  cli.set('audit', new Set(audit));
  return cli;
}

/** Every `const`, `function`, `class` or `enum` named in UPPER_SNAKE in the sources: docs about the code name them. */
function codeConstants(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts'))
        for (const m of read(path).matchAll(/\b(?:const|let|function|class|enum) ([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g))
          names.add(m[1] ?? '');
    }
  };
  ['src', 'packages/sim/src'].forEach(walk);
  return names;
}

/** The variables the test harness and the benchmarks read (`process.env.NAME` under test/support and bench). */
function harnessVariables(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['test/support', 'bench'])
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true }))
      if (entry.isFile() && entry.name.endsWith('.ts'))
        for (const m of read(`${dir}/${entry.name}`).matchAll(/\bprocess\.env\.([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g))
          names.add(m[1] ?? '');
  return names;
}

/** The build arguments of the image (`--build-arg NAME=…`), from deploy/Dockerfile. */
function buildArguments(): string[] {
  return [...read('deploy/Dockerfile').matchAll(/^ARG ([A-Z][A-Z0-9_]*)/gm)].map((m) => m[1] ?? '');
}

/** The names the registry registers, with the series names a histogram or summary adds. */
function registeredMetrics(): Set<string> {
  const registry = new Registry();
  createMetrics({ registry, defaultMetrics: false });
  return new Set(
    registry.getMetricsAsArray().flatMap((metric) => {
      const { name } = metric as unknown as { name: string };
      if (metric instanceof Histogram) return [name, `${name}_bucket`, `${name}_sum`, `${name}_count`];
      if (metric instanceof Summary) return [name, `${name}_sum`, `${name}_count`];
      return [name];
    }),
  );
}

const KNOWN: Known = {
  command: (first, second) => verbNamed(first, second) !== undefined,
  family: (word) => verbFamily(word) !== undefined,
  cli: cliSubcommands(),
  variables: new Set([...Object.keys(EnvSchema.shape), ...harnessVariables()]),
  notVariables: new Set([...OPERATION_STATES, ...codeConstants(), ...buildArguments(), ...EXTERNAL_NAMES]),
  metrics: registeredMetrics(),
};

describe('the names the checker knows', () => {
  it('are read from the code: verbs, CLI subcommands, config variables and registered metrics', () => {
    expect(KNOWN.command('scale', undefined)).toBe(true);
    expect(KNOWN.command('gitops', 'resume')).toBe(true);
    expect(KNOWN.command('gitops', undefined)).toBe(false);
    expect([...KNOWN.cli.keys()]).toEqual(expect.arrayContaining(['serve', 'check-policy', 'audit', 'sandbox']));
    expect([...(KNOWN.cli.get('audit') ?? [])].sort()).toEqual(['export', 'verify']);
    expect(KNOWN.variables).toContain('LEASE_TTL');
    expect(KNOWN.variables).toContain('SIM_OPERATOR_VERSION');
    expect(KNOWN.metrics).toContain(`${METRIC_PREFIX}ack_latency_seconds_bucket`);
    expect(KNOWN.metrics).toContain(`${METRIC_PREFIX}operations_finished_total`);
  });

  it('call a CLI subcommand unknown exactly when the CLI does', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['made-up-subcommand'])).toBe(1);
    expect(String(stderr.mock.calls.at(-1)?.[0])).toContain('unknown subcommand "made-up-subcommand"');
    for (const development of ['sandbox', 'sim-cluster']) {
      expect(KNOWN.cli.has(development)).toBe(true);
      expect(await main([development])).toBe(1);
      expect(String(stderr.mock.calls.at(-1)?.[0])).toContain('is a development tool');
    }
  });
});

describe('the checker', () => {
  it('passes a page that names only what exists', () => {
    const page = [
      'Run `/flink scale analytics/clickstream 12` or `/flink gitops resume orders`; `/flink <verb>` is the form.',
      'Validate with `npx flink-chatops check-policy policy.yaml`, export with `flink-chatops audit export`.',
      'Set `LEASE_TTL=30s` and `HTTPS_PROXY`; the card says `State: AWAITING_APPROVAL`, see `OPERATION_FLAGS`.',
      'Watch `flink_chatops_operations_stuck` and `rate(flink_chatops_ack_latency_seconds_bucket[5m])`.',
      '```yaml',
      'env: `NOT_CHECKED_IN_A_FENCE`',
      'flink_chatops_json:',
      '  inputs: [flink_chatops_pods]',
      '```',
      'After `flink_chatops_json`; the namespace: `kubectl -n flink-chatops get pods`.',
      'Build with `--build-arg NODE_IMAGE=node:24-bookworm-slim`.',
    ].join('\n');
    expect(unknownNames('ok.md', page, KNOWN)).toEqual([]);
  });

  it('fails a page with made-up names, naming the page, the line and each name', () => {
    const page = [
      'intro',
      'Run `/flink frobnicate orders` and `/flink gitops pause orders`.',
      'Then `npx flink-chatops migrate` and `flink-chatops audit purge`.',
      'Set `MADE_UP_TTL=5m` and `FLINK_CHATOPS_COLOUR`.',
      'Alert on `flink_chatops_made_up_total`.',
      '```',
      'expr: sum(flink_chatops_also_made_up) > 0',
      '```',
    ].join('\n');
    expect(unknownNames('made-up.md', page, KNOWN)).toEqual([
      'made-up.md:2: no such command `/flink frobnicate`',
      'made-up.md:2: no such command `/flink gitops pause`',
      'made-up.md:3: no such CLI subcommand `flink-chatops migrate`',
      'made-up.md:3: no such CLI subcommand `flink-chatops audit purge`',
      'made-up.md:4: no such environment variable `MADE_UP_TTL`',
      'made-up.md:4: no such environment variable `FLINK_CHATOPS_COLOUR`',
      'made-up.md:5: no such metric `flink_chatops_made_up_total`',
      'made-up.md:7: no such metric `flink_chatops_also_made_up`',
    ]);
  });
});

describe('the pages', () => {
  it('are README.md, deploy/README.md and every docs/*.md', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/operating.md', 'docs/commands.md']));
  });

  it('are read for every kind of name: a checker that knows none finds each kind on them', () => {
    const none: Known = {
      command: () => false,
      family: () => false,
      cli: new Map(),
      variables: new Set(),
      notVariables: new Set(),
      metrics: new Set(),
    };
    const report = PAGES.flatMap((page) => unknownNames(page, read(page), none)).join('\n');
    for (const kind of [
      'command `/flink scale',
      'CLI subcommand `flink-chatops check-policy',
      'environment variable `LEASE_TTL',
    ])
      expect(report).toContain(`no such ${kind}`);
    expect(report).toContain(`no such metric \`${METRIC_PREFIX}operations_stuck\``);
  });

  it.each(PAGES)('%s names only commands, CLI subcommands, variables and metrics that exist', (page) => {
    expect(unknownNames(page, read(page), KNOWN)).toEqual([]);
  });
});
