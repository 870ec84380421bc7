// `<NAME>_FILE` variables (docs/configuration.md#configuration): secrets read from mounted files, and how problems show
// values without secrets.
import { readFileSync } from 'node:fs';
import { redactUrl } from './redact.js';

/**
 * Variables whose value may come from a file instead, `<NAME>_FILE` (mounted Secrets, Vault/CSI): read once at
 * start, one trailing newline trimmed. Setting both forms is a config error.
 */
export const FILE_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'REDIS_URL',
  'AUDIT_WEBHOOK_SECRET',
  'RECORD_SIGNING_KEY',
] as const;

/**
 * The environment with every `<NAME>_FILE` read into `<NAME>`, and a problem per file that cannot be used.
 * `fromFile` names the variables that came from a file (their problems say so). Sync reads: config is read once.
 */
export function readFileVariables(given: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  problems: string[];
  fromFile: Set<string>;
} {
  const env = { ...given };
  const problems: string[] = [];
  const fromFile = new Set<string>();
  const set = (name: string) => (given[name] ?? '').trim() !== '';
  for (const name of FILE_VARIABLES) {
    const fileVar = `${name}_FILE`;
    if (!set(fileVar)) continue;
    const path = (given[fileVar] as string).trim();
    fromFile.add(name);
    if (set(name)) {
      problems.push(`${fileVar}: set ${name} or ${fileVar}, not both`);
      continue;
    }
    try {
      // One trailing newline (\n or \r\n), as `echo` and editors leave it; anything else is the value.
      env[name] = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'is a directory'
              : (code ?? 'unreadable');
      problems.push(`${fileVar}: cannot read ${JSON.stringify(path)} (${why})`);
      env[name] = undefined;
    }
  }
  return { env, problems, fromFile };
}

/** Values of these are never shown in a problem, not even redacted. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|SIGNING_KEY/;

export function describeIssue(
  name: string,
  message: string,
  env: Record<string, string | undefined>,
  fromFile: ReadonlySet<string>,
): string {
  const value = env[name];
  const source = fromFile.has(name) ? ` from ${name}_FILE` : '';
  // Shown on one line (JSON-quoted, so a stray newline is visible as \n) and with any URL's password replaced.
  const shown =
    value === undefined || SECRET_NAME.test(name)
      ? source
        ? ` (value${source})`
        : ''
      : ` (got ${JSON.stringify(clip(redactValue(value)))}${source})`;
  return `${name}: ${message}${shown}`;
}

/** URLs' passwords replaced, and so any `user:password@host` of a list written without a scheme. */
function redactValue(value: string): string {
  return value.includes('://') ? redactUrl(value) : value.replace(/[^\s,@]+@/g, '***@');
}

/** A value shown in a problem line stays short. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
