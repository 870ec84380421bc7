// Masking of pod log lines before anyone sees them (docs/commands.md#flink-logs): every line is cut first
// (kit/logs/cut.ts), then a line matching one of the policy's `logs.redact` patterns is replaced whole, and anything that
// looks like a secret — the values of password, secret, token, key and signature settings (properties, JSON, command
// line flags), Slack tokens, AWS access key ids, bearer and basic credentials, JWTs, passwords in URLs, PEM private
// keys — is replaced by `•••`. The work is linear in the line: a hand-written scan (settings-scan.ts) and expressions
// that start only where their run starts. Pure: the policy's patterns arrive compiled (kit/policy/logs.ts).
import { CUT_MARK, MAX_LOG_LINE, cutLine } from './cut.js';
import { maskPem } from './pem.js';
import { secretSettings } from './settings-scan.js';

export const MASK = '•••';
/** What a line matching `logs.redact` is replaced with. */
export const REDACTED_LINE = `${MASK} (line redacted by the policy's logs.redact)`;

/**
 * [pattern, replacement]; applied in order, each on what the earlier ones left. A lookbehind keeps every start at the
 * beginning of its run of characters, so runs are never rescanned from inside (no quadratic backtracking).
 */
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  // `Authorization: Bearer …`, `Basic …`.
  [/(?<![A-Za-z])(bearer|basic)([ \t]+)[A-Za-z0-9._~+/=-]{8,}/giu, `$1$2${MASK}`],
  // Slack tokens (bot, user, app-level, refresh, config).
  [/(?<![\w-])xox[abposre]-[A-Za-z0-9-]{6,}/giu, MASK],
  [/(?<![\w-])xapp-[A-Za-z0-9-]{6,}/giu, MASK],
  // AWS access key ids (long-term and temporary).
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/gu, MASK],
  // JSON Web Tokens.
  [/(?<![\w-])eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]{5,}/gu, MASK],
  // Passwords in URLs: scheme://user:password@host, the user possibly empty (`redis://:password@host`).
  [/((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{0,256}:)[^\s@/]+@/giu, `$1${MASK}@`],
];

function maskSettings(line: string): string {
  let out = '';
  let last = 0;
  for (const { start, end } of secretSettings(line)) {
    out += `${line.slice(last, start)}${MASK}`;
    last = end;
  }
  return out + line.slice(last);
}

function maskValues(line: string): string {
  let out = maskSettings(line);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** One (already cut) line with every secret-looking value replaced by `•••`, a PEM private key on it included. */
export function maskSecrets(line: string): string {
  return maskValues(maskPem(line, false, MASK).text);
}

/** Where a PEM private key is still open at the end of the previous line (the lines after belong to it). */
export interface MaskState {
  pemOpen: boolean;
}

/**
 * A log line as it may be shown: cut to MAX_LOG_LINE characters first, then redacted whole when a policy pattern
 * matches it, else with its secrets masked; `… (cut)` when something was dropped.
 */
export function maskLine(line: string, redact: readonly RegExp[], state: MaskState = { pemOpen: false }): string {
  const { text, cut } = cutLine(line);
  const pem = maskPem(text, state.pemOpen, MASK);
  state.pemOpen = pem.open;
  for (const pattern of redact) {
    pattern.lastIndex = 0;
    if (pattern.test(text)) return REDACTED_LINE;
  }
  const masked = maskValues(pem.text);
  return cut || masked.length > MAX_LOG_LINE ? `${masked.slice(0, MAX_LOG_LINE)}${CUT_MARK}` : masked;
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
  const state: MaskState = { pemOpen: false };
  const masked = lines.map((line) => maskLine(line, options.redact, state));
  const kept = word === undefined ? masked : masked.filter((line) => line.toLowerCase().includes(word));
  return kept.slice(Math.max(0, kept.length - options.limit));
}
