// The daily reminder of a GitOps pause (docs/policy.md#gitops-managed-targets): once a day after COMPLETED, once however
// many replicas try, naming the resume command.
import { describe, expect, it } from 'vitest';
import { memoryStores } from '../../../src/store/memory/index.js';
import { PAUSE_REMINDER_NOTE, remindOfPause } from '../../../src/worker/pause-reminder.js';
import { OP_ID } from '../../support/records.js';
import { completedInStore } from '../../support/store-records.js';

const DAY = 24 * 60 * 60_000;

describe('remindOfPause', () => {
  it('reminds once a day after COMPLETED, once however often it is asked', async () => {
    let now = Date.UTC(2030, 2, 1, 12, 0, 0);
    const { store } = memoryStores({ now: () => now });
    const record = await completedInStore(store);
    const watch = {
      opId: OP_ID,
      kind: 'scale',
      cluster: 'eu',
      target: record.target,
      startedAt: now,
      until: now + 60_000,
      fields: [{ path: ['spec', 'job', 'parallelism'], value: 8 }],
      pauses: true,
    };
    const deps = { store, actor: 'worker' };
    const reminders = async () =>
      ((await store.get(OP_ID))?.history ?? []).filter((e) => e.type === 'note' && e.name === PAUSE_REMINDER_NOTE);
    now += DAY - 1;
    await remindOfPause(deps, watch, now);
    expect(await reminders()).toEqual([]);
    now += 1;
    await Promise.all([remindOfPause(deps, watch, now), remindOfPause(deps, watch, now)]);
    const [first] = await reminders();
    expect(await reminders()).toHaveLength(1);
    expect(first?.detail.message).toBe(
      'Flux is still paused for streaming-prod/orders-enricher (a day): commit this change to Git, then run `/flink gitops resume streaming-prod/orders-enricher` so Flux applies Git again',
    );
    now += DAY;
    await remindOfPause(deps, watch, now);
    expect(await reminders()).toHaveLength(2);
  });
});
