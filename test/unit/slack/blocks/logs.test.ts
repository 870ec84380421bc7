// The `/flink logs` answer (docs/commands.md#flink-logs): pod, container and count named; the lines as code blocks that
// stay code blocks; within Slack's limits with the newest lines kept.
import { describe, expect, it } from 'vitest';
import type { LogsView } from '../../../../src/app/views.js';
import { renderLogs } from '../../../../src/slack/blocks/logs.js';
import { charCount, TOTAL_BUDGET } from '../../../../src/slack/blocks/limits.js';
import { expectValid, visibleText } from '../../../support/blocks.js';

const ctx = { now: Date.parse('2026-12-02T10:00:00Z'), command: '/flink' };

function view(lines: string[], extra: Partial<LogsView> = {}): LogsView {
  return {
    target: { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' },
    cluster: 'orders',
    pod: 'orders-5c7b9f8d6a-x2k4q',
    container: 'flink-main-container',
    role: { kind: 'jobmanager' },
    lines,
    requested: lines.length,
    read: lines.length,
    masked: 0,
    notes: [],
    ...extra,
  };
}

describe('renderLogs', () => {
  it('names the pod, the container and the count, and shows the lines in one code block, escaped', () => {
    const message = renderLogs(view(['a <!channel> & b', 'c ```d```']), ctx);
    expectValid(message);
    const text = visibleText(message);
    expect(text).toContain('Logs of streaming-prod/orders — JobManager');
    expect(text).toContain('Pod `orders-5c7b9f8d6a-x2k4q` · container `flink-main-container` · 2 lines');
    const code = JSON.stringify(message.blocks);
    // Outside text (docs/operating.md#outside-text): escaped, and a word joiner keeps `<!channel>` from pinging.
    expect(code).toContain("```\\na &lt;\u2060!channel&gt; &amp; b\\nc '''d'''\\n```");
  });

  it('500 long lines: within the limits, the newest kept, and it says how many were cut', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(200)}`);
    const message = renderLogs(view(lines), ctx);
    expectValid(message);
    expect(charCount(message.blocks)).toBeLessThanOrEqual(TOTAL_BUDGET);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('line 499');
    expect(text).not.toContain('line 000');
    expect(text).toMatch(/the last \d+ of 500 lines \(cut to fit a Slack message/);
    for (const b of message.blocks.filter((b) => b.type === 'section'))
      expect(String((b.text as { text: string }).text)).toMatch(/^```\n[\s\S]*\n```$/);
  });

  it('a TaskManager, a session job note, masked lines, and an empty grep result', () => {
    const message = renderLogs(
      view([], { role: { kind: 'taskmanager', n: 2 }, grep: 'boom', read: 500, masked: 0, notes: ['runs on x'] }),
      ctx,
    );
    const text = visibleText(message);
    expect(text).toContain('TaskManager 2');
    expect(text).toContain('runs on x');
    expect(text).toContain('No line containing "boom" in the last 500 lines of the log.');
    expect(visibleText(renderLogs(view(['password=•••'], { masked: 1 }), ctx))).toContain(
      '1 line with masked values (•••)',
    );
  });
});
