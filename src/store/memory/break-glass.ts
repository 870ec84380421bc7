// The in-memory twin of the break-glass index (store/break-glass.ts): unreviewed operations by when they were indexed.
import type { BreakGlassIndex, IndexedOperation } from '../../app/ports/break-glass.js';
import { SortedSet } from './sorted.js';

export class MemoryBreakGlassIndex implements BreakGlassIndex {
  private readonly set = new SortedSet();

  async add(id: string, at: number): Promise<void> {
    this.set.add(id, at);
  }

  async remove(id: string): Promise<void> {
    this.set.remove(id);
  }

  async list(): Promise<IndexedOperation[]> {
    return this.set.ascending().map(([id, at]) => ({ id, at }));
  }
}
