// Text from Flink and Kubernetes shown in Slack (docs/operating.md#outside-text): escaped, and nothing in it mentions
// anyone or links anywhere, as the simulated Slack parses mrkdwn.
import { describe, expect, it } from 'vitest';
import { mentionsInText } from '@flink-chatops/sim/slack-api';
import { JOINER, outsideText } from '../../../../src/domain/model/outside-text.js';
import { escapeKeepMentions, escapeOutside, outsideClip } from '../../../../src/slack/blocks/text.js';

const HOSTILE = [
  '<!channel>',
  '<!here|here>',
  '<!everyone>',
  '<@U0LEAD1>',
  '<@W0LEAD1|lead>',
  '<!subteam^S0LEADS>',
  '<#C0OPS>',
  '<https://evil.example|click here>',
  '<mailto:a@b.c|mail>',
  '@channel',
  '@here please',
  'see https://evil.example/a?b=c',
  'www.evil.example',
  'ftp://x',
];

describe('escapeOutside', () => {
  it.each(HOSTILE)('%s: Slack finds no mention or link', (text) => {
    expect(mentionsInText(text).length).toBeGreaterThan(0);
    expect(mentionsInText(escapeOutside(`x ${text} y`))).toEqual([]);
  });

  it("escapeKeepMentions (for people's own text) kept <@U…> live: the reason outside text has its own", () => {
    expect(mentionsInText(escapeKeepMentions('<@U0LEAD1>'))).toEqual([{ kind: 'user', id: 'U0LEAD1' }]);
  });

  it('keeps the text readable: only entities and invisible word joiners are added', () => {
    const text = 'Caused by: java.io.IOException: a -> b & <c> at org.apache.flink.Foo(Foo.java:42) user@here.example';
    expect(escapeOutside(text)).toBe(
      'Caused by: java.io.IOException: a -&gt; b &amp; &lt;c&gt; at org.apache.flink.Foo(Foo.java:42) user@here.example',
    );
    expect(outsideText('<!channel> https://x').replaceAll(JOINER, '')).toBe('<!channel> https://x');
  });

  it('has no backtracking: 100 KB of nothing but "<@" and "://" takes well under a second', () => {
    const line = '<@'.repeat(25_000) + '://'.repeat(16_000);
    const start = performance.now();
    const out = escapeOutside(line);
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(mentionsInText(out.slice(0, 1_000))).toEqual([]);
  });

  it('outsideClip cuts the original and says how much more there was', () => {
    expect(outsideClip('<!channel> '.repeat(10), 20)).toBe(
      `&lt;${JOINER}!channel&gt; &lt;${JOINER}!channel …and 89 more characters`,
    );
  });
});
