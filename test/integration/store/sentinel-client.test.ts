// The Sentinel client heals the end its failover detector can cause (store/sentinel-client.ts): real redis-server and
// redis-sentinel processes on loopback, the primary SIGKILLed, and the detector's close of the connector made while
// the client reconnects — the moment a +switch-master can arrive. ioredis' own client ends for good there; ours
// connects again and answers once the replica is promoted. An end we ask for stays an end.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RedisSettings } from '../../../src/config.js';
import { createConnection, connectionPlan } from '../../../src/store/connection.js';
import { SentinelRedis } from '../../../src/store/sentinel-client.js';
import { eventually } from '../../support/poll.js';
import { startHaRedis, type HaRedis } from '../../support/redis-ha.js';

let ha: HaRedis;
let settings: RedisSettings;
beforeAll(async () => {
  ha = await startHaRedis('sentinel');
  const loaded = loadConfig({ ...ha.env(), KUBECONFIG: '/dev/null', POLICY_FILE: '/dev/null' }, 'worker');
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  settings = loaded.config.redis;
}, 60_000);
afterAll(async () => ha?.stop());

/** What ioredis' failover detector does on +switch-master: closes the connector under the client. */
function detectorCloses(client: Redis): void {
  (client as unknown as { connector: { disconnect(): void } }).connector.disconnect();
}

const once = (client: Redis, event: string) => new Promise<void>((resolve) => client.once(event, () => resolve()));

async function ready(client: Redis): Promise<void> {
  client.on('error', () => undefined);
  if (client.status !== 'ready') await once(client, 'ready');
}

describe('the Sentinel client across a failover', () => {
  it('connects again after the detector cut its reconnect, where ioredis’ own client ends for good', async () => {
    const plan = connectionPlan(settings, 'worker');
    if (plan.kind !== 'sentinel') throw new Error('expected a Sentinel plan');
    const ours = createConnection(settings, 'worker') as SentinelRedis;
    const theirs = new Redis(plan.options);
    try {
      expect(ours).toBeInstanceOf(SentinelRedis);
      await Promise.all([ready(ours), ready(theirs)]);
      // Each client, once it starts reconnecting to the dead primary, has its connect cut as a +switch-master would.
      const cut = [ours, theirs].map(async (c) => {
        await once(c, 'connecting');
        detectorCloses(c);
        await once(c, 'end');
      });
      const promotion = ha.killPrimary('sentinel-client');
      await Promise.all(cut);
      await promotion;
      await expect(theirs.ping()).rejects.toThrow('Connection is closed');
      expect(theirs.status).toBe('end');
      await eventually('our client answers again', async () => (await ours.ping().catch(() => '')) === 'PONG', {
        timeoutMs: 20_000,
      });
      expect(ours.healedEnds).toBe(1);
      const copy = ours.duplicate();
      expect(copy).toBeInstanceOf(SentinelRedis);
      copy.disconnect();
    } finally {
      ours.disconnect();
      theirs.disconnect();
    }
  }, 60_000);

  it('stays closed when we close it, connected or connecting', async () => {
    const connected = createConnection(settings, 'worker') as SentinelRedis;
    await ready(connected);
    connected.disconnect();
    await once(connected, 'end');
    const connecting = createConnection(settings, 'worker') as SentinelRedis;
    connecting.on('error', () => undefined);
    await once(connecting, 'connecting');
    connecting.disconnect();
    await once(connecting, 'end');
    // A positive signal instead of a sleep: a fresh client connects in the time a heal would have taken.
    const probe = createConnection(settings, 'worker');
    await ready(probe as Redis);
    await probe.quit();
    await expect(connected.ping()).rejects.toThrow('Connection is closed');
    await expect(connecting.ping()).rejects.toThrow('Connection is closed');
    expect([connected.healedEnds, connecting.healedEnds]).toEqual([0, 0]);
  });
});
