// Verifying an audit export line by line: each line an event, seq without gaps, each prevHash the hash before it, each
// hash its content's; the first bad line is named with a reason a person can act on (docs/audit.md#verifying-an-export).
import { GENESIS_HASH, hashOf, readEvent, type AuditEvent } from './event.js';

export type ChainResult =
  /** `first` and `last`: the seq of the first and the last event. */
  | { ok: true; count: number; first: number; last: number }
  /** `line`: 1-based, the first line that is not as it should be. */
  | { ok: false; line: number; reason: string };

type Failure = Extract<ChainResult, { ok: false }>;
/** A gap found at `line`; the next line tells whether events are missing or out of order. */
type Gap = { line: number; before: number; seq: number };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The line as an event, or why it is not one. */
function eventOf(line: string): { event: AuditEvent; raw: Omit<AuditEvent, 'hash'> } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    const trimmed = line.trim();
    const cut = trimmed.startsWith('{') && !trimmed.endsWith('}');
    return { problem: cut ? 'the event is cut off (a truncated file?)' : 'not JSON (a corrupted line?)' };
  }
  const read = readEvent(raw);
  return read.ok ? { event: read.event, raw: raw as AuditEvent } : { problem: `not an audit event: ${read.problem}` };
}

/**
 * Checks an export fed to it one line at a time (`push`), so a file of any size streams through; `result` ends it.
 * Blank lines may only end the file. An export may start after seq 1, its first prevHash then taken as given.
 */
export class ChainChecker {
  private lineNo = 0;
  private count = 0;
  private first = 0;
  private last: AuditEvent | undefined;
  private blankAt: number | undefined;
  private gap: Gap | undefined;
  private failure: Failure | undefined;

  /** Whether a bad line has been found (later lines no longer matter). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  push(line: string): void {
    if (this.failure) return;
    this.lineNo += 1;
    if (line.trim() === '') {
      this.blankAt ??= this.lineNo;
      return;
    }
    if (this.gap) return this.settleGap(line);
    if (this.blankAt !== undefined) return this.fail(this.blankAt, 'a blank line before more events');
    const parsed = eventOf(line);
    if ('problem' in parsed) return this.fail(this.lineNo, parsed.problem);
    const { event, raw } = parsed;
    // The hash first: an edited line, whatever field was changed, is named as edited.
    if (hashOf(raw) !== event.hash) return this.fail(this.lineNo, 'hash does not match its content (edited?)');
    const problem = this.linkProblem(event);
    if (problem === 'gap') {
      this.gap = { line: this.lineNo, before: this.last?.seq ?? 0, seq: event.seq };
      return;
    }
    if (problem) return this.fail(this.lineNo, problem);
    this.count += 1;
    if (this.count === 1) this.first = event.seq;
    this.last = event;
  }

  result(): ChainResult {
    if (this.gap) this.settleGap(undefined);
    if (this.failure) return this.failure;
    if (!this.last) return { ok: false, line: 1, reason: 'no events (the file is empty)' };
    return { ok: true, count: this.count, first: this.first, last: this.last.seq };
  }

  /** Why `event` cannot follow the line before it: `gap` when seq jumps ahead (settled on the next line). */
  private linkProblem(event: AuditEvent): string | undefined {
    const prev = this.last;
    if (!prev) {
      return event.seq === 1 && event.prevHash !== GENESIS_HASH
        ? 'seq 1 starts the chain, but its prevHash is not the genesis hash (64 zeros)'
        : undefined;
    }
    const previousLine = this.lineNo - 1;
    if (event.seq === prev.seq) return `seq ${event.seq} again, as on line ${previousLine} (a duplicate?)`;
    if (event.seq < prev.seq) return `seq ${event.seq} follows ${prev.seq}: out of order (reordered?)`;
    if (event.seq > prev.seq + 1) return 'gap';
    if (event.prevHash !== prev.hash) {
      return `prevHash is not the hash of line ${previousLine} (reordered or removed?)`;
    }
    return undefined;
  }

  /** A jump in seq: out of order when the next line holds a seq from the gap, else events are missing. */
  private settleGap(next: string | undefined): void {
    const gap = this.gap as Gap;
    this.gap = undefined;
    const parsed = next === undefined ? undefined : eventOf(next);
    const nextSeq = parsed && 'event' in parsed ? parsed.event.seq : undefined;
    const head = `seq ${gap.seq} follows ${gap.before}`;
    if (nextSeq !== undefined && nextSeq > gap.before && nextSeq < gap.seq) {
      this.fail(gap.line, `${head}, and line ${gap.line + 1} has seq ${nextSeq}: out of order (lines swapped?)`);
    } else {
      this.fail(gap.line, `${head}: ${plural(gap.seq - gap.before - 1, 'event')} missing`);
    }
  }

  private fail(line: number, reason: string): void {
    this.failure = { ok: false, line, reason };
  }
}

/** Verifies an export given as its lines (JSON lines; blank lines only at the end). */
export function verifyChain(lines: Iterable<string>): ChainResult {
  const checker = new ChainChecker();
  for (const line of lines) {
    checker.push(line);
    if (checker.failed) break;
  }
  return checker.result();
}
