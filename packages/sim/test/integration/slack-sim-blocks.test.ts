// The simulated Slack Web API validates Block Kit as Slack does: each documented limit refused one past it with
// invalid_blocks and Slack's json-pointer message, accepted exactly at it; msg_blocks_too_long past ~13k characters.
import type { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { BLOCK_KIT_LIMITS as L } from '../../src/slack-api.js';
import { actions, button, client, OPS, section, sim, slackError, times, useSlackWeb } from '../support/slack-web.js';

useSlackWeb();

describe('Block Kit validation', () => {
  const invalid: [string, unknown[], string][] = [
    [
      'too many blocks',
      times(L.blocksPerMessage + 1, () => ({ type: 'divider' })),
      `no more than ${L.blocksPerMessage} items allowed [json-pointer:/blocks]`,
    ],
    [
      'section text',
      [section('x'.repeat(L.sectionText + 1))],
      `must be less than ${L.sectionText + 1} characters [json-pointer:/blocks/0/text/text]`,
    ],
    [
      'section fields',
      [{ type: 'section', fields: times(11, () => ({ type: 'mrkdwn', text: 'f' })) }],
      'no more than 10 items allowed [json-pointer:/blocks/0/fields]',
    ],
    [
      'field text',
      [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'x'.repeat(2001) }] }],
      'must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]',
    ],
    [
      'header text',
      [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }],
      'must be less than 151 characters [json-pointer:/blocks/0/text/text]',
    ],
    [
      'header mrkdwn',
      [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }],
      'must be a valid enum value [json-pointer:/blocks/0/text/type]',
    ],
    [
      'context elements',
      [{ type: 'context', elements: times(11, () => ({ type: 'mrkdwn', text: 'c' })) }],
      'no more than 10 items allowed [json-pointer:/blocks/0/elements]',
    ],
    [
      'actions elements',
      [actions(times(26, (i) => button({ action_id: `a${i}` })))],
      'no more than 25 items allowed [json-pointer:/blocks/0/elements]',
    ],
    [
      'button text',
      [actions([button({ text: { type: 'plain_text', text: 'x'.repeat(76) } })])],
      'must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]',
    ],
    [
      'button value',
      [actions([button({ value: 'x'.repeat(2001) })])],
      'must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]',
    ],
    [
      'button url',
      [actions([button({ url: 'x'.repeat(3001) })])],
      'must be less than 3001 characters [json-pointer:/blocks/0/elements/0/url]',
    ],
    [
      'block_id length',
      [section('x', { block_id: 'b'.repeat(256) })],
      'must be less than 256 characters [json-pointer:/blocks/0/block_id]',
    ],
    [
      'action_id length',
      [actions([button({ action_id: 'a'.repeat(256) })])],
      'must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]',
    ],
    [
      'duplicate block_id',
      [section('x', { block_id: 'b' }), { type: 'divider', block_id: 'b' }],
      'duplicate block_id: b [json-pointer:/blocks/1/block_id]',
    ],
    ['unknown block type', [{ type: 'carousel' }], 'unsupported block type: carousel [json-pointer:/blocks/0/type]'],
    ['section without text', [{ type: 'section' }], 'missing required field: text [json-pointer:/blocks/0]'],
    [
      'extra property',
      [{ type: 'divider', style: 'bold' }],
      'invalid additional property: style [json-pointer:/blocks/0]',
    ],
  ];

  it.each(invalid)('refuses %s with invalid_blocks', async (_name, blocks, message) => {
    const data = await slackError(
      client().chat.postMessage({ channel: OPS, text: 'x', blocks: blocks as webApi.KnownBlock[] }),
    );
    expect(data).toMatchObject({ error: 'invalid_blocks', errors: [message] });
  });

  it('accepts every limit exactly', async () => {
    const atLimits = [
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(L.headerText) } },
      section('s'.repeat(L.sectionText), { block_id: 'b'.repeat(L.blockId) }),
      actions(
        times(L.actionsElements, (i) =>
          button({
            action_id: `a${i}`,
            value: i === 0 ? 'v'.repeat(L.buttonValue) : 'v',
            text: { type: 'plain_text', text: 't'.repeat(L.buttonText) },
          }),
        ),
      ),
      ...times(L.blocksPerMessage - 3, () => ({ type: 'divider' })),
    ];
    await expect(
      client().chat.postMessage({ channel: OPS, text: 'x', blocks: atLimits as webApi.KnownBlock[] }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('refuses a message whose blocks sum past ~13k characters with msg_blocks_too_long', async () => {
    const web = client();
    const blocks = (n: number) => times(n, () => section('x'.repeat(2900))) as webApi.KnownBlock[];
    await expect(web.chat.postMessage({ channel: OPS, text: 'x', blocks: blocks(4) })).resolves.toMatchObject({
      ok: true,
    });
    expect((await slackError(web.chat.postMessage({ channel: OPS, text: 'x', blocks: blocks(5) }))).error).toBe(
      'msg_blocks_too_long',
    );
    const posted = sim.messages(OPS)[0]!;
    expect(
      (await slackError(web.chat.update({ channel: OPS, ts: posted.ts, text: 'x', blocks: blocks(5) }))).error,
    ).toBe('msg_blocks_too_long');
  });
});
