// Faults injected by tests: forced 429s, forced platform errors, and calls applied but never answered.
import { isSimMethod, SIM_METHODS } from './methods.js';
import type { SimFaults } from './types.js';

export type Fault =
  { kind: 'ratelimited'; retryAfterSec: number } | { kind: 'failed'; error: string } | { kind: 'timeout' };

type Pending = Fault & { remaining: number };

/** Methods outside METHODS that take faults too (Socket Mode's, answered by socket-mode.ts). */
const OTHER_METHODS = ['apps.connections.open'];

function checkMethod(method: string): void {
  if (!isSimMethod(method) && !OTHER_METHODS.includes(method)) {
    throw new Error(
      `simulated Slack: no method ${JSON.stringify(method)} to inject a fault into; known: ${[...SIM_METHODS, ...OTHER_METHODS].join(', ')}`,
    );
  }
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`simulated Slack: ${name} must be a positive integer (got ${value})`);
}

/** Faults for one method apply in the order they were registered. */
export class FaultPlan implements SimFaults {
  private readonly pending = new Map<string, Pending[]>();

  private add(method: string, fault: Fault, times: number): void {
    checkMethod(method);
    checkCount('times', times);
    const list = this.pending.get(method) ?? [];
    list.push({ ...fault, remaining: times });
    this.pending.set(method, list);
  }

  rateLimit(method: string, opts: { times: number; retryAfterSec: number }): void {
    checkCount('retryAfterSec', opts.retryAfterSec);
    this.add(method, { kind: 'ratelimited', retryAfterSec: opts.retryAfterSec }, opts.times);
  }

  failNext(method: string, error: string, times = 1): void {
    if (typeof error !== 'string' || !/^[a-z0-9_]+$/.test(error)) {
      throw new Error(
        `simulated Slack: the error must be a Slack error code such as not_in_channel (got ${JSON.stringify(error)})`,
      );
    }
    this.add(method, { kind: 'failed', error }, times);
  }

  timeoutNext(method: string, times = 1): void {
    this.add(method, { kind: 'timeout' }, times);
  }

  clear(): void {
    this.pending.clear();
  }

  /** The fault for this call of `method`, if one is pending; consumes it. */
  take(method: string): Fault | undefined {
    const list = this.pending.get(method);
    const head = list?.[0];
    if (list === undefined || head === undefined) return undefined;
    head.remaining -= 1;
    if (head.remaining === 0) list.shift();
    const { remaining: _remaining, ...fault } = head;
    return fault;
  }
}
