// Socket Mode redelivery guard: a redelivered envelope is acked and dropped, one claim per delivery id.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { deliveryId, dropRedeliveries, type DeliveryClaims } from '../../../src/slack/redelivery.js';

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
  const seen = { acks: 0, ran: 0 };
  const middleware = dropRedeliveries(claims, logger);
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

describe('dropping redelivered envelopes', () => {
  it('keys a command and a click by trigger_id, an event by event_id, and leaves anything else alone', () => {
    expect(deliveryId({ command: '/flink', trigger_id: '1.2.abc' })).toBe('trigger:1.2.abc');
    expect(deliveryId({ type: 'block_actions', trigger_id: '3.4.def' })).toBe('trigger:3.4.def');
    expect(deliveryId({ type: 'event_callback', event_id: 'Ev1' })).toBe('event:Ev1');
    expect(deliveryId({ type: 'something' })).toBeUndefined();
  });

  it('handles the first delivery, acknowledges and drops a copy with the same id, and handles the next act', async () => {
    const claims = memoryClaims();
    expect(await run(claims, { trigger_id: 't1' })).toEqual({ acks: 0, ran: 1 });
    expect(await run(claims, { trigger_id: 't1' })).toEqual({ acks: 1, ran: 0 });
    expect(await run(claims, { trigger_id: 't2' })).toEqual({ acks: 0, ran: 1 });
  });

  it('releases the claim when the ack could not be sent, so the copy Slack sends again is handled', async () => {
    const claims = memoryClaims();
    await expect(run(claims, { trigger_id: 't1' }, async () => Promise.reject(notSent()))).rejects.toThrow(
      /no active connection/,
    );
    expect(claims.held.has('trigger:t1')).toBe(false);
    expect(await run(claims, { trigger_id: 't1' })).toEqual({ acks: 0, ran: 1 });
  });

  it('keeps the claim when the handler failed after its ack (that delivery was handled)', async () => {
    const claims = memoryClaims();
    await expect(
      run(claims, { trigger_id: 't1' }, async () => Promise.reject(new Error('Redis went away'))),
    ).rejects.toThrow('Redis went away');
    expect(await run(claims, { trigger_id: 't1' })).toEqual({ acks: 1, ran: 0 });
  });

  it('handles the delivery when the claim cannot be checked', async () => {
    const broken: DeliveryClaims = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      release: async () => undefined,
    };
    expect(await run(broken, { trigger_id: 't1' })).toEqual({ acks: 0, ran: 1 });
  });
});
