// Break-glass on the card, `op`, digests, App Home and the thread (docs/policy.md#break-glass): BREAK-GLASS at the top,
// the reason and what was skipped, the Reviewed button only while a review is due, "Reviewed by"; every message within
// Slack's limits.
import { describe, expect, it } from 'vitest';
import type { HomeView } from '../../../../src/app/views.js';
import type { OperationRecord } from '../../../../src/domain/engines/operation.js';
import {
  renderCard,
  renderExplain,
  renderIncidentDigest,
  renderOp,
  renderOps,
  renderThreadReply,
  stateNameCount,
} from '../../../../src/slack/blocks/index.js';
import { REVIEW_ACTION_ID } from '../../../../src/slack/blocks/break-glass.js';
import { renderHome } from '../../../../src/slack/blocks/home.js';
import { validateBlocks } from '@flink-chatops/sim/slack/blockkit-limits';
import { buttonsOf, expectValid, visibleText } from '../../../support/blocks.js';
import { CTX, LEAD, recordIn, step } from '../../../support/records.js';

const SKIPPED = { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] };
const DENY = 'No production changes on Friday afternoons (rule friday-freeze)';

/** A record in `state` that break-glass let through (its decision says what it skipped). */
function breakGlass(
  state: 'QUEUED' | 'COMPLETED',
  reason = 'INC-7: consumer lag',
  skipped = [SKIPPED],
): OperationRecord {
  const r = recordIn(state, { reason, intent: { breakGlass: true } });
  return {
    ...r,
    decision: {
      outcome: 'allow',
      checks: r.decision?.checks ?? [],
      requirements: [],
      environment: 'production',
      breakGlass: { skippedRequirements: skipped, skippedDenies: [DENY] },
    },
  };
}

describe('the card of a break-glass operation', () => {
  it('says BREAK-GLASS at the top with the reason and what was skipped; no Reviewed button while it runs', () => {
    const card = renderCard(breakGlass('QUEUED'), CTX);
    expectValid(card);
    expect(card.text).toMatch(/^BREAK-GLASS · op-/);
    expect(JSON.stringify(card.blocks[0])).toContain('BREAK-GLASS');
    const top = visibleText({ ...card, blocks: card.blocks.slice(1, 2) });
    expect(top).toContain('*BREAK-GLASS* by <@U0ALICE>: INC-7: consumer lag');
    expect(top).toContain('approval skipped: `prod-needs-a-lead` (1 approval from *leads*)');
    expect(top).toContain(`deny rule skipped: ${DENY}`);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ QUEUED: 1 });
    expect(buttonsOf(card).map((b) => b.action_id)).not.toContain(REVIEW_ACTION_ID);
  });

  it('shows the Reviewed button once it ended, and "Reviewed by" without the button after the review', () => {
    const done = breakGlass('COMPLETED');
    const due = renderCard(done, CTX);
    expect(buttonsOf(due)).toContainEqual(expect.objectContaining({ action_id: REVIEW_ACTION_ID, value: done.id }));
    expect(visibleText(due)).toContain('Review due');
    const reviewed = step(done, [{ type: 'command', name: 'reviewed', actor: LEAD }]);
    const card = renderCard(reviewed, CTX);
    expect(visibleText(card)).toContain(`Reviewed by <@${LEAD}>`);
    expect(buttonsOf(card)).toEqual([]);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ COMPLETED: 1 });
  });

  it('stays within Slack limits with a 10 kB reason and 100 skipped rules', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      rule: `rule-${i}-${'x'.repeat(60)}`,
      approvals: 2,
      from: ['leads', 'sre'],
    }));
    const record = breakGlass('COMPLETED', '<b>'.repeat(3500), many);
    for (const message of [
      renderCard(record, CTX),
      renderOp(record, CTX),
      renderIncidentDigest(record, 'start', CTX),
      renderIncidentDigest(record, 'end', CTX),
    ]) {
      expectValid(message);
      expect(message.text).toContain(record.id);
      expect(message.text).toContain('BREAK-GLASS');
    }
  });
});

describe('digests, op and the thread', () => {
  it('the incident digest and `op` say BREAK-GLASS with the reason', () => {
    const record = breakGlass('COMPLETED');
    const digest = renderIncidentDigest(record, 'end', CTX);
    expect(digest.text).toContain(`BREAK-GLASS · ${record.id}`);
    expect(visibleText(digest)).toContain('INC-7: consumer lag');
    expect(visibleText(renderOp(record, CTX))).toContain('approval skipped: `prod-needs-a-lead`');
  });

  it('replies in the thread to the review and to a reminder, each carrying the id', () => {
    const done = breakGlass('COMPLETED');
    const message = `break-glass review due: ${done.id} ended more than 24h ago and nobody has reviewed it; leads: please review it (Reviewed button on the card)`;
    const reminded = step(done, [{ type: 'note', name: 'review-due', actor: 'sweep', detail: { message } }]);
    const reviewed = step(reminded, [{ type: 'command', name: 'reviewed', actor: LEAD }]);
    const reminder = renderThreadReply(reviewed, reviewed.history.at(-2)!, CTX);
    const review = renderThreadReply(reviewed, reviewed.history.at(-1)!, CTX);
    expect(reminder?.text).toContain(`${done.id}: Break-glass review due`);
    expect(review?.text).toContain(`${done.id}: Break-glass reviewed by <@${LEAD}>`);
  });
});

describe('explain', () => {
  it('says what --break-glass would skip', () => {
    const record = breakGlass('QUEUED');
    const decision = record.decision!;
    const message = renderExplain({ intent: record.intent, target: record.target, plan: record.plan!, decision }, CTX);
    expectValid(message);
    expect(visibleText(message)).toContain('break-glass skips what the rules ask for');
    expect(visibleText(message)).toContain('approval skipped: `prod-needs-a-lead`');
  });
});

describe('ops', () => {
  it('marks break-glass operations in the list, and only those', () => {
    const glass = breakGlass('COMPLETED');
    const plain = { ...recordIn('COMPLETED'), id: 'op-plain1234' };
    const lines = visibleText(renderOps([glass, plain], CTX)).split('\n');
    expect(lines.find((l) => l.includes(glass.id))).toContain(`*BREAK-GLASS* · \`${glass.id}\``);
    expect(lines.find((l) => l.includes(plain.id))).not.toContain('BREAK-GLASS');
  });
});

describe('App Home', () => {
  it('lists the break-glass reviews due with a Reviewed button each, and marks break-glass operations', () => {
    const done = breakGlass('COMPLETED');
    const op = {
      id: done.id,
      kind: done.kind,
      target: done.target,
      state: done.state,
      requester: done.requester,
      createdAt: done.createdAt,
      updatedAt: done.updatedAt,
    };
    const view: HomeView = {
      user: LEAD,
      approvals: [],
      mine: [],
      reviews: [op],
      leases: [],
      freezes: [],
      latest: [{ ...op, breakGlass: true }],
      problems: [],
    };
    const home = renderHome(view, CTX);
    expect(validateBlocks(home.blocks, 'view')).toEqual({ ok: true });
    const json = JSON.stringify(home.blocks);
    expect(json).toContain('Break-glass reviews due* (1)');
    expect(json).toContain(`"action_id":"${REVIEW_ACTION_ID}","value":"${done.id}"`);
    expect(json).toContain(`*BREAK-GLASS* · \`${done.id}\``);
  });
});
