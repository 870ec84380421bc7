// The Socket Mode link's state, which the bot's readiness check (http/health.ts socketReady) follows.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { socketReady } from '../../../src/http/health.js';
import { SocketLink } from '../../../src/slack/socket-link.js';

describe('the Socket Mode link readiness follows', () => {
  it('is ready from hello until the link closes or is replaced, and says for how long it has been down', async () => {
    let now = 1_000;
    const link = new SocketLink(() => now);
    const client = new EventEmitter();
    link.watch(client);
    const check = socketReady(link);
    const signal = new AbortController().signal;
    await expect(check(signal)).rejects.toThrow('Socket Mode link not started for 0.0s');
    client.emit('connecting');
    client.emit('connected');
    await expect(check(signal)).resolves.toBeUndefined();
    now += 1_000;
    client.emit('close');
    now += 1_500;
    client.emit('reconnecting');
    client.emit('connecting');
    now += 1_000;
    await expect(check(signal)).rejects.toThrow('Socket Mode link connecting for 2.5s');
    client.emit('connected');
    expect(link.connected).toBe(true);
    expect(link.connects).toBe(2);
  });
});
