// mrkdwn text for every message: escaping, mentions, Slack dates, values, truncation with "…and N more", blocks.
import { OPERATION_STATES } from '../../domain/model/lifecycle.js';
import { formatAge } from '../../domain/engines/policy/checks.js';
import { outsideText } from '../../domain/model/outside-text.js';

export type Block = Record<string, unknown>;

/** Slack's own mentions survive escaping; everything else in `<…>` (links, `<!channel>`) does not. */
const KEPT_MENTION = /<@[UW][A-Z0-9]+>|<#C[A-Z0-9]+(?:\|[^<>]*)?>/g;

/** `&`, `<`, `>` → entities (Slack's three), so user text can neither link, ping channels nor format. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * The one escaping for text from outside the bot (Flink, Kubernetes: exception and Event messages, status.error, log
 * lines, error messages): Slack's three entities, and no mention or link, not even one Slack would make by itself
 * (docs/operating.md#outside-text).
 */
export function escapeOutside(text: string): string {
  return escapeText(outsideText(text));
}

/** Outside text on one line, escaped as `escapeOutside` and cut to `max` characters, saying how many more. */
export function outsideClip(raw: string, max: number): string {
  const text = oneLine(raw);
  if (text.length <= max) return escapeOutside(text);
  const head = text.slice(0, max);
  return `${escapeOutside(head)} ${moreLine(text.length - head.length, 'characters')}`;
}

/** Like `escapeText`, but user and channel mentions Slack already encoded stay mentions. */
export function escapeKeepMentions(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(KEPT_MENTION)) {
    out += escapeText(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + escapeText(text.slice(last));
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** `<@U…>` for a Slack user id; process actors (`system`, `worker`, `sweep`) as plain words. */
export function who(actor: string): string {
  return USER_ID.test(actor) ? `<@${actor}>` : `_${escapeText(actor)}_`;
}

export function channelRef(id: string): string {
  return /^[CG][A-Z0-9]+$/.test(id) ? `<#${id}>` : escapeText(id);
}

/** One line: newlines and runs of spaces collapsed (summaries and reasons must not break the layout). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `2026-01-01 10:42:05 UTC`: the fallback Slack shows where it cannot localise a date. */
export function utcTime(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

/** A date every reader sees in their own time zone (`<!date^…|fallback>`). */
export function slackDate(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time_secs}|${utcTime(ms)}>`;
}

/** `5m ago`, `in 29m`. */
export function relative(ms: number, now: number): string {
  return ms <= now ? `${formatAge(now - ms)} ago` : `in ${formatAge(ms - now)}`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** "a", "a or b", "a, b or c". */
export function either(words: readonly string[], conjunction = 'or'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

const MAX_VALUE = 200;

/** A field value as a person reads it in a diff: strings bare, absent as `(unset)`, the rest as JSON. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return '(unset)';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return clip(oneLine(text), MAX_VALUE);
}

/** Cut to `max` characters with a trailing `…`, never inside an entity or a `<…>` token. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${safeCut(text, Math.max(0, max - 1))}…`;
}

/**
 * The longest prefix of `text` of at most `n` characters that does not split `&amp;` or `<@U…>`. In `raw`
 * (unescaped user) text a `&` or `<` is only a character, unless it starts a mention.
 */
export function safeCut(text: string, n: number, raw = false): string {
  let cut = text.slice(0, n);
  const amp = cut.lastIndexOf('&');
  if (!raw && amp >= 0 && amp > cut.length - 6 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  const open = cut.lastIndexOf('<');
  const token = open >= 0 && !cut.slice(open).includes('>') && (!raw || /^<[@#]/.test(cut.slice(open)));
  if (token) cut = cut.slice(0, open);
  // A cut inside `code` would leave the rest of the line unformatted: drop the unpaired backtick.
  if ((cut.match(/`/g) ?? []).length % 2 === 1) cut = cut.slice(0, cut.lastIndexOf('`'));
  return cut;
}

/** User text escaped and cut to `max` characters of the original, saying how many more there were. */
export function userText(raw: string, max: number): string {
  const text = oneLine(raw);
  if (text.length <= max) return escapeKeepMentions(text);
  const head = safeCut(text, max, true);
  return `${escapeKeepMentions(head)} ${moreLine(text.length - head.length, 'characters')}`;
}

const MORE_LINE = /^…and (\d+) more(?: (lines|characters))?$/;

const isMoreLine = (line: string): boolean => {
  const m = MORE_LINE.exec(line);
  return m !== null && m[2] !== 'characters';
};

export function moreLine(n: number, unit?: 'characters'): string {
  return `…and ${n} more${unit ? ` ${unit}` : ''}`;
}

/**
 * Fits text into `max` characters: whole lines while they fit, then "…and N more" (N lines). A single line
 * too long on its own is cut with "…and N more characters". An earlier "…and N more" line is merged.
 */
export function fitLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split('\n');
  const gap = lines.findIndex((l, i) => i > 0 && i < lines.length - 1 && isMoreLine(l));
  if (gap > 0) return widenGap(lines, gap, max);
  let carried = 0;
  const tail = MORE_LINE.exec(lines[lines.length - 1] ?? '');
  if (tail && tail[2] !== 'characters' && lines.length > 1) {
    carried = Number(tail[1]);
    lines.pop();
  }
  const kept: string[] = [];
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const dropped = lines.length - i - 1 + carried;
    const suffix = dropped > 0 ? moreLine(dropped).length + 1 : 0;
    if (used + line.length + 1 + suffix > max) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length === 0) return cutChars(lines, carried, max);
  const dropped = lines.length - kept.length + carried;
  return dropped > 0 ? [...kept, moreLine(dropped)].join('\n') : kept.join('\n');
}

/**
 * A text that already left out a middle part ("first, …and N more, latest") loses the lines right after the
 * gap first, so what stays is still the beginning and the most recent.
 */
function widenGap(lines: string[], gap: number, max: number): string {
  const head = lines.slice(0, gap);
  const tail = lines.slice(gap + 1);
  let dropped = Number(MORE_LINE.exec(lines[gap] ?? '')?.[1] ?? 0);
  const size = () => [...head, moreLine(dropped), ...tail].join('\n').length;
  while (tail.length > 0 && size() > max) {
    tail.shift();
    dropped++;
  }
  const joined = [...head, moreLine(dropped), ...tail].join('\n');
  return joined.length <= max ? joined : fitLines([...head, moreLine(dropped)].join('\n'), max);
}

function cutChars(lines: string[], carried: number, max: number): string {
  const first = lines[0] ?? '';
  const restLines = lines.length - 1 + carried;
  const reserve =
    ` ${moreLine(first.length, 'characters')}${restLines > 0 ? `\n${moreLine(restLines)}` : ''}`.length + 1;
  const head = safeCut(first, Math.max(0, max - reserve));
  const more = `${head} ${moreLine(first.length - head.length, 'characters')}`;
  return restLines > 0 ? `${more}\n${moreLine(restLines)}` : more;
}

// Longest first, so AWAITING_APPROVAL is never read as part of another name.
const STATE_NAMES = [...OPERATION_STATES].sort((a, b) => b.length - a.length);
const STATE_OR_MENTION = new RegExp(`(<[@#!][^>]*>)|(${STATE_NAMES.join('|')})`, 'g');

/** Every operation state name in `text` lowercased (mentions untouched): the card names its state once only. */
export function withoutStateNames(text: string): string {
  return text.replace(STATE_OR_MENTION, (all: string, mention: string | undefined) =>
    mention ? all : all.toLowerCase(),
  );
}

/** How often each operation state name occurs in `text` (uppercase, as a substring). */
export function stateNameCount(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(STATE_OR_MENTION)) if (m[2]) counts[m[2]] = (counts[m[2]] ?? 0) + 1;
  return counts;
}

// ---- block builders ----

export const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: text === '' ? ' ' : text });
const plain = (text: string) => ({ type: 'plain_text', text: text === '' ? ' ' : text, emoji: true });

export function header(text: string): Block {
  return { type: 'header', text: plain(clip(oneLine(text), 150)) };
}

export function section(text: string, blockId?: string): Block {
  return { type: 'section', ...(blockId ? { block_id: blockId } : {}), text: mrkdwn(text) };
}

/** Label/value pairs, two columns. */
export function fields(pairs: readonly (readonly [string, string])[]): Block {
  return { type: 'section', fields: pairs.map(([label, value]) => mrkdwn(`*${label}*\n${value}`)) };
}

export function context(...texts: string[]): Block {
  return { type: 'context', elements: texts.map(mrkdwn) };
}

export const divider = (): Block => ({ type: 'divider' });

export function button(label: string, actionId: string, value: string, style?: 'primary' | 'danger'): Block {
  return { type: 'button', text: plain(label), action_id: actionId, value, ...(style ? { style } : {}) };
}

/** A titled list: `*Title*` then one line per item; empty lists say so rather than vanish. */
export function listSection(title: string, lines: readonly string[], empty?: string): Block | undefined {
  if (lines.length === 0) return empty === undefined ? undefined : section(`*${title}*\n${empty}`);
  return section(`*${title}*\n${lines.join('\n')}`);
}

export function ageOf(since: number, now: number): string {
  return formatAge(Math.max(0, now - since));
}
