// Masking of pod log lines before anyone sees them (docs/commands.md#flink-logs): a line matching one of the policy's
// `logs.redact` patterns is replaced whole, and anything that looks like a secret — the values of password, secret,
// token and key settings, Slack tokens, AWS access key ids, bearer and basic credentials, JWTs, passwords in URLs — is
// replaced by `•••`. Pure: the patterns arrive compiled (kit/policy/logs.ts).

export const MASK = '•••';
/** What a line matching `logs.redact` is replaced with. */
export const REDACTED_LINE = `${MASK} (line redacted by the policy's logs.redact)`;

/** A setting's name that says its value is secret (`s3.secret-key`, `keyStorePassword`, `api_token`, `auth.key`). */
const SENSITIVE_NAME = String.raw`[\w.\-]*(?:password|passwd|pwd|secret|token|credential|key)[\w.\-]*`;
const SENSITIVE_END = String.raw`[\w.\-]*(?:password|passwd|pwd|secret|token|credentials?|key)`;
/** A value: quoted, or up to whitespace and the separators of query strings and lists. */
const VALUE = String.raw`(?:"[^"]*"|'[^']*'|[^\s&;,"'<>]+)`;

/** [pattern, replacement]; applied in order, each on what the earlier ones left. */
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  // `name=value` (properties, query strings, JVM flags).
  [new RegExp(String.raw`(\b${SENSITIVE_NAME}\s*=\s*)${VALUE}`, 'giu'), `$1${MASK}`],
  // `name: value` where the name ends in the word (`password: …`, `s3.secret-key: …`): not `TokenExpiredException: …`.
  [new RegExp(String.raw`(\b${SENSITIVE_END}\s*:\s*)${VALUE}`, 'giu'), `$1${MASK}`],
  // Flink's `Loading configuration property: name, value`.
  [new RegExp(String.raw`(configuration property:\s*${SENSITIVE_NAME},\s*)\S+`, 'giu'), `$1${MASK}`],
  // `Authorization: Bearer …`, `Basic …`.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/giu, `$1$2${MASK}`],
  // Slack tokens (bot, user, app-level, refresh, config).
  [/\bxox[abposre]-[A-Za-z0-9-]{6,}/giu, MASK],
  [/\bxapp-[A-Za-z0-9-]{6,}/giu, MASK],
  // AWS access key ids (long-term and temporary).
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/gu, MASK],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/gu, MASK],
  // Passwords in URLs: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/giu, `$1${MASK}@`],
];

/** One line with every secret-looking value replaced by `•••`. */
export function maskSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A log line as it may be shown: redacted whole when a policy pattern matches it, else with its secrets masked. */
export function maskLine(line: string, redact: readonly RegExp[]): string {
  for (const pattern of redact) {
    pattern.lastIndex = 0;
    if (pattern.test(line)) return REDACTED_LINE;
  }
  return maskSecrets(line);
}

/**
 * The lines to show: masked, then kept when they contain `grep` (plain text, case-insensitive; matched on the masked
 * text, so a search cannot reveal what was masked), the last `limit` of them.
 */
export function maskedLines(
  lines: readonly string[],
  options: { redact: readonly RegExp[]; grep?: string; limit: number },
): string[] {
  const word = options.grep?.toLowerCase();
  const masked = lines.map((line) => maskLine(line, options.redact));
  const kept = word === undefined ? masked : masked.filter((line) => line.toLowerCase().includes(word));
  return kept.slice(Math.max(0, kept.length - options.limit));
}
