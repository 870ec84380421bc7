// Flink's exception history beside the operator's JobException events (src/domain/model/exception-history.ts,
// job-exceptions.ts): each exception once, with where it was found; reads bounded in entries and text. The event
// shapes follow the operator's JobStatusObserver (first 5 stack trace lines, `exception-timestamp` as an Instant).
import { describe, expect, it } from 'vitest';
import { flinkExceptionHistory, HISTORY_READ } from '../../../../src/domain/model/exception-history.js';
import { jobExceptions } from '../../../../src/domain/model/job-exceptions.js';

const T = { kind: 'FlinkDeployment', namespace: 'prod', name: 'orders' } as const;
const AT = Date.parse('2026-11-25T09:00:00Z');
const trace = (headline: string, lines = 36) =>
  [headline, ...Array.from({ length: lines - 1 }, (_, i) => `\tat a.b.C.m${i}(C.java:${i})`)].join('\n');

function entry(n: number, minutes: number, headline = `java.lang.RuntimeException: failure ${n}`) {
  return {
    exceptionName: 'java.lang.RuntimeException',
    stacktrace: trace(headline),
    timestamp: AT + minutes * 60_000,
    taskName: `Map (${n}/4)`,
  };
}

function event(n: number, minutes: number, count = 1, headline = `java.lang.RuntimeException: failure ${n}`) {
  const at = new Date(AT + minutes * 60_000).toISOString();
  return {
    metadata: { name: `e${n}`, annotations: { 'exception-timestamp': at, 'task-name': `Map (${n}/4)` } },
    involvedObject: { kind: 'FlinkDeployment', name: 'orders', namespace: 'prod' },
    type: 'Warning',
    reason: 'JobException',
    message: trace(headline).split('\n').slice(0, 5).join('\n') + '\n... (31 more lines)',
    count,
    lastTimestamp: at,
  };
}

const history = (...entries: unknown[]) => flinkExceptionHistory({ exceptionHistory: { entries, truncated: false } });

describe("Flink's exception history merged with the JobException events", () => {
  it.each([
    [
      'events expired: every entry from Flink',
      [],
      [entry(1, 0), entry(2, 5)],
      ['failure 2 flink', 'failure 1 flink'],
      2,
    ],
    [
      'both hold each: listed once, from both',
      [event(1, 0), event(2, 5)],
      [entry(1, 0), entry(2, 5)],
      ['failure 2 both', 'failure 1 both'],
      2,
    ],
    ['the older one expired', [event(2, 5)], [entry(1, 0), entry(2, 5)], ['failure 2 both', 'failure 1 flink'], 2],
    ['REST not read: the events alone', [event(1, 0), event(2, 5)], [], ['failure 2 events', 'failure 1 events'], 2],
    [
      'a repeat bumped the event: it stands for both history entries with its first line',
      [event(1, 5, 2)],
      [entry(1, 0), entry(1, 5)],
      ['failure 1 both'],
      2,
    ],
    [
      'a history entry newer than the event with its first line (the operator has not recorded it yet) is listed apart',
      [event(3, 9)],
      [entry(3, 10)],
      ['failure 3 flink', 'failure 3 events'],
      2,
    ],
  ])('%s', (_label, events, entries, listed, failovers) => {
    const found = jobExceptions(T, {}, events, 10, undefined, history(...entries).entries);
    expect(
      found.exceptions.map((e) => `${e.headline.replace('java.lang.RuntimeException: ', '')} ${e.source}`),
    ).toEqual(listed);
    expect(found.total).toBe(listed.length);
    expect(found.failovers).toBe(failovers);
  });

  it("an entry only in Flink's history reads as its event would: time, task, first 5 lines and the rest counted", () => {
    const [only] = jobExceptions(T, {}, [], 10, undefined, history(entry(7, 0)).entries).exceptions;
    expect(only).toEqual({
      at: AT,
      task: 'Map (7/4)',
      headline: 'java.lang.RuntimeException: failure 7',
      message: event(7, 0).message,
      count: 1,
      source: 'flink',
    });
  });

  it('reads at most HISTORY_READ entries and cuts each line, saying when Flink had more', () => {
    const long = 'y'.repeat(100_000);
    const many = Array.from({ length: HISTORY_READ + 5 }, (_, i) => entry(i, i, `java.lang.Error: ${long}`));
    const read = flinkExceptionHistory({ exceptionHistory: { entries: many, truncated: false } });
    expect(read.entries).toHaveLength(HISTORY_READ);
    expect(read.truncated).toBe(true);
    expect(Math.max(...read.entries.map((e) => e.message.length))).toBeLessThan(4_000);
    expect(flinkExceptionHistory({ exceptionHistory: { entries: [entry(1, 0)], truncated: true } }).truncated).toBe(
      true,
    );
    expect(flinkExceptionHistory({ errors: ['Job could not be found.'] })).toEqual({ entries: [], truncated: false });
  });
});
