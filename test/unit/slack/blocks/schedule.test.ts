// How a scheduled operation reads (docs/policy.md#scheduled-operations): the card's state line, its thread replies,
// Home and `op`.
import { describe, expect, it } from 'vitest';
import { renderCard, renderOp, renderThreadReply } from '../../../../src/slack/blocks/index.js';
import { renderHome } from '../../../../src/slack/blocks/home.js';
import { renderApproverDm } from '../../../../src/slack/blocks/dm.js';
import { runsLine, zonedTime } from '../../../../src/slack/blocks/schedule.js';
import { stateNameCount } from '../../../../src/slack/blocks/text.js';
import { RESCHEDULED } from '../../../../src/domain/kit/schedule/resolve.js';
import { expectValid, visibleText } from '../../../support/blocks.js';
import { CTX, recordIn, step } from '../../../support/records.js';

const at = (iso: string) => Date.parse(iso);

describe('runsLine', () => {
  const now = at('2026-12-01T10:00:00Z');
  it('says the time in its zone, with the date when it is not today there', () => {
    expect(runsLine({ runAt: at('2026-12-01T12:00:00Z'), zone: 'Europe/Berlin' }, now)).toBe(
      'runs at 13:00 Europe/Berlin',
    );
    expect(runsLine({ runAt: at('2026-12-02T01:00:00Z'), zone: 'Europe/Berlin' }, now)).toBe(
      'runs at Wed 2 Dec 2026 02:00 Europe/Berlin',
    );
    // 23:30 UTC on the 1st is already the 2nd in Berlin, but still today in New York.
    expect(zonedTime(at('2026-12-01T23:30:00Z'), 'America/New_York', now)).toBe('18:30 America/New_York');
  });

  it('names the window and its next opening, or that it is open until its close', () => {
    const window = {
      runAt: at('2026-12-02T01:00:00Z'),
      zone: 'Europe/Berlin',
      window: 'nightly',
      closesAt: at('2026-12-02T03:01:00Z'),
    };
    expect(runsLine(window, now)).toBe('runs in window nightly (next opening Wed 2 Dec 2026 02:00 Europe/Berlin)');
    expect(runsLine(window, at('2026-12-02T01:30:00Z'))).toBe(
      'runs in window nightly (open now, until 04:01 Europe/Berlin)',
    );
  });
});

const RUN_AT = Date.parse('2026-12-01T12:30:00Z');

describe('a scheduled operation waiting for approval', () => {
  const record = {
    ...recordIn('AWAITING_APPROVAL'),
    schedule: { runAt: RUN_AT, firstRunAt: RUN_AT, zone: 'UTC' },
  };
  const now = Date.parse('2026-12-01T10:00:00Z');

  it('card and approver DM say when it runs once approved, the card naming its state once', () => {
    const card = renderCard(record, { ...CTX, now });
    expectValid(card);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ AWAITING_APPROVAL: 1 });
    expect(visibleText(card)).toContain('State: AWAITING_APPROVAL* — runs at 12:30 UTC once approved');
    const dm = renderApproverDm(record, 'request', { ...CTX, now });
    expectValid(dm);
    expect(visibleText(dm)).toContain(':calendar: It runs at 12:30 UTC once approved.');
    const unscheduled = recordIn('AWAITING_APPROVAL');
    expect(visibleText(renderApproverDm(unscheduled, 'request', CTX))).not.toContain('once approved');
  });
});

describe('a SCHEDULED operation', () => {
  const record = recordIn('SCHEDULED');

  it('card: State: SCHEDULED once, when it runs, and the Cancel button', () => {
    const card = renderCard(record, CTX);
    expectValid(card);
    expect(stateNameCount(JSON.stringify(card))).toEqual({ SCHEDULED: 1 });
    expect(visibleText(card)).toMatch(/State: SCHEDULED\* — runs in window nightly \(next opening .+ Europe\/Berlin\)/);
    expect(JSON.stringify(card)).toContain('flink_ops_cancel');
  });

  it('thread: a reply when it is scheduled, when it is moved to the next opening, and when its time comes', () => {
    const scheduledReply = renderThreadReply(record, record.history.at(-1)!, CTX);
    expect(scheduledReply && visibleText(scheduledReply)).toMatch(
      /:calendar: \*SCHEDULED\*: runs in window nightly \(next opening .+\)\. It holds no lease/,
    );
    const moved = step(record, [
      {
        type: 'note',
        name: RESCHEDULED,
        actor: 'worker',
        detail: {
          reason: 'window nightly closed before it could start; moved to its next opening',
          runAt: record.schedule!.runAt + 86_400_000,
          zone: 'Europe/Berlin',
          window: 'nightly',
        },
      },
    ]);
    const movedReply = renderThreadReply(moved, moved.history.at(-1)!, CTX);
    expect(movedReply && visibleText(movedReply)).toMatch(
      /^:calendar: Re-scheduled: runs in window nightly \(next opening .+\) \(window nightly closed before it could start; moved to its next opening\)/,
    );
    const queued = step(record, [{ type: 'state', name: 'QUEUED', actor: 'worker', role: 'worker' }]);
    const queuedReply = renderThreadReply(queued, queued.history.at(-1)!, CTX);
    expect(queuedReply?.text).toContain(`${record.id}: Its scheduled time came`);
  });

  it('Home: their scheduled operation with when it runs', () => {
    const { id, kind, target, state, requester, createdAt, updatedAt } = record;
    const mine = {
      id,
      kind,
      target,
      state,
      requester,
      createdAt,
      updatedAt,
      schedule: { runAt: CTX.now + 3_600_000, zone: 'UTC' },
    };
    const home = renderHome(
      { user: requester, approvals: [], mine: [mine], leases: [], freezes: [], latest: [], problems: [] },
      CTX,
    );
    expect(JSON.stringify(home.blocks)).toMatch(
      /Your operations in flight and scheduled.*\*SCHEDULED\*.* · runs at \d\d:\d\d UTC/,
    );
  });

  it('op: a Schedule line', () => {
    expect(visibleText(renderOp(record, CTX))).toMatch(/\*Schedule:\* runs in window nightly/);
  });
});
