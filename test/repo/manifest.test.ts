// manifest.yml: a valid Slack app manifest whose command is the default SLACK_COMMAND and whose bot scopes are
// exactly what the Web API methods called in src/ need — found by scanning the code, not by listing them here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_COMMAND, isVerb } from '../../src/domain/engines/language/verbs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest: unknown = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'));

const text = (min: number, max: number) => z.string().min(min).max(max);
const httpsUrl = text(1, 3000).regex(/^https?:\/\//);

/**
 * The part of Slack's manifest schema (v1) this app uses, with the limits Slack documents (name ≤ 35, command ≤ 32
 * and starting with `/`, usage hint ≤ 1000, …); `strict` rejects unknown keys as Slack does. The keys, events and
 * scopes themselves are checked against the SDK's type by manifest-sdk.test.ts.
 */
const ManifestSchema = z.strictObject({
  _metadata: z.strictObject({ major_version: z.literal(1), minor_version: z.number().int().optional() }).optional(),
  display_information: z.strictObject({
    name: text(1, 35),
    description: text(1, 140).optional(),
    background_color: z
      .string()
      .regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/)
      .optional(),
    long_description: text(175, 4000).optional(),
  }),
  features: z.strictObject({
    app_home: z
      .strictObject({
        home_tab_enabled: z.boolean().optional(),
        messages_tab_enabled: z.boolean().optional(),
        messages_tab_read_only_enabled: z.boolean().optional(),
      })
      .optional(),
    bot_user: z.strictObject({
      display_name: text(1, 80).regex(/^[a-z0-9._-]+$/, 'only a-z, 0-9, -, _ and .'),
      always_online: z.boolean().optional(),
    }),
    slash_commands: z
      .array(
        z.strictObject({
          command: text(2, 32).regex(/^\//, 'must start with /'),
          url: httpsUrl.optional(),
          description: text(1, 2000),
          usage_hint: text(1, 1000).optional(),
          should_escape: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(50),
  }),
  oauth_config: z.strictObject({ scopes: z.strictObject({ bot: z.array(text(1, 50)).min(1).max(255) }) }),
  settings: z.strictObject({
    event_subscriptions: z
      .strictObject({ request_url: httpsUrl.optional(), bot_events: z.array(text(1, 80)).max(100).optional() })
      .optional(),
    interactivity: z.strictObject({ is_enabled: z.boolean(), request_url: httpsUrl.optional() }),
    org_deploy_enabled: z.boolean().optional(),
    socket_mode_enabled: z.boolean().optional(),
    token_rotation_enabled: z.boolean().optional(),
  }),
});

/**
 * Bot scopes each Web API method needs. conversations.* read the thread of a card, which may be in a public or a
 * private channel, so both history scopes. A method missing here fails the test: add it with its scopes from
 * its page on docs.slack.dev ("Required scopes").
 */
const METHOD_SCOPES: Record<string, readonly string[]> = {
  'auth.test': [],
  'chat.getPermalink': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.delete': ['chat:write'],
  'conversations.replies': ['channels:history', 'groups:history'],
  'conversations.history': ['channels:history', 'groups:history'],
  'conversations.info': ['channels:read', 'groups:read'],
  'conversations.members': ['channels:read', 'groups:read'],
  // Only DMs with one person (approver DMs): im:write. Group DMs (mpim:write) and channels are never opened.
  'conversations.open': ['im:write'],
  'usergroups.users.list': ['usergroups:read'],
  'usergroups.list': ['usergroups:read'],
  'users.info': ['users:read'],
  'reactions.add': ['reactions:write'],
  'views.open': [],
  'views.publish': [],
};

const FAMILIES =
  'admin|apps|auth|bookmarks|bots|calls|chat|conversations|dnd|emoji|files|pins|reactions|reminders|search|team|usergroups|users|views';
/** `client.chat.postMessage(` and a method name as a quoted string (`apiCall('chat.update', …)`, `once('chat.update', …)`). */
const CALL_PATTERNS = [
  new RegExp(`\\bclient\\.(${FAMILIES})\\.([a-zA-Z]+(?:\\.[a-zA-Z]+)?)\\(`, 'g'),
  new RegExp(`['"](${FAMILIES})\\.([a-zA-Z]+(?:\\.[a-zA-Z]+)?)['"]`, 'g'),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Web API method → the files that call it, over src/ (the simulators live in packages/sim). */
function calledMethods(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const code = readFileSync(file, 'utf8');
    for (const pattern of CALL_PATTERNS) {
      for (const match of code.matchAll(pattern)) {
        const method = `${match[1]}.${match[2]}`;
        const files = found.get(method) ?? [];
        if (!files.includes(relative(ROOT, file))) found.set(method, [...files, relative(ROOT, file)]);
      }
    }
  }
  return found;
}

/** Why the schema refuses `value`, one `path: message` line per issue (empty: accepted). */
function problems(value: unknown): string[] {
  const parsed = ManifestSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
}

type Copy = Record<string, Record<string, unknown>>;
/** manifest.yml's content with one change. */
function broken(change: (copy: Copy) => void): unknown {
  const copy = structuredClone(manifest) as Copy;
  change(copy);
  return copy;
}
const command = (copy: Copy) => (copy.features?.slash_commands as Record<string, unknown>[])[0] ?? {};

describe('manifest.yml', () => {
  it('has the shape Slack accepts', () => {
    expect(problems(manifest)).toEqual([]);
  });

  it('would be refused, naming the key, past a limit Slack documents or with a key Slack does not know', () => {
    const cases: [string, (copy: Copy) => void, string][] = [
      ['name of 36', (m) => (m.display_information!.name = 'x'.repeat(36)), 'display_information.name: Too big'],
      [
        'command without /',
        (m) => (command(m).command = 'flink'),
        'features.slash_commands.0.command: must start with /',
      ],
      ['command of 33', (m) => (command(m).command = `/${'f'.repeat(32)}`), 'slash_commands.0.command: Too big'],
      ['usage hint of 1001', (m) => (command(m).usage_hint = 'h'.repeat(1001)), 'slash_commands.0.usage_hint: Too big'],
      [
        'unknown key',
        (m) => (command(m).shoud_escape = true),
        'features.slash_commands.0: Unrecognized key: "shoud_escape"',
      ],
      ['unknown section', (m) => (m.setings = {}), '(top): Unrecognized key: "setings"'],
      [
        'bad bot name',
        (m) => (m.features!.bot_user = { display_name: 'Flink Bot' }),
        'bot_user.display_name: only a-z',
      ],
    ];
    for (const [name, change, expected] of cases) {
      const found = problems(broken(change));
      expect(found, name).toHaveLength(1);
      expect(found[0], name).toContain(expected);
    }
  });

  it('declares the default SLACK_COMMAND, escaped, with a usage hint made of real verbs', () => {
    const loaded = loadConfig({}, 'worker');
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const { features } = ManifestSchema.parse(manifest);
    expect(features.slash_commands.map((c) => c.command)).toEqual([loaded.config.slack.command]);
    expect(loaded.config.slack.command).toBe(DEFAULT_COMMAND);
    const [command] = features.slash_commands;
    expect(command?.should_escape).toBe(true);
    const verbs = (command?.usage_hint ?? '').split('|').map((part) => part.trim().split(/\s+/)[0] ?? '');
    expect(verbs.filter((v) => !isVerb(v))).toEqual([]);
  });

  it('enables interactivity (the approval buttons) and says which transport it uses', () => {
    const { settings, features } = ManifestSchema.parse(manifest);
    expect(settings.interactivity.is_enabled).toBe(true);
    const httpUrls = [
      settings.interactivity.request_url,
      settings.event_subscriptions?.request_url,
      ...features.slash_commands.map((c) => c.url),
    ].filter(Boolean);
    // Socket Mode needs no URL (a stray one would confuse whoever switches); HTTP mode needs all three.
    const expected = settings.socket_mode_enabled ? 0 : 3;
    expect(httpUrls, `socket_mode_enabled: ${String(settings.socket_mode_enabled)}`).toHaveLength(expected);
  });

  it('enables the Home tab and subscribes app_home_opened, which the bot handles', () => {
    const { features, settings } = ManifestSchema.parse(manifest);
    expect(features.app_home?.home_tab_enabled).toBe(true);
    expect(settings.event_subscriptions?.bot_events).toContain('app_home_opened');
    const handled = readFileSync(join(ROOT, 'src', 'slack', 'home-handler.ts'), 'utf8');
    for (const event of settings.event_subscriptions?.bot_events ?? [])
      expect(handled).toContain(`app.event('${event}'`);
  });

  it('asks for exactly the bot scopes of the Web API methods the code calls', () => {
    const methods = calledMethods();
    expect(methods.size, 'no Web API call found in src/: the scan patterns are broken').toBeGreaterThan(0);
    const unknown = [...methods]
      .filter(([method]) => !(method in METHOD_SCOPES))
      .map(([m, files]) => `${m} (${files.join(', ')})`);
    expect(unknown, 'methods missing from METHOD_SCOPES').toEqual([]);

    const needed = new Set(['commands', ...[...methods.keys()].flatMap((m) => METHOD_SCOPES[m] ?? [])]);
    const declared = ManifestSchema.parse(manifest).oauth_config.scopes.bot;
    expect(new Set(declared).size, 'duplicate scopes').toBe(declared.length);
    expect([...declared].sort()).toEqual([...needed].sort());
  });
});
