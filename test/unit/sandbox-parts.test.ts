// The sandbox's small parts: what people type encoded as Slack does, requests Bolt accepts, the CLI's arguments.
import { isValidSlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/domain/language/parse.js';
import { parseSandboxArgs, SANDBOX_POLICY } from '@flink-chatops/sim/sandbox';
import { blockActionsBody, signedHeaders, slashCommandBody } from '@flink-chatops/sim/signing';
import { encodeTyped } from '@flink-chatops/sim/workspace';

const WS = { teamId: 'T0SANDBOX', teamDomain: 'sandbox', appId: 'A0FLINKOPS' };

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
    const parsed = parseCommand(encodeTyped('scale streaming-prod/orders 6 --reason "a & b" --incident #incidents'), {});
    expect(parsed).toMatchObject({ type: 'intent', intent: { kind: 'scale', incidentChannels: ['C0INCIDENTS'], reason: 'a & b' } });
  });
});

describe('signed requests', () => {
  const secret = 'sandbox-secret';
  const now = Date.now();
  const bodies = {
    'slash command': slashCommandBody(
      WS,
      { command: '/flink', text: 'help', user: { id: 'U0ALICE', name: 'alice' }, channel: { id: 'C0DATAPLATFORM', name: 'data-platform' }, responseUrl: 'http://127.0.0.1:1/response/x' },
      now,
    ),
    'block_actions': blockActionsBody(
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

  it.each(Object.entries(bodies))('Bolt accepts a %s signed with the secret, and refuses another secret', (_kind, body) => {
    const headers = signedHeaders(secret, body, now / 1000);
    const request = (h: Record<string, string>) => ({
      signingSecret: secret,
      body,
      headers: { 'x-slack-signature': h['x-slack-signature'] as string, 'x-slack-request-timestamp': Number(h['x-slack-request-timestamp']) },
    });
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(isValidSlackRequest(request(headers))).toBe(true);
    expect(isValidSlackRequest(request(signedHeaders('another', body, now / 1000)))).toBe(false);
  });

  it('a click carries what the handler reads: user, action, block id, value, response_url', () => {
    const payload = JSON.parse(decodeURIComponent(bodies.block_actions.slice('payload='.length))) as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0LEAD1' },
      container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0DATAPLATFORM' },
      response_url: 'http://127.0.0.1:1/response/y',
      actions: [{ type: 'button', action_id: 'flink_ops_approve', block_id: 'approval:0123456789abcdef', value: 'op-abc123' }],
    });
  });
});

describe('parseSandboxArgs', () => {
  it.each([
    [[], { ok: true, options: { speed: 'realistic', policyFile: SANDBOX_POLICY } }],
    [['--speed', 'fast', '--port', '0'], { ok: true, options: { speed: 'fast', port: 0, policyFile: SANDBOX_POLICY } }],
    [['--speed', 'warp'], { ok: false, message: '--speed must be one of fast, realistic, not "warp"' }],
    [['--port', '70000'], { ok: false, message: '--port must be a port number 0–65535 (0 = any free port), not "70000"' }],
    [['--color'], { ok: false, message: 'unknown option --color' }],
    [['now'], { ok: false, message: 'unexpected argument "now"' }],
  ])('%j', (args, expected) => {
    expect(parseSandboxArgs(args)).toEqual(expected);
  });
});
