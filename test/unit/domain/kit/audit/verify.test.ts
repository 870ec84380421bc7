// Verifying an export (src/domain/kit/audit/verify.ts): an intact chain, one that starts late, and every way a chain
// can be broken, each named at its first bad line with the reason.
import { describe, expect, it } from 'vitest';
import { sealEvent, type AuditAction, type AuditEvent } from '../../../../../src/domain/kit/audit/event.js';
import { ChainChecker, verifyChain } from '../../../../../src/domain/kit/audit/verify.js';

const ACTIONS: AuditAction[] = ['requested', 'awaiting_approval', 'approved', 'queued', 'submitting', 'submitted'];

/** A chain of `n` sealed events from seq 1, as JSON lines. */
function chain(n: number, user = 'U0ALICE'): string[] {
  const events: AuditEvent[] = [];
  for (let i = 0; i < n; i++) {
    const draft = {
      id: `aud-${String(i + 1).padStart(20, '0')}`,
      at: new Date(Date.UTC(2025, 2, 14, 9, 0, i)).toISOString(),
      actor: { user, team: 'T0ACME' },
      action: ACTIONS[i % ACTIONS.length] as AuditAction,
      op: { id: 'op-k3j5h2m9q1', kind: 'scale', cluster: 'prod', namespace: 'streaming-prod', name: 'orders' },
    };
    events.push(sealEvent(draft, events.at(-1)));
  }
  return events.map((event) => JSON.stringify(event));
}

const lines = chain(10);
const swap = (list: string[], a: number, b: number) =>
  list.map((l, i) => (i === a ? list[b] : i === b ? list[a] : l) as string);
const edit = (line: string, change: (event: Record<string, unknown>) => void) => {
  const event = JSON.parse(line) as Record<string, unknown>;
  change(event);
  return JSON.stringify(event);
};

describe('verifyChain', () => {
  it('accepts an intact chain, with or without blank lines at the end', () => {
    expect(verifyChain(lines)).toEqual({ ok: true, count: 10, first: 1, last: 10 });
    expect(verifyChain(`${lines.join('\n')}\n`.split('\n'))).toEqual({ ok: true, count: 10, first: 1, last: 10 });
    expect(verifyChain([...lines, '', '  '])).toEqual({ ok: true, count: 10, first: 1, last: 10 });
    expect(verifyChain(lines.slice(0, 1))).toEqual({ ok: true, count: 1, first: 1, last: 1 });
  });

  it('accepts an export that starts later than seq 1, taking its first prevHash as given', () => {
    expect(verifyChain(lines.slice(4))).toEqual({ ok: true, count: 6, first: 5, last: 10 });
  });

  it('refuses a first event at seq 1 whose prevHash is not the genesis hash', () => {
    const first = sealEvent(JSON.parse(lines[0] as string) as AuditEvent, { seq: 0, hash: 'a'.repeat(64) });
    expect(verifyChain([JSON.stringify(first)])).toEqual({
      ok: false,
      line: 1,
      reason: 'seq 1 starts the chain, but its prevHash is not the genesis hash (64 zeros)',
    });
  });

  it('names an edited line, whatever field was changed', () => {
    const reason = 'hash does not match its content (edited?)';
    for (const change of [
      (e: Record<string, unknown>) => (e.action = 'denied'),
      (e: Record<string, unknown>) => ((e.actor as { user: string }).user = 'U0MALLORY'),
      (e: Record<string, unknown>) => (e.seq = 8),
      (e: Record<string, unknown>) => (e.evidence = { summary: 'fine' }),
    ]) {
      const edited = lines.map((line, i) => (i === 6 ? edit(line, change) : line));
      expect(verifyChain(edited)).toEqual({ ok: false, line: 7, reason });
    }
  });

  it('names the line after removed events, with how many are missing', () => {
    const one = lines.filter((_, i) => i !== 7);
    expect(verifyChain(one)).toEqual({ ok: false, line: 8, reason: 'seq 9 follows 7: 1 event missing' });
    const three = lines.filter((_, i) => i < 2 || i > 4);
    expect(verifyChain(three)).toEqual({ ok: false, line: 3, reason: 'seq 6 follows 2: 3 events missing' });
    const beforeLast = lines.filter((_, i) => i !== 8);
    expect(verifyChain(beforeLast)).toEqual({ ok: false, line: 9, reason: 'seq 10 follows 8: 1 event missing' });
  });

  it('names the first of two swapped lines as out of order', () => {
    expect(verifyChain(swap(lines, 3, 4))).toEqual({
      ok: false,
      line: 4,
      reason: 'seq 5 follows 3, and line 5 has seq 4: out of order (lines swapped?)',
    });
    expect(verifyChain(swap(lines, 8, 9))).toMatchObject({ ok: false, line: 9 });
    expect(verifyChain(swap(lines, 2, 6))).toEqual({
      ok: false,
      line: 3,
      reason: 'seq 7 follows 2, and line 4 has seq 4: out of order (lines swapped?)',
    });
  });

  it('names a seq that goes back, and a repeated line', () => {
    expect(verifyChain([...lines.slice(0, 5), lines[2] as string])).toEqual({
      ok: false,
      line: 6,
      reason: 'seq 3 follows 5: out of order (reordered?)',
    });
    expect(verifyChain([...lines.slice(0, 4), lines[3] as string])).toEqual({
      ok: false,
      line: 5,
      reason: 'seq 4 again, as on line 4 (a duplicate?)',
    });
  });

  it("names a line whose prevHash is not the hash of the line before (another chain's event)", () => {
    const other = chain(10, 'U0BOB');
    expect(verifyChain([...lines.slice(0, 4), ...other.slice(4)])).toEqual({
      ok: false,
      line: 5,
      reason: 'prevHash is not the hash of line 4 (reordered or removed?)',
    });
  });

  it('names a cut-off line, a line that is not JSON, and one that is not an event', () => {
    const cut = [...lines.slice(0, 9), (lines[9] as string).slice(0, 80)];
    expect(verifyChain(cut)).toEqual({ ok: false, line: 10, reason: 'the event is cut off (a truncated file?)' });
    expect(verifyChain([lines[0] as string, 'hello'])).toEqual({
      ok: false,
      line: 2,
      reason: 'not JSON (a corrupted line?)',
    });
    const wrong = edit(lines[1] as string, (e) => (e.action = 'deleted'));
    expect(verifyChain([lines[0] as string, wrong])).toEqual({
      ok: false,
      line: 2,
      reason: 'not an audit event: action: unknown action "deleted"',
    });
  });

  it('refuses a blank line between events, and an export with no events', () => {
    const gapped = [...lines.slice(0, 3), '', ...lines.slice(3)];
    expect(verifyChain(gapped)).toEqual({ ok: false, line: 4, reason: 'a blank line before more events' });
    expect(verifyChain([])).toEqual({ ok: false, line: 1, reason: 'no events (the file is empty)' });
    expect(verifyChain(['', ''])).toEqual({ ok: false, line: 1, reason: 'no events (the file is empty)' });
  });

  it('reports only the first bad line and reads no further than it needs', () => {
    let read = 0;
    function* counted() {
      for (const line of [...lines.slice(0, 3), 'garbage', 'more garbage', ...lines.slice(3)]) {
        read += 1;
        yield line;
      }
    }
    expect(verifyChain(counted())).toMatchObject({ ok: false, line: 4 });
    expect(read).toBe(4);
  });
});

describe('ChainChecker', () => {
  it('gives the same answer fed line by line, and ignores lines pushed after a failure', () => {
    const checker = new ChainChecker();
    for (const line of lines.slice(0, 5)) checker.push(line);
    expect(checker.failed).toBe(false);
    checker.push('{"cut');
    expect(checker.failed).toBe(true);
    for (const line of lines.slice(5)) checker.push(line);
    expect(checker.result()).toEqual({ ok: false, line: 6, reason: 'the event is cut off (a truncated file?)' });
  });
});
