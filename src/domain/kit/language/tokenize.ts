// Splits slash-command text into words and flags: quotes (straight and typographic), Slack escapes, entities.

export type Token =
  /** `text` keeps Slack escapes (`<@U1>`, `<#C1|ops>`, `<https://…|…>`) as written; entities are decoded. */
  | { type: 'word'; text: string; quoted: boolean }
  /** `name` is lowercased and without dashes; `value` (and `quoted`) are set for `--name=value` only. */
  | { type: 'flag'; name: string; value?: string; quoted?: boolean; raw: string };

export type Tokenized = { ok: true; tokens: Token[] } | { ok: false; message: string };

/**
 * Opening quote → the characters that close it. Curly quotes are what Slack's desktop and mobile clients
 * insert; „ is the German opener; a closer mismatched the other way (“…“) is accepted because autocorrect
 * produces it.
 */
const QUOTES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '“': '”“',
  '”': '”',
  '‘': '’‘',
  '„': '“”',
};

/**
 * Slack's escapes are atomic, even inside quotes, so a quote in a label (`<@U1|o'neil>`) never ends a
 * quoted value: mentions `<@…>` `<#…>` `<!…>` and links `<scheme:…|label>`. Lengths are bounded so a
 * stray `<` in a 10 kB line costs a short scan, not a quadratic one.
 */
const SLACK_ESCAPE = /<(?:[@#!][^<>\n]{0,255}|[a-zA-Z][a-zA-Z0-9+.-]{0,31}:[^<>\s|]{0,2048}(?:\|[^<>\n]{0,255})?)>/y;
const LINK = /<([a-zA-Z][a-zA-Z0-9+.-]{0,31}:[^<>\s|]{0,2048})(?:\|([^<>\n]{0,255}))?>/g;

/** The only entities Slack puts in message text. */
const ENTITIES: ReadonlyArray<readonly [string, string]> = [
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&amp;', '&'],
];

/** Zero-width space, word joiner and BOM separate words like spaces do (they arrive from copy-paste). */
function isSpace(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code > 0x20 && code < 0x7f) return false;
  return /\s/.test(c) || c === '\u200b' || c === '\u2060';
}

/** Length of a flag's dashes at `i`: `--`, or one em/en dash, which macOS and iOS substitute for `--`. */
function dashes(input: string, i: number): number {
  if (input.startsWith('--', i)) return 2;
  const c = input[i];
  if ((c === '—' || c === '–') && /[a-zA-Z]/.test(input[i + 1] ?? '')) return 1;
  return 0;
}

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/**
 * Slack turns anything that looks like a URL or domain (`ghcr.io/acme/app:1.2`, `job.example.com`) into
 * `<http://…|…>`; values that are not free text want what the person typed: the label, else the URL.
 */
export function unwrapLinks(text: string): string {
  if (!text.includes('<')) return text;
  return text.replace(LINK, (_m, url: string, label: string | undefined) => decodeEntities(label ?? url));
}

/** Runs of characters that need no attention, copied in one slice (keeps 10 kB lines linear and cheap). */
const PLAIN_RUN = /[^\s\u200b\u2060<&]+/y;
const QUOTED_RUN: Readonly<Record<string, RegExp>> = Object.fromEntries(
  Object.entries(QUOTES).map(([open, closers]) => [open, new RegExp(`[^${closers}<&]+`, 'y')]),
);

type Read = { ok: true; text: string; quoted: boolean; end: number } | { ok: false; message: string };

/** One value from `start`: up to unquoted whitespace; a quote may open it and must close before whitespace. */
function readValue(input: string, start: number): Read {
  const open = input[start] ?? '';
  const closers = Object.hasOwn(QUOTES, open) ? QUOTES[open] : undefined;
  let j = closers === undefined ? start : start + 1;
  let text = '';
  const run = closers === undefined ? PLAIN_RUN : (QUOTED_RUN[open] as RegExp);
  for (;;) {
    run.lastIndex = j;
    const plain = run.exec(input);
    if (plain) {
      text += plain[0];
      j += plain[0].length;
    }
    if (j >= input.length) {
      if (closers === undefined) return { ok: true, text, quoted: false, end: j };
      return {
        ok: false,
        message: `unterminated quote: the ${open} before ${clip(input.slice(start + 1))} is never closed`,
      };
    }
    const c = input[j] as string;
    // A closer counts only before whitespace or the end, so apostrophes inside ('it's done') stay text.
    if (closers?.includes(c) && (j + 1 === input.length || isSpace(input[j + 1]))) {
      return { ok: true, text, quoted: true, end: j + 1 };
    }
    if (closers === undefined && isSpace(c)) return { ok: true, text, quoted: false, end: j };
    if (c === '<') {
      SLACK_ESCAPE.lastIndex = j;
      const m = SLACK_ESCAPE.exec(input);
      if (m) {
        text += m[0];
        j += m[0].length;
        continue;
      }
    } else if (c === '&') {
      const entity = ENTITIES.find(([e]) => input.startsWith(e, j));
      if (entity) {
        text += entity[1];
        j += entity[0].length;
        continue;
      }
    }
    text += c;
    j++;
  }
}

function clip(text: string): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : text);
}

/** Never throws; the only failure is an unterminated quote. */
export function tokenize(input: string): Tokenized {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    if (isSpace(input[i])) {
      i++;
      continue;
    }
    const dash = dashes(input, i);
    if (dash > 0) {
      let j = i + dash;
      while (j < input.length && !isSpace(input[j]) && input[j] !== '=') j++;
      const name = input.slice(i + dash, j).toLowerCase();
      if (input[j] !== '=') {
        tokens.push({ type: 'flag', name, raw: input.slice(i, j) });
        i = j;
        continue;
      }
      const read = readValue(input, j + 1);
      if (!read.ok) return read;
      tokens.push({ type: 'flag', name, value: read.text, quoted: read.quoted, raw: input.slice(i, j) });
      i = read.end;
      continue;
    }
    const read = readValue(input, i);
    if (!read.ok) return read;
    tokens.push({ type: 'word', text: read.text, quoted: read.quoted });
    i = read.end;
  }
  return { ok: true, tokens };
}
