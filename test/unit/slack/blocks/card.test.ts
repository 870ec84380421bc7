// The operation card (src/slack/blocks/card.ts): its one state name, the buttons that still make sense, the approval
// block id, what an awaiting and a terminal card show, and the caveats under the verdict.
import { describe, expect, it } from 'vitest';
import { OPERATION_STATES, type OperationState } from '../../../../src/domain/model/lifecycle.js';
import {
  ACTION_IDS,
  approvalBlockId,
  digestPrefixFromBlockId,
  renderCard,
  stateNameCount,
} from '../../../../src/slack/blocks/index.js';
import { actionsOf, buttonsOf, expectValid, visibleText } from '../../../support/blocks.js';
import {
  CTX,
  LEAD,
  OP_ID,
  recordIn,
  REQUESTER,
  step,
  T0,
  toState,
  FREEZE_RULE_REASON,
} from '../../../support/records.js';

const cards = OPERATION_STATES.map((state) => [state, recordIn(state)] as const);

describe('the card names its state exactly once and no other state', () => {
  it.each(cards)('%s', (state, record) => {
    const card = renderCard(record, CTX);
    // Over the whole message: text, blocks, block ids, buttons.
    expect(stateNameCount(JSON.stringify(card))).toEqual({ [state]: 1 });
    expect(visibleText(card)).toContain(`*State: ${state}*`);
    expectValid(card);
  });

  it('state names inside user text, check messages and evidence are not state names on the card', () => {
    const noisy = recordIn('COMPLETED', { reason: 'last try FAILED, then DENIED; now QUEUED <!channel>' });
    const ev = noisy.evidence as { summary: string };
    const record = { ...noisy, evidence: { ...ev, summary: `${ev.summary}; snapshot COMPLETED, job FAILED before` } };
    const card = renderCard(record, CTX);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ COMPLETED: 1 });
    expect(visibleText(card)).toContain('last try failed, then denied; now queued &lt;!channel&gt;');
  });
});

describe('buttons: only those that still make sense', () => {
  const expected: Record<OperationState, string[]> = {
    ACCEPTED: [ACTION_IDS.cancel],
    AWAITING_APPROVAL: [ACTION_IDS.approve, ACTION_IDS.reject, ACTION_IDS.cancel],
    SCHEDULED: [ACTION_IDS.cancel],
    QUEUED: [ACTION_IDS.cancel],
    DENIED: [],
    REJECTED: [],
    EXPIRED: [],
    CANCELLED: [],
    SUBMITTING: [],
    UNCERTAIN: [],
    SUBMITTED: [],
    COMPLETED: [],
    FAILED: [],
    TIMED_OUT: [],
    ABORTED: [],
  };
  it.each(cards)('%s', (state, record) => {
    const card = renderCard(record, CTX);
    const buttons = buttonsOf(card);
    expect(buttons.map((b) => b.action_id)).toEqual(expected[state]);
    for (const b of buttons) expect(b.value).toBe(record.id);
    const actions = actionsOf(card);
    expect(actions).toHaveLength(expected[state].length > 0 ? 1 : 0);
    for (const a of actions) expect(a.block_id).toBe(`approval:${record.plan?.digest.slice(0, 16)}`);
  });

  it('approve is primary, reject danger, cancel plain', () => {
    const styles = buttonsOf(renderCard(recordIn('AWAITING_APPROVAL'), CTX)).map((b) => [b.text.text, b.style]);
    expect(styles).toEqual([
      ['Approve', 'primary'],
      ['Reject', 'danger'],
      ['Cancel', undefined],
    ]);
  });
});

describe('approvalBlockId / digestPrefixFromBlockId', () => {
  const digest = 'ab'.repeat(32);
  it('round-trips the first 16 hex of the digest', () => {
    expect(approvalBlockId(digest)).toBe('approval:abababababababab');
    expect(digestPrefixFromBlockId(approvalBlockId(digest))).toBe('abababababababab');
  });
  it.each(['approval:', 'approval:xyz', 'approval:ABABABABABABABAB', 'state', `approval:${'a'.repeat(17)}`, ''])(
    'no digest in block id %j',
    (id) => expect(digestPrefixFromBlockId(id)).toBeUndefined(),
  );
  it('refuses something that is not a digest, saying so', () => {
    expect(() => approvalBlockId('not-a-digest')).toThrow(/not a plan digest/);
  });
});

describe('what the awaiting card shows', () => {
  const record = recordIn('AWAITING_APPROVAL', { reason: 'backlog is growing' });
  const card = renderCard(record, CTX);
  const text = visibleText(card);

  it('operation id, requester, target, environment, reason, in text and blocks', () => {
    expect(card.text).toContain(OP_ID);
    expect(text).toContain(OP_ID);
    expect(text).toContain(`<@${REQUESTER}>`);
    expect(text).toContain('`streaming-prod/orders-enricher`');
    expect(text).toContain('*Environment*\nproduction');
    expect(text).toContain('*Reason:* backlog is growing');
  });

  it('the plan as a field-by-field diff', () => {
    expect(text).toContain('`spec.job.parallelism: 4 → 8`');
  });

  it('the essential first: the state, the change in one line, what is next', () => {
    expect(text).toMatch(/State: AWAITING_APPROVAL\*\nChange: `spec\.job\.parallelism: 4 → 8`\nNext: /);
  });

  it('checks that need a look with their mark and message; those that passed folded into one line', () => {
    const checks = record.decision?.checks ?? [];
    const passed = checks.filter((c) => c.outcome === 'pass');
    for (const c of checks.filter((x) => x.outcome !== 'pass'))
      expect(text).toContain(`*${c.outcome}* \`${c.name}\`: ${c.message}`);
    for (const c of passed) expect(text).not.toContain(`*pass* \`${c.name}\``);
    expect(passed.length).toBeGreaterThan(0);
    expect(text).toContain(`:white_check_mark: ${passed.length} check${passed.length === 1 ? '' : 's'} passed: \``);
  });

  it('which rule requires whom, how many are still needed, and the expiry time', () => {
    expect(text).toContain('`prod-needs-a-lead`: 1 approval from *leads* — *1 more needed*');
    const expiry = Math.floor((record.expiresAt ?? 0) / 1000);
    expect(text).toContain(`Approval window closes <!date^${expiry}^`);
  });

  it('given approvals are listed and counted', () => {
    const twoNeeded = {
      ...record,
      decision: { ...record.decision!, requirements: [{ rule: 'two-leads', approvals: 2, from: ['leads'] }] },
    } as typeof record;
    const voted = step(twoNeeded, [{ type: 'approval', name: 'approved', actor: LEAD }], {
      approvals: [{ user: LEAD, at: T0 + 5000, planDigest: record.plan!.digest, countsFor: ['two-leads'] }],
    });
    const t = visibleText(renderCard(voted, CTX));
    expect(t).toContain('`two-leads`: 2 approvals from *leads* — *1 more needed*');
    expect(t).toContain(`<@${LEAD}> approved <!date^${(T0 + 5000) / 1000}^`);
  });

  it('user text is escaped; the mentions we write stay mentions', () => {
    const evil = renderCard(
      recordIn('AWAITING_APPROVAL', { reason: '<!channel> & <https://evil.example|click> <@U0BOB>' }),
      CTX,
    );
    expect(visibleText(evil)).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt; <@U0BOB>');
  });
});

describe('terminal cards', () => {
  it('DENIED shows every reason', () => {
    const text = visibleText(renderCard(recordIn('DENIED'), CTX));
    expect(text).toContain(`• ${FREEZE_RULE_REASON}`);
    expect(text).toMatch(/• frozen by <@U0BOB> 2h ago: "black friday &lt;!channel&gt;"; it must be unlocked first/);
  });

  it('evidence is a count and ONE summary line; the criteria go to the thread', () => {
    const record = recordIn('COMPLETED');
    const ev = record.evidence as { summary: string; verdict: { criteria: { name: string }[] } };
    const card = renderCard(record, CTX);
    const evidence = card.blocks
      .map((b) => (b.text as { text?: string } | undefined)?.text ?? '')
      .find((t) => t.startsWith('*Evidence*'));
    const n = ev.verdict.criteria.length;
    expect(evidence?.split('\n')).toEqual([`*Evidence* (${n} criteria; each in the thread)`, ev.summary]);
    expect(ev.summary).toMatch(new RegExp(`^${n} of ${n} criteria met; proof depth: `));
    for (const c of ev.verdict.criteria) expect(visibleText(card)).not.toContain(`\`${c.name}\``);
  });

  it('while verifying, the card counts the criteria met so far', () => {
    const submitted = recordIn('SUBMITTED');
    const seen = step(submitted, [
      {
        type: 'evidence',
        name: 'job-running',
        actor: 'worker',
        detail: {
          criteria: [
            { name: 'job-running', met: true, observed: 'RUNNING', source: 'status.jobStatus.state', at: T0 },
            {
              name: 'jobmanager-ready',
              met: true,
              observed: 'READY',
              source: 'status.jobManagerDeploymentStatus',
              at: T0,
            },
          ],
        },
      },
    ]);
    const card = renderCard(seen, CTX);
    expect(visibleText(card)).toContain('2 criteria met so far');
    expect(stateNameCount(JSON.stringify(card))).toEqual({ SUBMITTED: 1 });
  });

  it.each([
    ['ABORTED', 'target changed since the plan; request again'],
    ['REJECTED', 'not during the sale'],
    ['CANCELLED', 'requested by mistake'],
  ] as const)('%s says why and who', (state, why) => {
    const record = recordIn(state);
    const text = visibleText(renderCard(record, CTX));
    const last = record.history[record.history.length - 1]!;
    expect(text).toContain(`*Why:* ${why} (`);
    expect(text).toContain(last.actor.startsWith('U') ? `<@${last.actor}>` : `_${last.actor}_`);
  });

  it('a card of a record re-planned back to approval shows the new diff and no stale approvals', () => {
    const queued = recordIn('QUEUED');
    const back = toState(queued, 'AWAITING_APPROVAL', 'worker', 'worker', undefined, {
      plan: {
        ...queued.plan!,
        revision: 2,
        digest: 'cd'.repeat(32),
        diff: [{ path: 'spec.job.parallelism', before: 6, after: 8 }],
      },
      expiresAt: T0 + 3_600_000,
    });
    const card = renderCard(back, CTX);
    const text = visibleText(card);
    expect(text).toContain('*Plan (revision 2, upgrade mode savepoint)*');
    expect(text).toContain('`spec.job.parallelism: 6 → 8`');
    expect(text).toContain('*1 more needed*');
    expect(actionsOf(card)[0]?.block_id).toBe('approval:cdcdcdcdcdcdcdcd');
  });
});

describe('caveats under the verdict (what changes the meaning of COMPLETED)', () => {
  const withCaveats = (caveats: unknown[]) => {
    const record = structuredClone(recordIn('COMPLETED'));
    const last = record.history[record.history.length - 1]!;
    last.detail = { ...last.detail, caveats };
    return record;
  };
  const CAVEATS = [
    'the operator fell back to last-state (the job was RESTARTING): no savepoint was taken; restored from checkpoint s3://cp/chk-41',
    'Sink: results keeps parallelism 1, set in the job',
  ];

  it('stands right under the state, one line each, escaped', () => {
    const card = renderCard(withCaveats([...CAVEATS, 'a <b> & c']), CTX);
    const at = card.blocks.findIndex((b) =>
      (b.text as { text?: string } | undefined)?.text?.startsWith('*State: COMPLETED*'),
    );
    expect(card.blocks[at + 1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*What this means*\n:warning: ${CAVEATS[0]}\n:warning: ${CAVEATS[1]}\n:warning: a &lt;b&gt; &amp; c`,
      },
    });
    expect(stateNameCount(JSON.stringify(card))).toEqual({ COMPLETED: 1 });
    expectValid(card);
  });

  it('keeps within limits: five caveats of at most 300 characters, the rest counted', () => {
    const long = 'x'.repeat(400);
    const card = renderCard(withCaveats([long, 'b', 'c', 'd', 'e', 'f', 'g']), CTX);
    const text = card.blocks
      .map((b) => (b.text as { text?: string } | undefined)?.text ?? '')
      .find((t) => t.startsWith('*What this means*'))!;
    const lines = text.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toBe(`:warning: ${'x'.repeat(300)} …and 100 more characters`);
    expect(lines[6]).toBe('_…and 2 more: each in the thread_');
    expectValid(card);
  });

  it('no section without caveats, or before COMPLETED', () => {
    expect(visibleText(renderCard(withCaveats([]), CTX))).not.toContain('What this means');
    expect(visibleText(renderCard(recordIn('SUBMITTED'), CTX))).not.toContain('What this means');
  });
});
