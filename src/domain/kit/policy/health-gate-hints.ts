// What a health-gate warning or denial says besides what it saw (docs/deep-verification.md#when-the-gate-denies): how
// to look (`/flink exceptions <target>`), and the ways through: the time it passes by itself, an undo (which the gate
// only warns about), and the policy key that sets the gate. Break-glass is no way through (docs/policy.md#break-glass).
import { DEFAULT_COMMAND } from '../language/verb-kit.js';
import { clock } from './health-restarts.js';

/** Where the gate stands, for its hints; each part is left out when unknown. */
export interface GateHints {
  /** The target as a command names it (`streaming-prod/orders`). */
  target?: string;
  /** The policy key that sets this environment's gate, e.g. `verify.production.healthGate`. */
  policyKey?: string;
}

/** "see `/flink exceptions streaming-prod/orders`", or nothing without a target. */
export function lookHint(hints: GateHints): string[] {
  return hints.target === undefined ? [] : [`see \`${DEFAULT_COMMAND} exceptions ${hints.target}\``];
}

/**
 * The ways through a denial: when it passes by itself (a storm ends `window` after the failover that made it one, on
 * the JobManager's clock; failing checkpoints end when one completes), an undo, the policy key.
 */
export function waysThrough(hints: GateHints, passesAt: number | undefined, checkpoints: boolean): string {
  const wait = [
    passesAt === undefined ? '' : `after ${clock(passesAt)} (JobManager clock) if the job does not fail over again`,
    checkpoints ? 'once checkpoints complete again' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const ways = [
    `it passes ${wait}`,
    `an undo (\`${DEFAULT_COMMAND} undo <op id>\`) only warns`,
    `change the policy's ${hints.policyKey ?? 'verify.healthGate'} (restarts, window, or outcome: warn)`,
  ];
  return `ways through: ${ways.join('; or ')}`;
}
