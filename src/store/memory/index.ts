// The in-memory twins of every store port, wired as one Redis would hold them (the leases follow the operations'
// FIFO order) on one injected clock: what the unit tier of the services and the worker runs on.
import { MemoryAfterCompletedWatches } from './after-completed.js';
import { MemoryBreakGlassIndex } from './break-glass.js';
import { MemoryDeliveryState } from './delivery.js';
import { MemoryFreezeStore } from './freezes.js';
import { MemoryLeaseStore } from './locks.js';
import { MemoryOperationStore, type MemoryOperationStoreOptions } from './operations.js';
import { MemorySharedReadings } from './shared-readings.js';

export {
  MemoryAfterCompletedWatches,
  MemoryBreakGlassIndex,
  MemoryDeliveryState,
  MemoryFreezeStore,
  MemoryLeaseStore,
  MemoryOperationStore,
  MemorySharedReadings,
};

export interface MemoryStores {
  store: MemoryOperationStore;
  freezes: MemoryFreezeStore;
  leases: MemoryLeaseStore;
  delivery: MemoryDeliveryState;
  breakGlass: MemoryBreakGlassIndex;
  afterCompleted: MemoryAfterCompletedWatches;
  sharedReadings: MemorySharedReadings;
}

export function memoryStores(opts: MemoryOperationStoreOptions & { token?: () => string } = {}): MemoryStores {
  const { token, ...storeOpts } = opts;
  const store = new MemoryOperationStore(storeOpts);
  const clock = opts.now === undefined ? {} : { now: opts.now };
  return {
    store,
    freezes: new MemoryFreezeStore({
      ...clock,
      ...(opts.retentionMs === undefined ? {} : { retentionMs: opts.retentionMs }),
    }),
    leases: new MemoryLeaseStore({ order: store, ...clock, ...(token === undefined ? {} : { token }) }),
    delivery: new MemoryDeliveryState({
      ...clock,
      ...(opts.retentionMs === undefined ? {} : { retentionMs: opts.retentionMs }),
    }),
    breakGlass: new MemoryBreakGlassIndex(),
    afterCompleted: new MemoryAfterCompletedWatches(),
    sharedReadings: new MemorySharedReadings(opts.now),
  };
}
