// The simulated Slack's signed requests: bodies and headers that Bolt accepts with the signing secret, and only with it.
import { isValidSlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { blockActionsBody, signedHeaders, slashCommandBody } from '../../src/signing.js';

const WS = { teamId: 'T0SANDBOX', teamDomain: 'sandbox', appId: 'A0FLINKOPS' };

describe('signed requests', () => {
  const secret = 'sandbox-secret';
  const now = Date.now();
  const bodies = {
    'slash command': slashCommandBody(
      WS,
      {
        command: '/flink',
        text: 'help',
        user: { id: 'U0ALICE', name: 'alice' },
        channel: { id: 'C0DATAPLATFORM', name: 'data-platform' },
        responseUrl: 'http://127.0.0.1:1/response/x',
      },
      now,
    ),
    block_actions: blockActionsBody(
      WS,
      {
        user: { id: 'U0LEAD1', name: 'lena' },
        channel: { id: 'C0DATAPLATFORM', name: 'data-platform' },
        message: { type: 'message', ts: '1700000000.000100', text: 'card' },
        actionId: 'flink_ops_approve',
        blockId: 'approval:0123456789abcdef',
        value: 'op-abc123',
        buttonText: 'Approve',
        responseUrl: 'http://127.0.0.1:1/response/y',
      },
      now,
    ),
  };

  it.each(Object.entries(bodies))(
    'Bolt accepts a %s signed with the secret, and refuses another secret',
    (_kind, body) => {
      const headers = signedHeaders(secret, body, now / 1000);
      const request = (h: Record<string, string>) => ({
        signingSecret: secret,
        body,
        headers: {
          'x-slack-signature': h['x-slack-signature'] as string,
          'x-slack-request-timestamp': Number(h['x-slack-request-timestamp']),
        },
      });
      expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(isValidSlackRequest(request(headers))).toBe(true);
      expect(isValidSlackRequest(request(signedHeaders('another', body, now / 1000)))).toBe(false);
    },
  );

  it('a click carries what the handler reads: user, action, block id, value, response_url', () => {
    const payload = JSON.parse(decodeURIComponent(bodies.block_actions.slice('payload='.length))) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0LEAD1' },
      container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0DATAPLATFORM' },
      response_url: 'http://127.0.0.1:1/response/y',
      actions: [
        { type: 'button', action_id: 'flink_ops_approve', block_id: 'approval:0123456789abcdef', value: 'op-abc123' },
      ],
    });
  });
});
