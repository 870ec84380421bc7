// Socket Mode around the ack: an event Slack retries is acked and dropped, one claim per event_id; a command or click
// whose ack could not be sent (Slack never sends those again) is answered through its response_url.
import { describe, expect, it } from 'vitest';
import type { ResponseMessage } from '../../../src/app/ports/index.js';
import { createLogger } from '../../../src/log.js';
import { deliveryId, socketAcks, type DeliveryClaims } from '../../../src/slack/redelivery.js';

function memoryClaims(): DeliveryClaims & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    claim: async (id) => (held.has(id) ? false : (held.add(id), true)),
    release: async (id) => {
      held.delete(id);
    },
  };
}

const logger = createLogger('silent');

/** Runs the middleware once over `body`; `listener` stands for Bolt's listeners (which ack first). */
async function run(
  claims: DeliveryClaims,
  body: Record<string, unknown>,
  listener: () => Promise<void> = async () => undefined,
) {
  const seen = { acks: 0, ran: 0, answers: [] as { url: string; message: ResponseMessage }[] };
  const responder = {
    respond: async (url: string, message: ResponseMessage) => {
      seen.answers.push({ url, message });
    },
  };
  const middleware = socketAcks({ claims, responder, logger });
  const args = {
    body,
    ack: async () => {
      seen.acks += 1;
    },
    next: async () => {
      seen.ran += 1;
      await listener();
    },
  };
  await middleware(args as unknown as Parameters<typeof middleware>[0]);
  return seen;
}

const notSent = () =>
  Object.assign(new Error('Failed to send a message as the client has no active connection'), {
    code: 'slack_socket_mode_send_while_not_ready_error',
  });

describe('events Slack retries', () => {
  it('keys an event by event_id, and leaves commands and clicks (never sent again) to the handlers', () => {
    expect(deliveryId({ type: 'event_callback', event_id: 'Ev1' })).toBe('event:Ev1');
    expect(deliveryId({ command: '/flink', trigger_id: '1.2.abc' })).toBeUndefined();
    expect(deliveryId({ type: 'block_actions', trigger_id: '3.4.def' })).toBeUndefined();
  });

  it('handles the first delivery, acknowledges and drops a copy with the same id, and handles the next event', async () => {
    const claims = memoryClaims();
    expect(await run(claims, { event_id: 'E1' })).toMatchObject({ acks: 0, ran: 1 });
    expect(await run(claims, { event_id: 'E1' })).toMatchObject({ acks: 1, ran: 0 });
    expect(await run(claims, { event_id: 'E2' })).toMatchObject({ acks: 0, ran: 1 });
  });

  it('releases the claim when the ack could not be sent, so the retry Slack sends is handled', async () => {
    const claims = memoryClaims();
    await expect(run(claims, { event_id: 'E1' }, async () => Promise.reject(notSent()))).rejects.toThrow(
      /no active connection/,
    );
    expect(claims.held.has('event:E1')).toBe(false);
    expect(await run(claims, { event_id: 'E1' })).toMatchObject({ acks: 0, ran: 1 });
  });

  it('keeps the claim when the handler failed after its ack (that delivery was handled)', async () => {
    const claims = memoryClaims();
    await expect(
      run(claims, { event_id: 'E1' }, async () => Promise.reject(new Error('Redis went away'))),
    ).rejects.toThrow('Redis went away');
    expect(await run(claims, { event_id: 'E1' })).toMatchObject({ acks: 1, ran: 0 });
  });

  it('handles the delivery when the claim cannot be checked', async () => {
    const broken: DeliveryClaims = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      release: async () => undefined,
    };
    expect(await run(broken, { event_id: 'E1' })).toMatchObject({ acks: 0, ran: 1 });
  });
});

describe('commands and clicks, which Slack never sends again', () => {
  it('runs each delivery, claiming nothing', async () => {
    const claims = memoryClaims();
    const command = { command: '/flink', text: 'help', trigger_id: 't1', response_url: 'https://r/1' };
    expect(await run(claims, command)).toMatchObject({ ran: 1, answers: [] });
    expect(await run(claims, command)).toMatchObject({ ran: 1, answers: [] });
    expect(claims.held.size).toBe(0);
  });

  it('tells the person through the response_url that nothing was done when the ack could not be sent', async () => {
    const command = { command: '/flink', text: 'scale a/b 3', trigger_id: 't1', response_url: 'https://r/1' };
    const seen = await run(memoryClaims(), command, async () => Promise.reject(notSent()));
    expect(seen.answers).toEqual([
      {
        url: 'https://r/1',
        message: {
          text: expect.stringMatching(/before `\/flink scale a\/b 3` could be acknowledged.*nothing was done/),
          response_type: 'ephemeral',
          replace_original: false,
        },
      },
    ]);
    const click = {
      type: 'block_actions',
      trigger_id: 't2',
      response_url: 'https://r/2',
      actions: [{ action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }],
    };
    const clicked = await run(memoryClaims(), click, async () => Promise.reject(notSent()));
    expect(clicked.answers[0]?.message.text).toMatch(/your click on \*Approve\* could be acknowledged/);
  });

  it('lets any other failure through, unanswered here', async () => {
    const command = { command: '/flink', text: 'help', trigger_id: 't1', response_url: 'https://r/1' };
    await expect(
      run(memoryClaims(), command, async () => Promise.reject(new Error('Redis went away'))),
    ).rejects.toThrow('Redis went away');
  });
});
