// docs/deployment.md#finding-the-slack-ids tells an installer which Web API methods find each id and whether
// manifest.yml already grants their scopes: every scope it says is granted is a bot scope of the manifest, every
// scope it says is not granted is absent from it, and its policy example is a valid policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '../../src/app/policy-load.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
const start = page.indexOf('## Finding the Slack ids');
const section = page.slice(start, page.indexOf('\n## ', start + 1));
const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as {
  oauth_config: { scopes: { bot: string[] } };
};
const botScopes = manifest.oauth_config.scopes.bot;

/** `(`a:b`, `c:d`: yes)` → the scopes the page says the manifest grants. */
const granted = [...section.matchAll(/\(((?:`[\w:.]+`(?:, )?)+): yes\)/g)].flatMap((m) =>
  [...(m[1] as string).matchAll(/`([\w:.]+)`/g)].map((s) => s[1] as string),
);
/** "needs `x:y`, which the manifest does not grant" → the scopes the page says it lacks. */
const notGranted = [...section.matchAll(/`([\w:.]+)`, which the manifest does not grant/g)].map((m) => m[1] as string);

describe('docs/deployment.md#finding-the-slack-ids', () => {
  it('names scopes both ways', () => {
    expect(start).toBeGreaterThan(0);
    expect(granted).toEqual(expect.arrayContaining(['users:read', 'channels:read', 'groups:read', 'usergroups:read']));
    expect(notGranted).toEqual(expect.arrayContaining(['users:read.email', 'team:read']));
  });

  it('says "granted" only of scopes manifest.yml grants the bot, and "not granted" only of scopes it does not', () => {
    expect(granted.filter((scope) => !botScopes.includes(scope))).toEqual([]);
    expect(notGranted.filter((scope) => botScopes.includes(scope))).toEqual([]);
  });

  it('shows the ids in a policy that check-policy accepts', () => {
    const yaml = /```yaml\n(groups:[\s\S]*?)```/.exec(section)?.[1];
    expect(yaml).toContain('<!subteam^S');
    const parsed = parsePolicyText(`version: 1\n${yaml as string}`);
    expect(parsed.ok ? [] : parsed).toEqual([]);
  });
});
