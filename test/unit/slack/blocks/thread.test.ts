// The card's thread replies (src/slack/blocks/thread.ts): which entries get one, the milestones, commands and notes.
import { describe, expect, it } from 'vitest';
import { formatObserved } from '../../../../src/domain/kit/evidence/report.js';
import type { Criterion } from '../../../../src/domain/kit/evidence/types.js';
import type { HistoryEntry, OperationRecord } from '../../../../src/domain/engines/operation.js';
import { OPERATION_STATES } from '../../../../src/domain/model/lifecycle.js';
import { carriedBy, renderThreadReply, threadReplyWanted } from '../../../../src/slack/blocks/index.js';
import { expectValid, visibleText } from '../../../support/blocks.js';
import { CTX, LEAD, OP_ID, recordIn, REQUESTER, step, toState } from '../../../support/records.js';

const last = (r: OperationRecord): HistoryEntry => r.history[r.history.length - 1]!;
const replyTo = (r: OperationRecord, e: HistoryEntry = last(r)) => {
  const reply = renderThreadReply(r, e, CTX);
  if (!reply) throw new Error(`no reply for entry ${e.seq} (${e.type} ${e.name})`);
  expectValid(reply);
  expect(reply.text.startsWith(`${r.id}: `)).toBe(true);
  // Every reply ends with a context line naming the operation, so a thread read later names it too.
  const id = reply.blocks.at(-1);
  expect(id).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: `\`${r.id}\`` }] });
  return visibleText({ ...reply, blocks: reply.blocks.slice(0, -1) });
};

describe('which entries get a reply', () => {
  const wantedStates = [
    'SCHEDULED',
    'SUBMITTED',
    'COMPLETED',
    'FAILED',
    'TIMED_OUT',
    'ABORTED',
    'REJECTED',
    'EXPIRED',
    'CANCELLED',
    'DENIED',
  ];
  it.each(OPERATION_STATES)('state %s', (state) => {
    const entry = last(recordIn(state));
    expect(threadReplyWanted(entry)).toBe(wantedStates.includes(state));
    expect(renderThreadReply(recordIn(state), entry, CTX) === undefined).toBe(!wantedStates.includes(state));
  });

  // Approvals and the criteria met so far show on the card; an uneventful operation's thread is submitted + verdict.
  it.each([
    ['approval', false],
    ['waiting', true],
    ['replanned', true],
    ['evidence', false],
    ['command', true],
    ['note', true],
    ['retry', false],
  ] as const)('%s → %s', (type, wanted) => {
    expect(threadReplyWanted({ seq: 9, type, name: 'x', actor: 'worker', at: 0, detail: {} })).toBe(wanted);
  });

  it('back to approval from the queue is a re-plan the thread shows; the first request is not', () => {
    const back = toState(recordIn('QUEUED'), 'AWAITING_APPROVAL', 'worker', 'worker');
    expect(threadReplyWanted(last(back))).toBe(true);
    expect(replyTo(back)).toMatch(
      /Re-planned.*\n`spec\.job\.parallelism: 4 → 8`\nIt needs approval again: earlier approvals no longer count \(needed: 1 approval from leads\)/,
    );
    expect(threadReplyWanted(last(recordIn('AWAITING_APPROVAL')))).toBe(false);
  });
});

describe('milestone replies', () => {
  it('an approval, given or refused, gets no reply of its own: the card shows it', () => {
    const queued = recordIn('QUEUED');
    const approval = queued.history.find((e) => e.type === 'approval')!;
    expect(renderThreadReply(queued, approval, CTX)).toBeUndefined();
    const rejected = recordIn('REJECTED');
    expect(replyTo(rejected)).toMatch(new RegExp(`^:no_entry_sign: \\*REJECTED\\* by <@${LEAD}>`));
  });

  it('waiting behind another operation names it', () => {
    const r = recordIn('SUBMITTING');
    expect(
      replyTo(
        r,
        r.history.find((e) => e.type === 'waiting'),
      ),
    ).toContain('Waiting behind op-first1');
  });

  it('re-planned after an earlier operation, with the new diff', () => {
    const r = step(recordIn('QUEUED'), [
      {
        type: 'replanned',
        name: 'replanned',
        actor: 'worker',
        detail: { after: 'op-prev01', revision: 2, diff: [{ path: 'spec.job.parallelism', before: 6, after: 8 }] },
      },
    ]);
    expect(replyTo(r)).toBe(
      ':arrows_counterclockwise: Re-planned after op-prev01 (revision 2): the target was changed by earlier operations of this bot; the new diff:\n`spec.job.parallelism: 6 → 8`',
    );
  });

  it('submitted, with the generation, beginning with who approved when approvals were given', () => {
    expect(replyTo(recordIn('SUBMITTED'))).toBe(
      ':rocket: Approved by <@U0LEAD1>; *SUBMITTED* by _worker_: the API accepted the change; generation 4. Watching the operator for evidence.',
    );
    const unapproved = { ...recordIn('SUBMITTED'), approvals: [] };
    expect(replyTo(unapproved)).toBe(
      ':rocket: *SUBMITTED* by _worker_: the API accepted the change; generation 4. Watching the operator for evidence.',
    );
  });

  it('the verdict lists every criterion with its value, source and time; an observation gets no reply', () => {
    const r = recordIn('COMPLETED');
    const observation = r.history.find((e) => e.type === 'evidence')!;
    expect(renderThreadReply(r, observation, CTX)).toBeUndefined();
    const text = replyTo(r);
    const criteria = (r.evidence as { verdict: { criteria: Criterion[] } }).verdict.criteria;
    expect(criteria.length).toBeGreaterThan(3);
    expect(text).toContain('*Criteria:*');
    for (const c of criteria) expect(text).toContain(`• \`${c.name}\`: ${formatObserved(c.observed)} (${c.source}, `);
  });

  it.each(['COMPLETED', 'FAILED', 'TIMED_OUT'] as const)(
    '%s says, below its first line, who submitted the change, when, and the generation',
    (state) => {
      const r = recordIn(state);
      const [head, second] = replyTo(r).split('\n');
      expect(head).toContain(`*${state}*`);
      expect(second).toMatch(
        /^_Approved by <@U0LEAD1>; submitted by _worker_ <!date\^\d+\^.*: the API accepted the change; generation 4\._$/,
      );
    },
  );

  it('an outcome of a change never submitted names no submission', () => {
    const refused = toState(recordIn('SUBMITTING'), 'FAILED', 'worker', 'worker', { reason: 'the API refused it' });
    expect(replyTo(refused)).not.toMatch(/submitted by/i);
  });

  it('COMPLETED with proof depth: verified and not verified', () => {
    const r = recordIn('COMPLETED');
    const text = replyTo(r);
    const v = (r.evidence as { verdict: { proof: { verified: string[]; notVerified: string[] } } }).verdict;
    expect(text).toMatch(/^:white_check_mark: \*COMPLETED\*: (\d+) of \1 evidence criteria met on one observation\./);
    expect(text).toContain('*Proof depth, verified:*');
    expect(text).toContain(`*Not verified:*\n${v.proof.notVerified.map((n) => `• ${n}`).join('\n')}`);
    for (const line of v.proof.verified) expect(text).toContain(`• ${line}`);
  });

  it('FAILED with the failure evidence; a rollback named as a rollback', () => {
    const r = recordIn('FAILED');
    const text = replyTo(r);
    expect(text).toMatch(/^:leftwards_arrow_with_hook: \*FAILED\*: the operator \*rolled back\* the change: /);
    expect(text).toContain('• status.lifecycleState: ROLLED_BACK');
    const apiError = toState(recordIn('SUBMITTING'), 'FAILED', 'worker', 'worker', {
      reason: 'the API refused the patch: 422 spec.job.parallelism: Invalid value',
    });
    expect(replyTo(apiError)).toBe(':x: *FAILED*: the API refused the patch: 422 spec.job.parallelism: Invalid value');
  });

  it('TIMED_OUT with unmet criteria and blocking warnings', () => {
    const text = replyTo(recordIn('TIMED_OUT'));
    // Each with the value last seen, where it was read, and when (a Slack date).
    expect(text).toMatch(
      /\*Unmet criteria \(last seen\):\*\n• `jobmanager-ready`: DEPLOYING \(status\.jobManagerDeploymentStatus, <!date\^\d+\^[^>]+>\)\n• `job-running`: RECONCILING \(status\.jobStatus\.state, <!date\^\d+\^[^>]+>\)/,
    );
    // The pull failure is transient (the operator may recover it): it blocks, with when it would turn FAILED.
    expect(text).toMatch(
      /\*Blocking warnings:\*\n• blocked by ImagePullBackOff: Back-off pulling image; FAILED if it persists until \d\d:\d\d:\d\d UTC/,
    );
  });

  it.each([
    [
      'ABORTED',
      ':no_entry: *ABORTED*: target changed since the plan; request again. Nothing was submitted by this operation.',
    ],
    ['REJECTED', `:no_entry_sign: *REJECTED* by <@${LEAD}>: not during the sale`],
    ['CANCELLED', `:wastebasket: *CANCELLED* by <@${REQUESTER}>: requested by mistake`],
  ] as const)('%s with why', (state, expected) => {
    expect(replyTo(recordIn(state))).toBe(expected);
  });

  it('EXPIRED and DENIED with why', () => {
    expect(replyTo(recordIn('EXPIRED'))).toMatch(
      /^:hourglass: \*EXPIRED\*: no decision before <!date\^\d+\^.*> \(still needed: 1 approval from leads\)\./,
    );
    expect(replyTo(recordIn('DENIED'))).toMatch(
      /^:no_entry: \*DENIED\* by policy:\n• No production changes on Friday afternoons \(rule friday-freeze\)\n• frozen by <@U0BOB>/,
    );
  });
});

describe('a reply another carries (carriedBy)', () => {
  const submittedOf = (r: OperationRecord) => r.history.find((e) => e.type === 'state' && e.name === 'SUBMITTED')!;

  it.each(['COMPLETED', 'FAILED', 'TIMED_OUT'] as const)(
    'SUBMITTED is carried by the %s reply right after it',
    (state) => {
      const r = recordIn(state);
      expect(carriedBy(r, submittedOf(r))).toEqual(last(r));
    },
  );

  it('SUBMITTED is carried by nothing while the outcome is not in, or when a reply of its own comes between', () => {
    expect(carriedBy(recordIn('SUBMITTED'), last(recordIn('SUBMITTED')))).toBeUndefined();
    const base = recordIn('SUBMITTED');
    const noted = step(base, [{ type: 'note', name: 'stop-retried', actor: 'worker', detail: {} }]);
    const r = toState(noted, 'COMPLETED', 'worker', 'worker');
    expect(carriedBy(r, submittedOf(r))).toBeUndefined();
  });

  it('no other entry is ever left out for a later one', () => {
    const r = recordIn('COMPLETED');
    for (const e of r.history.filter((x) => !(x.type === 'state' && x.name === 'SUBMITTED')))
      expect(carriedBy(r, e)).toBeUndefined();
  });
});

describe('commands and notes', () => {
  const base = recordIn('AWAITING_APPROVAL');
  it.each([
    [
      { name: 'lock', actor: 'U0BOB', detail: { reason: 'incident 42' } },
      'Target frozen by <@U0BOB>: incident 42. New operations on it are refused by policy until it is unlocked.',
    ],
    [{ name: 'unlock', actor: 'U0BOB', detail: {} }, 'Target unfrozen by <@U0BOB>.'],
    [{ name: 'cancel', actor: REQUESTER, detail: {} }, `<@${REQUESTER}> asked to cancel this operation.`],
  ])('command %o', (entry, expected) => {
    const r = step(base, [{ type: 'command', ...entry }]);
    expect(replyTo(r)).toBe(`:memo: ${expected}`);
  });

  it('stuck: re-enqueued 5 times; an operator should look', () => {
    const r = step({ ...recordIn('QUEUED'), reenqueues: 5 }, [
      { type: 'note', name: 'stuck', actor: 'sweep', detail: { reenqueues: 5 } },
    ]);
    expect(replyTo(r)).toBe(':warning: Stuck: re-enqueued 5 times; an operator should look.');
  });

  it('detail is never dumped: unknown fields stay out of the reply', () => {
    const r = step(base, [
      { type: 'note', name: 'hint', actor: 'worker', detail: { message: 'look at <this>', token: 'xoxb-secret' } },
    ]);
    const text = replyTo(r);
    expect(text).toBe(':warning: hint: look at &lt;this&gt;');
    expect(text).not.toContain('xoxb');
  });

  it('every reply of every realistic history carries the operation id in its text', () => {
    for (const state of OPERATION_STATES) {
      const r = recordIn(state);
      for (const e of r.history.filter(threadReplyWanted))
        expect(renderThreadReply(r, e, CTX)?.text).toMatch(new RegExp(`^${OP_ID}: `));
    }
  });
});
