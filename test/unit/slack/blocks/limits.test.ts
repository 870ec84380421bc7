// Slack's message limits (src/slack/blocks/limits.ts): enforceLimits on raw blocks, and records far beyond every
// limit rendered within them.
import { describe, expect, it } from 'vitest';
import { OPERATION_STATES } from '../../../../src/domain/model/lifecycle.js';
import type { OperationRecord } from '../../../../src/domain/engines/operation.js';
import {
  enforceLimits,
  renderCard,
  renderIncidentDigest,
  renderOp,
  renderThreadReply,
  stateNameCount,
  SLACK_LIMITS,
} from '../../../../src/slack/blocks/index.js';
import { charCount } from '../../../../src/slack/blocks/limits.js';
import { actionsOf, expectValid, visibleText } from '../../../support/blocks.js';
import { CTX, oversizedRecord, recordIn } from '../../../support/records.js';

const lines = (n: number, width = 20) => Array.from({ length: n }, (_, i) => `line ${i}`.padEnd(width, '.'));

describe('enforceLimits on raw blocks', () => {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const button = (i: number, label = `b${i}`) => ({
    type: 'button',
    text: { type: 'plain_text', text: label },
    action_id: `a${i}`,
    value: 'op-abc123',
  });
  const cases: [string, Record<string, unknown>[], boolean][] = [
    ['60 blocks', Array.from({ length: 60 }, (_, i) => section(`block ${i}`)), true],
    ['a 5000-character section', [section(lines(250).join('\n'))], true],
    [
      '12 fields of 2500 characters',
      [
        {
          type: 'section',
          fields: Array.from({ length: 12 }, () => ({ type: 'mrkdwn', text: lines(120).join('\n') })),
        },
      ],
      true,
    ],
    ['a 200-character header', [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(200) } }], false],
    [
      '15 context elements',
      [{ type: 'context', elements: Array.from({ length: 15 }, (_, i) => ({ type: 'mrkdwn', text: `c${i}` })) }],
      true,
    ],
    [
      '30 buttons with long labels and ids',
      [
        {
          type: 'actions',
          block_id: 'b'.repeat(300),
          elements: Array.from({ length: 30 }, (_, i) => ({
            ...button(i, 'L'.repeat(100)),
            action_id: `${i}`.padEnd(300, 'x'),
          })),
        },
      ],
      false,
    ],
    [
      '20 sections of 2900 characters (beyond the total)',
      Array.from({ length: 20 }, () => section(lines(140).join('\n'))),
      true,
    ],
  ];
  it.each(cases)('%s → valid; "…and N more": %s', (_, blocks, counted) => {
    const before = JSON.stringify(blocks);
    const message = enforceLimits({ text: 'x', blocks });
    expectValid(message);
    if (counted) expect(JSON.stringify(message.blocks)).toMatch(/…and \d+ more/);
    expect(JSON.stringify(blocks)).toBe(before); // the input is not mutated
  });

  it('keeps the actions block when blocks must go', () => {
    const blocks = [
      ...Array.from({ length: 60 }, (_, i) => section(`block ${i}`)),
      { type: 'actions', elements: [button(1)] },
    ];
    const message = enforceLimits({ text: 'x', blocks });
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    expect(actionsOf(message)).toHaveLength(1);
    const dropped = Number(/…and (\d+) more/.exec(JSON.stringify(message.blocks))?.[1]);
    expect(message.blocks.length - 2 + dropped).toBe(60); // every section is either shown or counted
  });

  it('keeps the total under the budget and counts as Slack does', () => {
    const message = enforceLimits({
      text: 'x',
      blocks: Array.from({ length: 20 }, () => section(lines(140).join('\n'))),
    });
    expect(charCount(message.blocks)).toBeLessThanOrEqual(12_000);
  });
});

describe('a record far beyond every limit: 200 diff lines, 100 checks, a 10 kB reason, 500 history entries', () => {
  it.each(OPERATION_STATES)('%s: card, op, digest and every thread reply stay valid', (state) => {
    const record = oversizedRecord(state);
    expect(record.history.length).toBe(500);
    const card = renderCard(record, CTX);
    expectValid(card);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ [state]: 1 });
    expect(visibleText(card)).toMatch(/…and \d+ more/);
    const op = renderOp(record, CTX);
    expectValid(op);
    expect(visibleText(op)).toMatch(/\*History\* \(500 entries\)\n#1 · .*\n…and \d+ more\n/);
    expect(visibleText(op)).toContain('#500 · ');
    for (const phase of ['start', 'end'] as const) expectValid(renderIncidentDigest(record, phase, CTX));
    for (const entry of record.history) {
      const reply = renderThreadReply(record, entry, CTX);
      if (reply) expectValid(reply);
    }
  });

  it('a verdict with 300 criteria is cut with "…and N more"', () => {
    const done = recordIn('COMPLETED');
    const criteria = Array.from({ length: 300 }, (_, i) => ({
      name: `criterion-${i}`,
      met: true,
      observed: 'x'.repeat(60),
      source: 'status.somewhere.deep',
      at: CTX.now,
    }));
    const evidence = done.evidence as { verdict: Record<string, unknown> };
    const r = { ...done, evidence: { ...evidence, verdict: { ...evidence.verdict, criteria } } } as OperationRecord;
    const reply = renderThreadReply(
      r,
      r.history.findLast((e) => e.name === 'COMPLETED')!,
      CTX,
    );
    expect(reply).toBeDefined();
    expectValid(reply!);
    expect(visibleText({ ...reply!, blocks: reply!.blocks.slice(0, 1) })).toMatch(/\n…and \d+ more$/);
    expect(visibleText(reply!)).toContain(r.id);
  });
});
