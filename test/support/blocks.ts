// Assertions for rendered Slack messages: Slack's own validation, and the text a person would read.
import { expect } from 'vitest';
import { blocksCharCount, validateBlocks } from '@flink-chatops/sim/slack/blockkit-limits';
import type { SlackMessage } from '../../src/slack/blocks/message.js';

/** The message passes the simulated Slack's Block Kit validator (every limit, the ~13k total included). */
export function expectValid(message: SlackMessage): void {
  expect(validateBlocks(message.blocks)).toEqual({ ok: true });
  expect(blocksCharCount(message.blocks)).toBeLessThanOrEqual(13_200);
  expect(message.text.length).toBeGreaterThan(0);
}

/** Every text of the blocks, in order, joined by newlines (what the reader sees, mrkdwn included). */
export function visibleText(message: SlackMessage): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    if ((o.type === 'mrkdwn' || o.type === 'plain_text') && typeof o.text === 'string') out.push(o.text);
    Object.values(o).forEach(walk);
  };
  walk(message.blocks);
  return out.join('\n');
}

export function actionsOf(message: SlackMessage): Record<string, unknown>[] {
  return message.blocks.filter((b) => b.type === 'actions');
}

export function buttonsOf(
  message: SlackMessage,
): { action_id: string; value: string; style?: string; text: { text: string } }[] {
  return actionsOf(message).flatMap(
    (b) => b.elements as { action_id: string; value: string; style?: string; text: { text: string } }[],
  );
}
