// Reaching approvers (docs/policy.md#reaching-approvers): the policy's notify/remindAfter/escalateAfter/escalateTo, who
// is asked and when, escalation counting as the rules' groups, the DM rounds a history calls for, and the DMs as Block
// Kit.
import { describe, expect, it } from 'vitest';
import { approverDirectory } from '../../../src/app/approvers.js';
import { MembershipSource } from '../../../src/app/context.js';
import { staticPolicy } from '../../../src/app/policy-source.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import { eligibility } from '../../../src/domain/kit/policy/approval.js';
import { dmRounds, dueTimers, effectiveRequirements } from '../../../src/domain/engines/policy/approvers.js';
import { validatePolicy } from '../../../src/domain/engines/policy/validate.js';
import { renderApproverDm, renderClosedDm } from '../../../src/slack/blocks/dm.js';
import { approvalBlockId, renderCard, renderThreadReply } from '../../../src/slack/blocks/index.js';
import { actionsOf, expectValid, visibleText } from '../../support/blocks.js';
import {
  awaitingRecord,
  CTX,
  LEAD,
  oversizedRecord,
  queuedRecord,
  REQUESTER,
  step,
  toState,
} from '../../support/records.js';

function policy(approval: Record<string, unknown>, groups: Record<string, unknown> = {}) {
  return {
    version: 1,
    groups: { leads: { users: ['U0LEAD1'], usergroups: ['S0LEADS'] }, managers: { users: ['U0BOSS'] }, ...groups },
    namespaces: [{ name: 'streaming-prod' }],
    rules: [{ name: 'prod-needs-a-lead', require: { approvals: 1, from: ['leads'] } }],
    approval,
  };
}

const errors = (approval: Record<string, unknown>) => {
  const result = validatePolicy(policy(approval));
  return result.ok ? [] : result.errors;
};

describe('policy: approval.notify, remindAfter, escalateAfter, escalateTo', () => {
  it('defaults to DMs and no reminder or escalation', () => {
    const result = validatePolicy(policy({}));
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.policy.approval).toMatchObject({ notify: 'dm', escalateTo: [] });
    expect(result.policy.approval.remindAfterMs).toBeUndefined();
    expect(result.policy.approval.escalateAfterMs).toBeUndefined();
  });

  it('reads durations like ttl', () => {
    const result = validatePolicy(
      policy({ notify: 'channel', remindAfter: '10m', escalateAfter: '20m', escalateTo: ['managers'] }),
    );
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.policy.approval).toMatchObject({
      notify: 'channel',
      remindAfterMs: 600_000,
      escalateAfterMs: 1_200_000,
      escalateTo: ['managers'],
    });
  });

  it.each([
    [{ escalateAfter: '20m' }, 'approval.escalateAfter: needs escalateTo'],
    [{ escalateAfter: '20m', escalateTo: ['managerz'] }, 'approval.escalateTo[0]: unknown group "managerz"'],
    [{ remindAfter: 'soon' }, 'approval.remindAfter: "soon" is not a duration'],
    [{ notify: 'email' }, 'approval.notify: unknown notify setting "email"'],
  ])('%j is an error naming its path', (approval, message) => {
    expect(errors(approval).join('\n')).toContain(message);
  });
});

const SETTINGS = { remindAfterMs: 600_000, escalateAfterMs: 1_200_000, escalateTo: ['managers'] };

function enteredAt(record: OperationRecord): number {
  return record.history.find((e) => e.name === 'AWAITING_APPROVAL')?.at ?? 0;
}

describe('reminders and escalation fall due once, counted from the first AWAITING_APPROVAL', () => {
  const r = awaitingRecord();
  const t = enteredAt(r);

  it('nothing before remindAfter; the reminder at it; both at escalateAfter', () => {
    expect(dueTimers(r, SETTINGS, t + 599_999)).toEqual([]);
    expect(dueTimers(r, SETTINGS, t + 600_000).map((d) => d.name)).toEqual(['reminder']);
    expect(dueTimers(r, SETTINGS, t + 1_200_000)).toEqual([
      { name: 'reminder', dueAt: t + 600_000 },
      { name: 'escalated', dueAt: t + 1_200_000, groups: ['managers'] },
    ]);
  });

  it('once: not again after its note; never once decided; a re-plan does not restart them', () => {
    const reminded = step(r, [{ type: 'note', name: 'reminder', actor: 'system' }]);
    expect(dueTimers(reminded, SETTINGS, t + 700_000)).toEqual([]);
    expect(dueTimers(queuedRecord(), SETTINGS, t + 9_999_999)).toEqual([]);
    const replanned = toState(reminded, 'AWAITING_APPROVAL', 'system', 'bot');
    expect(dueTimers(replanned, SETTINGS, t + 700_000)).toEqual([]);
    expect(dueTimers(r, { escalateTo: [] }, t + 9_999_999)).toEqual([]);
  });
});

describe('escalation: its groups approve as if they were in the rules', () => {
  it('adds the escalated groups to every requirement', async () => {
    const r = step(awaitingRecord(), [
      { type: 'note', name: 'escalated', actor: 'system', detail: { groups: ['managers'] } },
    ]);
    expect(effectiveRequirements(r)).toEqual([
      { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads', 'managers'] },
    ]);
    const isMember = async (user: string, group: string) => user === 'U0BOSS' && group === 'managers';
    const input = { user: 'U0BOSS', requester: REQUESTER, allowSelfApproval: false, isMember };
    expect(await eligibility({ ...input, requirements: effectiveRequirements(awaitingRecord()) })).toMatchObject({
      eligible: false,
    });
    expect(await eligibility({ ...input, requirements: effectiveRequirements(r) })).toEqual({
      eligible: true,
      countsFor: ['prod-needs-a-lead'],
    });
  });
});

describe('DM rounds', () => {
  it('the request, then its reminder and escalation; none for a decided or re-planned round', () => {
    const r = awaitingRecord();
    const seq = r.history.length;
    const later = step(r, [
      { type: 'note', name: 'reminder', actor: 'system' },
      { type: 'note', name: 'escalated', actor: 'system', detail: { groups: ['managers'] } },
    ]);
    expect(dmRounds(later)).toEqual([
      { seq, kind: 'request', round: seq },
      { seq: seq + 1, kind: 'reminder', round: seq },
      { seq: seq + 2, kind: 'escalation', round: seq },
    ]);
    expect(dmRounds(queuedRecord())).toEqual([]);
    const replanned = toState(later, 'AWAITING_APPROVAL', 'system', 'bot');
    expect(dmRounds(replanned)).toEqual([{ seq: seq + 3, kind: 'request', round: seq + 3 }]);
  });

  it('a break-glass operation: one notice when it leaves ACCEPTED', () => {
    const accepted = awaitingRecord();
    const bg = { ...accepted, intent: { ...accepted.intent, breakGlass: true } } as OperationRecord;
    const first = bg.history[0] as OperationRecord['history'][number];
    const queued = {
      ...bg,
      state: 'QUEUED',
      history: [first, { ...first, seq: 2, name: 'QUEUED', detail: { from: 'ACCEPTED' } }],
    } as OperationRecord;
    expect(dmRounds(queued)).toEqual([{ seq: 2, kind: 'notice', round: 0 }]);
  });
});

describe('who is messaged', () => {
  const members = async (id: string) => (id === 'S0LEADS' ? ['U0LEAD2', 'U0LEAD1', REQUESTER] : []);
  const many = Array.from({ length: 25 }, (_, i) => `U0MANY${i}`);

  it('the rules’ groups and their user groups, requester excluded, each once; escalation after them', async () => {
    const valid = validatePolicy(policy({}));
    if (!valid.ok) throw new Error(valid.errors.join('\n'));
    const directory = approverDirectory(staticPolicy(valid.policy), new MembershipSource(members));
    const r = step(awaitingRecord(), [
      { type: 'note', name: 'escalated', actor: 'system', detail: { groups: ['managers'] } },
    ]);
    const list = await directory.approvers(r);
    expect(list.messaged).toEqual([LEAD, 'U0LEAD2', 'U0BOSS']);
    expect(list.notMessaged).toEqual([]);
    expect([...list.escalationOnly]).toEqual(['U0BOSS']);
  });

  it('at most 20: the others are named', async () => {
    const valid = validatePolicy(policy({}, { leads: { users: many } }));
    if (!valid.ok) throw new Error(valid.errors.join('\n'));
    const list = await approverDirectory(staticPolicy(valid.policy), new MembershipSource(members)).approvers(
      awaitingRecord(),
    );
    expect(list.messaged).toEqual(many.slice(0, 20));
    expect(list.notMessaged).toEqual(many.slice(20));
  });
});

describe('the DMs', () => {
  it('a request carries the card’s Approve and Reject with the plan’s block id, the op id and a link to the card', () => {
    const r = awaitingRecord();
    const dm = renderApproverDm(r, 'request', {
      ...CTX,
      permalink: 'https://slack.example/archives/C0DATAPLATFORM/p1',
    });
    expectValid(dm);
    expect(dm.text).toContain(r.id);
    expect(actionsOf(dm)).toEqual([expect.objectContaining({ block_id: approvalBlockId(r.plan?.digest ?? '') })]);
    expect(JSON.stringify(actionsOf(dm))).toContain('flink_ops_approve');
    expect(JSON.stringify(actionsOf(dm))).not.toContain('flink_ops_cancel');
    expect(visibleText(dm)).toContain('<https://slack.example/archives/C0DATAPLATFORM/p1|Open the card>');
  });

  it('a break-glass notice has no buttons and says what is due', () => {
    const r = queuedRecord({ reason: 'prod is down' });
    const dm = renderApproverDm(r, 'notice', CTX);
    expectValid(dm);
    expect(actionsOf(dm)).toEqual([]);
    expect(dm.text).toContain('BREAK-GLASS');
    expect(visibleText(dm)).toContain('prod is down');
    expect(visibleText(dm)).toContain('review is due after it ends');
  });

  it('once decided: no buttons, the outcome shown', () => {
    const r = awaitingRecord();
    const round = r.history.length;
    const rejected = toState(r, 'REJECTED', LEAD, 'bot');
    const dm = renderClosedDm(rejected, 'request', round, CTX);
    expectValid(dm);
    expect(actionsOf(dm)).toEqual([]);
    expect(dm.text).toContain(`${r.id}: decided: REJECTED`);
  });

  it('the card names who the cap left out; the thread says so too', () => {
    const r = step(awaitingRecord(), [
      {
        type: 'note',
        name: 'approvers-not-messaged',
        actor: 'system',
        detail: { users: ['U0MANY20', 'U0MANY21'], cap: 20 },
      },
    ]);
    expect(visibleText(renderCard(r, CTX))).toContain('Not messaged (DMs are capped): <@U0MANY20>, <@U0MANY21>');
    const entry = r.history.at(-1);
    if (!entry) throw new Error('no entry');
    expect(visibleText(renderThreadReply(r, entry, CTX) ?? { text: '', blocks: [] })).toContain(
      '2 eligible approvers not messaged',
    );
  });

  it.each(['request', 'reminder', 'escalation', 'notice'] as const)(
    '%s stays within Slack’s limits for an oversized record',
    (kind) => {
      const r = oversizedRecord('AWAITING_APPROVAL');
      expectValid(renderApproverDm(r, kind, CTX));
      expectValid(renderClosedDm(r, kind, 1, CTX));
    },
  );
});
