// Cutting text to a length: whole lines with "…and N more", never inside an entity, a mention or a code span.
import { describe, expect, it } from 'vitest';
import { fitLines, safeCut, userText } from '../../../../src/slack/blocks/text.js';

const lines = (n: number, width = 20) => Array.from({ length: n }, (_, i) => `line ${i}`.padEnd(width, '.'));

describe('fitLines', () => {
  it('leaves text that fits alone', () => {
    expect(fitLines('a\nb', 3)).toBe('a\nb');
  });

  it('keeps whole lines and says how many more', () => {
    const text = lines(10).join('\n');
    const fitted = fitLines(text, 100);
    expect(fitted.length).toBeLessThanOrEqual(100);
    const kept = fitted.split('\n');
    expect(kept[kept.length - 1]).toBe(`…and ${10 - (kept.length - 1)} more`);
    expect(kept.slice(0, -1)).toEqual(lines(10).slice(0, kept.length - 1));
  });

  it('merges an earlier "…and N more" instead of stacking them', () => {
    const once = fitLines(lines(50).join('\n'), 400);
    const twice = fitLines(once, 150);
    const tail = twice.split('\n').pop();
    expect(tail).toBe(`…and ${50 - (twice.split('\n').length - 1)} more`);
  });

  it('cuts one over-long line by characters, never inside an entity or a mention', () => {
    const text = `${'x'.repeat(90)}&amp;<@U0ALICE>${'y'.repeat(100)}`;
    for (let max = 60; max < 150; max++) {
      const fitted = fitLines(text, max);
      expect(fitted.length).toBeLessThanOrEqual(max);
      expect(fitted).toMatch(/ …and \d+ more characters$/);
      const head = fitted.replace(/ …and \d+ more characters$/, '');
      expect(text.startsWith(head)).toBe(true);
      expect(head).not.toMatch(/&[a-z]*$|<[^>]*$/);
      expect(Number(/(\d+) more characters$/.exec(fitted)?.[1])).toBe(text.length - head.length);
    }
  });

  it('safeCut drops an unpaired backtick so the rest is not swallowed by code formatting', () => {
    expect(safeCut('a `code` and `more code`', 16)).toBe('a `code` and ');
  });

  it('userText counts characters of the original text, not of its escaped form', () => {
    expect(userText(`${'<'.repeat(10)}${'a'.repeat(100)}`, 10)).toBe(`${'&lt;'.repeat(10)} …and 100 more characters`);
  });
});
