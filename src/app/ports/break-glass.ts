// The break-glass index port: operations not yet reviewed (docs/policy.md#break-glass), the worklist the sweep
// reminds, `/metrics` counts and App Home lists without scanning every record (store/break-glass.ts, store/memory/).

export interface IndexedOperation {
  id: string;
  /** When it was indexed (its request), ms. */
  at: number;
}

/** The record stays the truth; the index is only a worklist. */
export interface BreakGlassIndex {
  /** Indexed before its record is created, so no break-glass record exists unindexed; adding again moves `at`. */
  add(id: string, at: number): Promise<void>;
  /** Reviewed (or never needing a review): out of the worklist. */
  remove(id: string): Promise<void>;
  /** Oldest first. */
  list(): Promise<IndexedOperation[]>;
}
