// The last step of every renderer: any message brought within Slack's Block Kit limits by truncation, never by failing.
import { clip, context, fitLines, moreLine, type Block } from './text.js';
import type { SlackMessage } from './message.js';

/**
 * Slack's limits (docs/lifecycle.md#what-slack-allows), as the platform enforces them on `chat.postMessage` /
 * `chat.update`.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  id: 255,
  /** `msg_blocks_too_long` comes at ~13.2k characters over every string in the blocks. */
  totalChars: 13_200,
  /** Message `text` is cut by Slack above 40k; a fallback never needs that much. */
  fallbackText: 3000,
} as const;

/** What we aim for: below Slack's total with room for its own counting quirks. */
export const TOTAL_BUDGET = 12_000;
/** A text is never shrunk below this to make room for others: past that, whole blocks go. */
const MIN_TEXT = 200;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Characters as Slack counts them for `msg_blocks_too_long`: every string in the blocks, keys excluded. */
export function charCount(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + charCount(x), 0);
  if (isObj(v)) return Object.values(v).reduce<number>((n, x) => n + charCount(x), 0);
  return 0;
}

function fitText(t: unknown, max: number): void {
  if (isObj(t) && typeof t.text === 'string') {
    t.text = t.type === 'plain_text' ? clip(t.text, max) : fitLines(t.text, max);
    if (t.text === '') t.text = ' ';
  }
}

function fitButton(e: Obj): void {
  fitText(e.text, SLACK_LIMITS.buttonText);
  if (typeof e.value === 'string' && e.value.length > SLACK_LIMITS.buttonValue)
    e.value = e.value.slice(0, SLACK_LIMITS.buttonValue);
  if (typeof e.action_id === 'string') e.action_id = e.action_id.slice(0, SLACK_LIMITS.id);
}

/** Keeps `max` items: `max - 1` of them and one that says how many more there were. */
function capWithMore(items: unknown[], max: number): unknown[] {
  if (items.length <= max) return items;
  return [...items.slice(0, max - 1), { type: 'mrkdwn', text: moreLine(items.length - max + 1) }];
}

function fitBlock(b: Obj): void {
  if (typeof b.block_id === 'string') b.block_id = b.block_id.slice(0, SLACK_LIMITS.id);
  switch (b.type) {
    case 'header':
      fitText(b.text, SLACK_LIMITS.headerText);
      break;
    case 'section':
      fitText(b.text, SLACK_LIMITS.sectionText);
      if (Array.isArray(b.fields)) {
        b.fields = capWithMore(b.fields, SLACK_LIMITS.fields);
        for (const f of b.fields as unknown[]) fitText(f, SLACK_LIMITS.fieldText);
      }
      if (isObj(b.accessory)) fitButton(b.accessory);
      break;
    case 'context':
      if (Array.isArray(b.elements)) {
        b.elements = capWithMore(b.elements, SLACK_LIMITS.contextElements);
        for (const e of b.elements as unknown[]) fitText(e, SLACK_LIMITS.contextText);
      }
      break;
    case 'actions':
      if (Array.isArray(b.elements)) {
        b.elements = b.elements.slice(0, SLACK_LIMITS.actionsElements);
        for (const e of b.elements as unknown[]) if (isObj(e)) fitButton(e);
      }
      break;
  }
}

const MORE_BLOCK = /^…and (\d+) more$/;

/** The count carried by a context block that only says "…and N more", else undefined. */
function moreCount(b: Obj | undefined): number | undefined {
  const el = isObj(b) && b.type === 'context' && Array.isArray(b.elements) ? b.elements[0] : undefined;
  const m = isObj(el) && typeof el.text === 'string' ? MORE_BLOCK.exec(el.text) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * Removes the last block that may go (never actions, never the first two: header and state) and
 * leaves one "…and N more" in its place, merged with an earlier one. Returns false when nothing can go.
 */
function dropOne(blocks: Obj[]): boolean {
  for (let i = blocks.length - 1; i >= 2; i--) {
    const b = blocks[i];
    if (b?.type === 'actions' || moreCount(b) !== undefined) continue;
    const next = moreCount(blocks[i + 1]);
    const prev = moreCount(blocks[i - 1]);
    if (next !== undefined) blocks.splice(i, 2, context(moreLine(next + 1)));
    else if (prev !== undefined) blocks.splice(i - 1, 2, context(moreLine(prev + 1)));
    else blocks.splice(i, 1, context(moreLine(1)));
    return true;
  }
  return false;
}

function capBlocks(blocks: Obj[]): void {
  while (blocks.length > SLACK_LIMITS.blocks) if (!dropOne(blocks)) return;
}

/** Every mrkdwn text that may shrink, largest first. */
function shrinkable(blocks: Obj[]): Obj[] {
  const texts: Obj[] = [];
  for (const b of blocks) {
    if (b.type === 'section') {
      if (isObj(b.text) && b.text.type === 'mrkdwn') texts.push(b.text);
      if (Array.isArray(b.fields)) texts.push(...(b.fields as unknown[]).filter(isObj));
    }
    if (b.type === 'context' && Array.isArray(b.elements)) texts.push(...(b.elements as unknown[]).filter(isObj));
  }
  return texts.filter((t) => typeof t.text === 'string').sort((a, b) => String(b.text).length - String(a.text).length);
}

function fitTotal(blocks: Obj[], budget: number): void {
  for (let guard = 0; guard < 1000; guard++) {
    const over = charCount(blocks) - budget;
    if (over <= 0) return;
    const largest = shrinkable(blocks)[0];
    const len = largest ? String(largest.text).length : 0;
    if (largest && len > MIN_TEXT) {
      // A quarter at a time, so several long sections share the cut instead of one losing everything.
      const target = Math.max(MIN_TEXT, len - over - 40, Math.floor(len * 0.75));
      const next = fitLines(String(largest.text), target);
      if (next.length < len) {
        largest.text = next;
        continue;
      }
    }
    if (!dropOne(blocks)) return;
  }
}

/** `message` within every Slack limit: texts cut at line boundaries with "…and N more", extra blocks folded. */
export function enforceLimits(message: SlackMessage, budget: number = TOTAL_BUDGET): SlackMessage {
  const blocks = structuredClone(message.blocks).filter(isObj) as Block[];
  for (const b of blocks) fitBlock(b);
  capBlocks(blocks);
  fitTotal(blocks, budget);
  const text = fitLines(message.text, SLACK_LIMITS.fallbackText);
  return { text: text === '' ? ' ' : text, blocks };
}
