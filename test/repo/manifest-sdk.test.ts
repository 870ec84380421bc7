// manifest.yml type-checked against the manifest type of Slack's own SDK (@slack/web-api), by the TypeScript compiler
// with the options of `npm run typecheck`. tsc cannot read YAML, so typecheck alone never sees manifest.yml: this test
// turns its content into a TypeScript source (`<the manifest as a literal> satisfies SlackManifest`) and compiles
// it in memory. A misspelt key, event or scope is then a compiler diagnostic naming it, as the broken copies show.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = join(ROOT, 'test', 'repo');

type Loose = Record<string, unknown>;
const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as Loose;

/** The options `npm run typecheck` compiles with (tsconfig.json), so this check is no laxer than it. */
function projectOptions(): ts.CompilerOptions {
  const file = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  if (file.error) throw new Error(ts.flattenDiagnosticMessageText(file.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(file.config, ts.sys, ROOT).options;
}

/** `value` (parsed YAML: objects, arrays, scalars) as a TypeScript literal, keys bare where they may be. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  return `{ ${Object.entries(value)
    .map(([k, v]) => `${key(k)}: ${literal(v)}`)
    .join(', ')} }`;
}

/** A module asserting that `value` satisfies the SDK's exact manifest type. */
const sourceOf = (value: unknown) =>
  `import type { SlackManifest } from './manifest-type.js';\n` +
  `export const manifest = ${literal(value)} satisfies SlackManifest;\n`;

/**
 * Compiles each manifest as an in-memory file beside test/repo/manifest-type.ts (one program for all) and returns,
 * by name, the compiler's messages about it; the program's global and option problems go under `*`.
 */
function typeErrors(manifests: Record<string, unknown>): Record<string, string[]> {
  const options = projectOptions();
  const files = new Map(Object.keys(manifests).map((name) => [join(HERE, `.manifest-check-${name}.ts`), name]));
  const texts = new Map([...files].map(([path, name]) => [path, sourceOf(manifests[name])]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (path, language, ...rest) => {
    const text = texts.get(path);
    return text === undefined ? getSourceFile(path, language, ...rest) : ts.createSourceFile(path, text, language);
  };
  host.fileExists = (path) => texts.has(path) || fileExists(path);
  host.readFile = (path) => texts.get(path) ?? readFile(path);
  const program = ts.createProgram([...files.keys()], options, host);
  const message = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const found: Record<string, string[]> = {
    '*': [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(message),
  };
  for (const [path, name] of files) {
    const file = program.getSourceFile(path);
    found[name] = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(message);
  }
  return found;
}

/** A copy of manifest.yml's content with one change. */
function broken(change: (copy: Loose & { [key: string]: Loose }) => void): Loose {
  const copy = structuredClone(manifest) as Loose & { [key: string]: Loose };
  change(copy);
  return copy;
}

const firstCommand = (m: { [key: string]: Loose }) => (m.features?.slash_commands as Loose[])[0] as Loose;
const scopes = (m: { [key: string]: Loose }) => (m.oauth_config?.scopes as { bot: string[] }).bot;
const botEvents = (m: { [key: string]: Loose }) =>
  (m.settings?.event_subscriptions as { bot_events: string[] }).bot_events;

describe('manifest.yml against the Slack SDK’s manifest type', () => {
  // One compilation for every case: loading the SDK's and Node's declarations is most of the time.
  const results = typeErrors({
    real: manifest,
    section: broken((m) => {
      m.setings = m.settings as Loose;
      delete m.settings;
    }),
    key: broken((m) => {
      const command = firstCommand(m);
      command.shoud_escape = command.should_escape;
      delete command.should_escape;
    }),
    event: broken((m) => botEvents(m).splice(0, 1, 'app_home_openned')),
    scope: broken((m) => scopes(m).splice(scopes(m).indexOf('chat:write'), 1, 'chat:wrte')),
    type: broken((m) => (firstCommand(m).should_escape = 'yes')),
  });

  it('compiles with no error: every key, event and scope is one the SDK knows', () => {
    expect(results['*']).toEqual([]);
    expect(results.real).toEqual([]);
  });

  it('would refuse a misspelt top-level section (the SDK type alone allows any; ours is closed)', () => {
    expect(results.section?.join('\n')).toContain("'setings' does not exist");
  });

  it('would refuse a misspelt key inside a section', () => {
    expect(results.key?.join('\n')).toContain("'shoud_escape' does not exist in type 'ManifestSlashCommand'");
  });

  it('would refuse a misspelt event and a misspelt scope', () => {
    expect(results.event?.join('\n')).toContain(`'"app_home_openned"' is not assignable to type 'ManifestEvent'`);
    expect(results.scope?.join('\n')).toContain(`'"chat:wrte"' is not assignable to type 'BotScope'`);
  });

  it('would refuse a value of the wrong type', () => {
    expect(results.type?.join('\n')).toContain("Type 'string' is not assignable to type 'boolean | undefined'");
  });
});
