// The values of secret-named settings in a log line, found by one left-to-right scan (docs/commands.md#flink-logs):
// `name=value` (properties, query strings, JVM flags), `name: value` and JSON's `"name": "value"`, `--name value` (command
// line flags) and Flink's `Loading configuration property: name, value`. No regular expression runs with nested or
// overlapping quantifiers: each character is looked at a bounded number of times, so the work is linear in the line.

/** Words that make a setting's name secret (`s3.secret-key`, `keyStorePassword`, `api_token`, `X-Amz-Signature`). */
const SENSITIVE_WORDS = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'credential',
  'key',
  'signature',
];
/** Whole names that are secret though short: Azure SAS's `sig`. */
const SENSITIVE_NAMES = new Set(['sig']);
/** Names of settings: maximal runs of these characters (a `g` regex over a single class visits each character once). */
const NAME_RUN = /[\w.-]+/gu;
/** What ends an unquoted value: whitespace and the separators of query strings, lists and markup. */
const VALUE_END = /[\s&;,"'<>]/u;

export interface Found {
  /** Where the value starts and ends (end exclusive). */
  start: number;
  end: number;
}

function bareName(name: string): string {
  return name.replace(/^-+/u, '').toLowerCase();
}

function sensitive(name: string): boolean {
  const bare = bareName(name);
  return SENSITIVE_NAMES.has(bare) || SENSITIVE_WORDS.some((word) => bare.includes(word));
}

/** `name: value` only when the name ends in the word (`password: …`), not `TokenExpiredException: …`. */
function endsSensitive(name: string): boolean {
  const bare = bareName(name);
  return SENSITIVE_NAMES.has(bare) || SENSITIVE_WORDS.some((word) => bare.endsWith(word) || bare.endsWith(`${word}s`));
}

function skipSpaces(line: string, at: number): number {
  let i = at;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

/** Where the value after `name` (ending at `end`) starts, or undefined when no separator of a setting follows. */
function valueStart(line: string, start: number, end: number, name: string): number | undefined {
  const quoted = line[start - 1] === '"' && line[end] === '"';
  const after = quoted ? end + 1 : end;
  const sep = skipSpaces(line, after);
  const c = line[sep];
  if (c === '=') return skipSpaces(line, sep + 1);
  if (c === ':' && line[sep + 1] !== '/' && (quoted || endsSensitive(name))) return skipSpaces(line, sep + 1);
  if (c === ',' && /configuration property:\s*$/iu.test(line.slice(Math.max(0, start - 40), start)))
    return skipSpaces(line, sep + 1);
  if (name.startsWith('--') && !quoted && sep > after && c !== undefined && c !== '-') return sep;
  return undefined;
}

/** Where the value starting at `at` ends: after its closing quote (backslash escapes honoured), or at a separator. */
function valueEnd(line: string, at: number): number {
  const quote = line[at];
  if (quote === '"' || quote === "'") {
    for (let i = at + 1; i < line.length; i++) {
      if (line[i] === '\\') i++;
      else if (line[i] === quote) return i + 1;
    }
    return line.length; // never closed: everything after the name is the value
  }
  let i = at;
  while (i < line.length && !VALUE_END.test(line[i] as string)) i++;
  return i;
}

/** The values of secret-named settings in `line`, in order, not overlapping. */
export function secretSettings(line: string): Found[] {
  const found: Found[] = [];
  let last = 0;
  for (const match of line.matchAll(NAME_RUN)) {
    const start = match.index;
    const end = start + match[0].length;
    if (start < last || !sensitive(match[0])) continue;
    const from = valueStart(line, start, end, match[0]);
    if (from === undefined) continue;
    const to = valueEnd(line, from);
    if (to === from) continue;
    found.push({ start: from, end: to });
    last = to;
  }
  return found;
}
