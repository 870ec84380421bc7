// The in-memory alert store: the conformance suite the Redis store passes too.
import { MemoryAlertStore } from '../../../../src/store/memory/alerts.js';
import { describeAlertStoreConformance } from '../../../support/conformance/alerts.js';

const RETENTION_MS = 3_600_000;

describeAlertStoreConformance('memory', async () => {
  const alerts = new MemoryAlertStore({ retentionMs: RETENTION_MS });
  // One object holds the data; racers still interleave between their awaits.
  return {
    alerts,
    racers: (n) => Array.from({ length: n }, () => alerts),
    events: async () => [...alerts.events],
    retentionMs: RETENTION_MS,
    cleanup: async () => undefined,
  };
});
