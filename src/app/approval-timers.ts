// Reminders and escalation (docs/policy.md#reaching-approvers): every bot process looks every few seconds at the
// operations awaiting approval and records the reminder or escalation that fell due as a history note; the notifier
// turns the note into the thread reply and the DMs. The timers are the records themselves (the time AWAITING_APPROVAL
// was entered, plus the policy's delay), so they survive any restart; the store's compare-and-set makes each happen
// once, and never once the operation is decided, however many replicas race.
import type { EntryInput, OperationRecord } from '../domain/engines/operation.js';
import { dueTimers, ESCALATED_NOTE, REMINDER_NOTE, type ApprovalTimer } from '../domain/engines/policy/approvers.js';
import { formatDuration } from '../domain/model/duration.js';
import type { ApprovalSettings } from '../domain/engines/policy/schema.js';
import { forOperation, type Logger } from '../log.js';
import type { OperationStore } from './ports/index.js';
import { Periodic } from './periodic.js';
import type { PolicyProvider } from './policy-source.js';

/** Well inside "within 30 s of its time" (docs/policy.md#reaching-approvers). */
export const APPROVAL_TIMER_POLL_MS = 5_000;

export interface ApprovalTimerDeps {
  store: Pick<OperationStore, 'byState' | 'getMany' | 'apply'>;
  policy: PolicyProvider;
  logger: Logger;
  /** The clock records are written with (AWAITING_APPROVAL's `at`, like `expiresAt`, is on it). */
  now: () => number;
}

export interface TimerReport {
  reminded: string[];
  escalated: string[];
}

export class ApprovalTimers {
  private readonly periodic: Periodic<TimerReport>;

  constructor(private readonly deps: ApprovalTimerDeps) {
    this.periodic = new Periodic(() => this.look(), {
      failed: (error) =>
        deps.logger.warn({ err: error }, 'looking for due reminders failed; the next look tries again'),
    });
  }

  start(intervalMs = APPROVAL_TIMER_POLL_MS): void {
    this.periodic.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One look; concurrent calls share the one in progress. */
  run(): Promise<TimerReport> {
    return this.periodic.run();
  }

  private async look(): Promise<TimerReport> {
    const report: TimerReport = { reminded: [], escalated: [] };
    const state = await this.deps.policy.current();
    if (!state.ok) return report;
    const settings = state.policy.approval;
    if (settings.remindAfterMs === undefined && settings.escalateAfterMs === undefined) return report;
    const now = this.deps.now();
    const records = await this.deps.store.getMany(await this.deps.store.byState('AWAITING_APPROVAL'));
    for (const record of records) {
      for (const timer of dueTimers(record, settings, now)) {
        if (await this.fire(record.id, timer, settings))
          (timer.name === 'reminder' ? report.reminded : report.escalated).push(record.id);
      }
    }
    return report;
  }

  /** Appends the note unless it is already there or the operation was decided meanwhile (checked in the commit). */
  private async fire(opId: string, timer: ApprovalTimer, settings: ApprovalSettings): Promise<boolean> {
    const now = this.deps.now();
    const result = await this.deps.store.apply(opId, (current) => {
      const still = dueTimers(current, settings, now).some((t) => t.name === timer.name);
      return still ? { entries: [entryFor(current, timer)] } : { refuse: 'no longer due' };
    });
    if (result.ok)
      forOperation(this.deps.logger, opId).info(
        { timer: timer.name },
        timer.name === 'reminder' ? 'approvers reminded' : 'approval escalated',
      );
    return result.ok;
  }
}

function entryFor(record: OperationRecord, timer: ApprovalTimer): EntryInput {
  const waited = formatDuration(
    Math.max(
      0,
      timer.dueAt -
        (record.history.find((e) => e.type === 'state' && e.name === 'AWAITING_APPROVAL')?.at ?? timer.dueAt),
    ),
  );
  if (timer.name === REMINDER_NOTE)
    return { type: 'note', name: REMINDER_NOTE, actor: 'system', detail: { after: waited } };
  return { type: 'note', name: ESCALATED_NOTE, actor: 'system', detail: { after: waited, groups: timer.groups } };
}
