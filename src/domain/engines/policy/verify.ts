// `verify.watchAfter` in force for one operation (docs/policy.md#keys-limits-and-verification): the first matching
// rule that sets it, else the target's namespace entry, else its environment's `verify` block, else `verify.default`,
// else the built-in (10m in production, 0 elsewhere).
import type { IntentKind } from '../../kinds/index.js';
import { environmentWatchAfter, type WatchAfter } from '../../kit/policy/verify.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import { findNamespace, ruleMatches } from './evaluate.js';
import type { Policy } from './schema.js';

export interface WatchAfterInput {
  namespace: string;
  /** The target's cluster; undefined in a single-cluster installation. */
  cluster?: string;
  intentKind: IntentKind;
  upgradeMode?: UpgradeMode;
  /** When the rule schedules are read (COMPLETED: the watch starts then). */
  now: Date;
}

export function watchAfterFor(policy: Policy, input: WatchAfterInput): WatchAfter {
  const rule = policy.rules.find((r) => r.verify?.watchAfter !== undefined && ruleMatches(r, input));
  const entry = findNamespace(policy, input.namespace, input.cluster);
  for (const block of [rule?.verify, entry?.verify])
    if (block?.watchAfter !== undefined) return { watchAfter: block.watchAfter, watchAfterMs: block.watchAfterMs ?? 0 };
  return environmentWatchAfter(policy, entry?.environment);
}
