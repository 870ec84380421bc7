// The job-alert store conformance suite: the same tests for every AlertStore implementation (Redis in
// test/integration/store, memory in test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertSignal, AlertStore, ObserveInput } from '../../../src/app/ports/alerts.js';
import type { Target } from '../../../src/domain/model/target.js';
import type { AlertEvent } from '../../../src/store/memory/alerts.js';

export interface AlertStoreHarness {
  alerts: AlertStore;
  /** `n` stores over the same data that race each other for real (on Redis: one connection each). */
  racers(n: number): AlertStore[];
  /** The alert stream as the notifier would read it, oldest first. */
  events(): Promise<AlertEvent[]>;
  /** The retention the stores were made with (ms). */
  retentionMs: number;
  cleanup(): Promise<void>;
}

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const MIN = 60_000;
const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders', cluster: 'eu' };
const clicks: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clicks', cluster: 'eu' };

const failed = (since = T0): AlertSignal => ({
  kind: 'job-failed',
  since,
  summary: 'job FAILED (jobStatus.state, operator status)',
  source: 'status',
});
const restarting = (n: number, since = T0): AlertSignal => ({
  kind: 'restarting',
  since,
  summary: `${n} restarts in 6 min (numRestarts 2 → ${2 + n}, Flink REST)`,
  source: 'rest',
});

function seen(signals: AlertSignal[], now: number, target = orders, cluster = 'eu'): ObserveInput {
  return { cluster, target, rule: 'prod-jobs', channel: 'C0ALERTS1', mention: '<!subteam^S0ONCALL>', signals, now };
}

export function describeAlertStoreConformance(name: string, factory: () => Promise<AlertStoreHarness>): void {
  describe(`alert store conformance: ${name}`, () => {
    let h: AlertStoreHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('opens one incident at the first signal: version 1, one stream entry naming it', async () => {
      const result = await h.alerts.observe(seen([restarting(3)], T0 + MIN));
      expect(result.changed).toBe(true);
      const incident = result.incident!;
      expect(incident).toEqual({
        id: expect.stringMatching(/^inc-[0-9a-z]{10}$/),
        cluster: 'eu',
        target: orders,
        rule: 'prod-jobs',
        channel: 'C0ALERTS1',
        mention: '<!subteam^S0ONCALL>',
        openedAt: T0 + MIN,
        updatedAt: T0 + MIN,
        signals: [restarting(3)],
        seen: ['restarting'],
        version: 1,
      });
      expect(await h.alerts.get('eu', orders)).toEqual(incident);
      expect(await h.alerts.listOpen()).toEqual([incident]);
      expect(await h.events()).toEqual([
        { incident: incident.id, version: 1, cluster: 'eu', target: 'FlinkDeployment/eu/streaming-prod/orders' },
      ]);
    });

    it('changes nothing for the same observation twice, even with a later since', async () => {
      const first = await h.alerts.observe(seen([failed()], T0));
      const second = await h.alerts.observe(seen([failed(T0 + 5 * MIN)], T0 + 5 * MIN));
      expect(second).toEqual({ changed: false, incident: first.incident });
      expect(await h.events()).toHaveLength(1);
    });

    it('updates on a new kind or summary: version + 1, kinds seen in order, an open kind keeps its since', async () => {
      const opened = (await h.alerts.observe(seen([restarting(3)], T0))).incident!;
      const grown = await h.alerts.observe(seen([failed(T0 + 2 * MIN), restarting(4, T0 + 2 * MIN)], T0 + 2 * MIN));
      expect(grown.changed).toBe(true);
      expect(grown.incident).toMatchObject({
        id: opened.id,
        version: 2,
        openedAt: T0,
        updatedAt: T0 + 2 * MIN,
        signals: [failed(T0 + 2 * MIN), restarting(4, T0)],
        seen: ['restarting', 'job-failed'],
      });
      const shrunk = await h.alerts.observe(seen([failed(T0 + 3 * MIN)], T0 + 3 * MIN));
      expect(shrunk.incident).toMatchObject({ version: 3, signals: [failed(T0 + 2 * MIN)] });
      expect(shrunk.incident?.seen).toEqual(['restarting', 'job-failed']);
      expect((await h.events()).map((e) => e.version)).toEqual([1, 2, 3]);
    });

    it('recovers once when the signals clear; a later failure opens a new incident', async () => {
      const opened = (await h.alerts.observe(seen([failed()], T0))).incident!;
      const recovered = await h.alerts.observe(seen([], T0 + 4 * MIN));
      expect(recovered.changed).toBe(true);
      expect(recovered.incident).toMatchObject({ id: opened.id, signals: [], recoveredAt: T0 + 4 * MIN, version: 2 });
      expect(recovered.incident?.seen).toEqual(['job-failed']);
      expect(await h.alerts.observe(seen([], T0 + 5 * MIN))).toEqual({ changed: false });
      expect(await h.alerts.listOpen()).toEqual([]);
      expect(await h.alerts.get('eu', orders)).toEqual(recovered.incident);
      const again = (await h.alerts.observe(seen([failed(T0 + 9 * MIN)], T0 + 9 * MIN))).incident!;
      expect(again.id).not.toBe(opened.id);
      expect(again).toMatchObject({ version: 1, openedAt: T0 + 9 * MIN, seen: ['job-failed'] });
      expect(again.recoveredAt).toBeUndefined();
      expect((await h.events()).map((e) => [e.incident, e.version])).toEqual([
        [opened.id, 1],
        [opened.id, 2],
        [again.id, 1],
      ]);
    });

    it('leaves a healthy job without an incident alone', async () => {
      expect(await h.alerts.observe(seen([], T0))).toEqual({ changed: false });
      expect(await h.alerts.get('eu', orders)).toBeUndefined();
      expect(await h.events()).toEqual([]);
    });

    it('keeps one incident for concurrent observations from several replicas', async () => {
      const results = await Promise.all(h.racers(4).map((s) => s.observe(seen([failed()], T0))));
      expect(results.filter((r) => r.changed)).toHaveLength(1);
      expect(new Set(results.map((r) => r.incident?.id)).size).toBe(1);
      expect(await h.events()).toHaveLength(1);
      const recoveries = await Promise.all(h.racers(3).map((s) => s.observe(seen([], T0 + MIN))));
      expect(recoveries.filter((r) => r.changed)).toHaveLength(1);
      expect(await h.events()).toHaveLength(2);
    });

    it("keeps targets and clusters apart, a bare target's under the cluster it is observed in", async () => {
      const bare: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
      const a = (await h.alerts.observe(seen([failed()], T0, bare, 'us'))).incident!;
      const b = (await h.alerts.observe(seen([failed()], T0, bare, 'eu'))).incident!;
      const c = (await h.alerts.observe(seen([failed()], T0 + 1, clicks))).incident!;
      expect(new Set([a.id, b.id, c.id]).size).toBe(3);
      expect((await h.alerts.get('us', bare))?.id).toBe(a.id);
      expect((await h.alerts.get('eu', clicks))?.id).toBe(c.id);
      expect((await h.alerts.listOpen()).map((i) => i.id).sort()).toEqual([a.id, b.id, c.id].sort());
      expect((await h.events()).map((e) => [e.cluster, e.target])).toEqual([
        ['us', 'FlinkDeployment/streaming-prod/orders'],
        ['eu', 'FlinkDeployment/streaming-prod/orders'],
        ['eu', 'FlinkSessionJob/eu/streaming-prod/clicks'],
      ]);
    });

    it('forgets a recovered incident and its message after the retention, an open one never', async () => {
      const gone = (await h.alerts.observe(seen([failed()], T0))).incident!;
      await h.alerts.setMessage(gone.id, { channel: 'C0ALERTS1', ts: '1700000000.000100' });
      await h.alerts.observe(seen([], T0 + MIN));
      const open = (await h.alerts.observe(seen([failed()], T0 + MIN, clicks))).incident!;
      await h.alerts.observe(seen([failed()], T0 + MIN + h.retentionMs - 1, clicks));
      expect((await h.alerts.get('eu', orders))?.id).toBe(gone.id);
      await h.alerts.observe(seen([failed()], T0 + MIN + h.retentionMs, clicks));
      expect(await h.alerts.get('eu', orders)).toBeUndefined();
      expect(await h.alerts.message(gone.id)).toBeUndefined();
      expect((await h.alerts.get('eu', clicks))?.id).toBe(open.id);
      expect((await h.alerts.listOpen()).map((i) => i.id)).toEqual([open.id]);
    });

    it("stores an incident's message once: the first replica's wins", async () => {
      const incident = (await h.alerts.observe(seen([failed()], T0))).incident!;
      expect(await h.alerts.message(incident.id)).toBeUndefined();
      const [a, b] = h.racers(2);
      const stored = await Promise.all([
        a!.setMessage(incident.id, { channel: 'C0ALERTS1', ts: '1.1' }),
        b!.setMessage(incident.id, { channel: 'C0ALERTS1', ts: '2.2' }),
      ]);
      expect(stored.filter(Boolean)).toHaveLength(1);
      const winner = stored[0] ? '1.1' : '2.2';
      expect(await h.alerts.message(incident.id)).toEqual({ channel: 'C0ALERTS1', ts: winner });
    });

    it('refuses a malformed observation, storing nothing', async () => {
      await expect(h.alerts.observe(seen([failed(), failed()], T0))).rejects.toThrow('twice');
      await expect(
        h.alerts.observe(seen([{ ...failed(), kind: 'on-fire' as AlertSignal['kind'] }], T0)),
      ).rejects.toThrow('not an alert kind');
      await expect(h.alerts.observe({ ...seen([failed()], T0), channel: ' ' })).rejects.toThrow('channel');
      await expect(h.alerts.observe(seen([{ ...failed(), summary: '' }], T0))).rejects.toThrow('summary');
      await expect(h.alerts.setMessage('op-aaaaaaaaaa', { channel: 'C1', ts: '1.1' })).rejects.toThrow('incident id');
      expect(await h.alerts.get('eu', orders)).toBeUndefined();
      expect(await h.events()).toEqual([]);
    });

    it('leaves out a mention the entry does not have', async () => {
      const { mention: _none, ...input } = seen([failed()], T0);
      const incident = (await h.alerts.observe(input)).incident!;
      expect('mention' in incident).toBe(false);
      expect((await h.alerts.get('eu', orders))?.mention).toBeUndefined();
    });
  });
}
