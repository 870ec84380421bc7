// What people type in the sandbox, encoded as Slack does (should_escape: true), and what the bot's parser makes of it.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/bot.js';
import { encodeTyped } from '../../src/workspace.js';

describe('encodeTyped (should_escape: true)', () => {
  it.each([
    ['scale orders 3', 'scale orders 3'],
    ['scale orders 3 --incident #incidents', 'scale orders 3 --incident <#C0INCIDENTS|incidents>'],
    ['ping @lena and @flink-leads', 'ping <@U0LEAD1|lena> and <!subteam^S0LEADS|@flink-leads>'],
    ['@here look', '<!here> look'],
    ['#nowhere stays text', '#nowhere stays text'],
    ['a <b> & c', 'a &lt;b&gt; &amp; c'],
    ['mail lena@example.com', 'mail lena@example.com'],
    ['thanks @li.', 'thanks <@U0LEAD2|li>.'],
  ])('%j → %j', (typed, sent) => {
    expect(encodeTyped(typed)).toBe(sent);
  });

  it('gives the parser the channel id of --incident #incidents', () => {
    const parsed = parseCommand(
      encodeTyped('scale streaming-prod/orders 6 --reason "a & b" --incident #incidents'),
      {},
    );
    expect(parsed).toMatchObject({
      type: 'intent',
      intent: { kind: 'scale', incidentChannels: ['C0INCIDENTS'], reason: 'a & b' },
    });
  });
});
