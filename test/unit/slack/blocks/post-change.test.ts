// The post-change watch in Slack (src/slack/blocks/post-change.ts): the regression reply with its Undo button, the
// card's line and button, the healthy line, and no button for a kind that cannot be undone.
import { describe, expect, it } from 'vitest';
import { HEALTHY_NOTE, REGRESSED_NOTE } from '../../../../src/domain/kit/evidence/regression.js';
import type { OperationRecord } from '../../../../src/domain/engines/operation.js';
import { amendedEntry, renderCard, renderThreadReply } from '../../../../src/slack/blocks/index.js';
import { historyLine } from '../../../../src/slack/blocks/entries.js';
import { expectValid } from '../../../support/blocks.js';
import { CTX, OP_ID, recordIn, step } from '../../../support/records.js';

const REGRESSION = {
  kind: 'restarts',
  what: '3 restarts in 4 min',
  numbers: 'numRestarts 0 → 3',
  source: 'Flink REST',
  afterMs: 240_000,
  watchAfter: '10m',
};
const noted = (name: string, detail: Record<string, unknown>, record = recordIn('COMPLETED')): OperationRecord =>
  step(record, [{ type: 'note', name, actor: 'worker', detail }]);
const undoButtons = (blocks: unknown) =>
  JSON.stringify(blocks).match(/"action_id":"flink_ops_undo","value":"op-[a-z0-9]+"/g) ?? [];

describe('post-change notes in Slack', () => {
  it('the regression reply says what regressed and offers Undo for the operation', () => {
    const record = noted(REGRESSED_NOTE, REGRESSION);
    const reply = renderThreadReply(record, record.history.at(-1)!, CTX);
    if (!reply) throw new Error('no reply');
    expectValid(reply);
    expect(reply.text).toBe(
      `${OP_ID}: Regressed after the change: 3 restarts in 4 min (numRestarts 0 → 3, Flink REST)`,
    );
    expect(undoButtons(reply.blocks)).toEqual([`"action_id":"flink_ops_undo","value":"${OP_ID}"`]);
    expect(reply.blocks.at(-1)).toMatchObject({ type: 'context' });
    expect(historyLine(record, record.history.at(-1)!)).toContain('Regressed after the change: 3 restarts in 4 min');
  });

  it('the card shows the line under the verdict, with the Undo button', () => {
    const card = renderCard(noted(REGRESSED_NOTE, REGRESSION), CTX);
    expectValid(card);
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('*After the change*\\n:chart_with_downwards_trend: Regressed after the change: 3 restarts');
    expect(undoButtons(card.blocks)).toHaveLength(1);
    expect(JSON.stringify(renderCard(recordIn('COMPLETED'), CTX).blocks)).not.toContain('After the change');
  });

  it('no Undo for a kind that cannot be undone (a restart)', () => {
    const restart: OperationRecord = { ...recordIn('COMPLETED'), kind: 'restart' };
    const record = noted(REGRESSED_NOTE, REGRESSION, restart);
    expect(undoButtons(renderThreadReply(record, record.history.at(-1)!, CTX)?.blocks)).toEqual([]);
    expect(undoButtons(renderCard(record, CTX).blocks)).toEqual([]);
  });

  it("a quiet watch: one line at the end of the verdict's reply, no button", () => {
    const record = noted(HEALTHY_NOTE, { watchAfter: '10m', watchAfterMs: 600_000 });
    // No reply of its own: the verdict's reply is edited to end with it (docs/lifecycle.md#the-thread).
    const note = record.history.at(-1)!;
    expect(renderThreadReply(record, note, CTX)).toBeUndefined();
    const verdict = amendedEntry(record, note);
    expect(verdict).toMatchObject({ type: 'state', name: 'COMPLETED' });
    const amended = renderThreadReply(record, verdict!, CTX);
    expect(JSON.stringify(amended?.blocks)).toContain(':white_check_mark: Healthy for 10 min after the change');
    expect(undoButtons(amended?.blocks)).toEqual([]);
    expect(JSON.stringify(renderCard(record, CTX).blocks)).toContain(
      ':white_check_mark: Healthy for 10 min after the change',
    );
  });
});
