// The GitOps settings in force for one operation (docs/policy.md#gitops-managed-targets): each key of the policy's
// `gitops` blocks resolved on its own, from the first matching rule to the built-in default.
import { KIND_NAMES, KINDS, type IntentKind } from '../../kinds/index.js';
import {
  DEFAULT_ON_MANAGED,
  DEFAULT_REVERT_WATCH,
  DEFAULT_REVERT_WATCH_MS,
  type OnManaged,
} from '../../kit/policy/gitops.js';
import { joinWords } from '../../kit/policy/schedule.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import { findNamespace, ruleMatches } from './evaluate.js';
import type { GitopsPolicy, Policy } from './schema.js';

export interface GitopsSettings {
  onManaged: OnManaged;
  /** As written, e.g. "15m"; "0" when the watch is off. */
  revertWatch: string;
  /** 0: no revert watch after COMPLETED. */
  revertWatchMs: number;
  /** Kinds the GitOps handling skips. */
  exempt: IntentKind[];
}

/**
 * warn, a 15m revert watch, and exempt the kinds that create a snapshot beside the target instead of patching it (a
 * savepoint): they change nothing Git declares (docs/policy.md#gitops-managed-targets).
 */
export const DEFAULT_GITOPS: GitopsSettings = Object.freeze({
  onManaged: DEFAULT_ON_MANAGED,
  revertWatch: DEFAULT_REVERT_WATCH,
  revertWatchMs: DEFAULT_REVERT_WATCH_MS,
  exempt: KIND_NAMES.filter((k) => KINDS[k].traits.change === 'create-snapshot'),
});

export interface GitopsInput {
  namespace: string;
  /** The target's cluster; undefined in a single-cluster installation. */
  cluster?: string;
  intentKind: IntentKind;
  upgradeMode?: UpgradeMode;
  now: Date;
}

/**
 * Key by key: the first matching rule (file order) that sets the key, else the namespace entry (findNamespace), else
 * the top level, else the default. `revertWatch` and `revertWatchMs` travel together; `exempt` is replaced, not merged.
 */
export function gitopsFor(policy: Policy, input: GitopsInput): GitopsSettings {
  const blocks: GitopsPolicy[] = [
    ...policy.rules.filter((rule) => rule.gitops !== undefined && ruleMatches(rule, input)).map((r) => r.gitops ?? {}),
    findNamespace(policy, input.namespace, input.cluster)?.gitops ?? {},
    policy.gitops ?? {},
  ];
  const first = <T>(pick: (block: GitopsPolicy) => T | undefined): T | undefined => {
    for (const block of blocks) {
      const value = pick(block);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const watch = first((b) =>
    b.revertWatch === undefined ? undefined : { text: b.revertWatch, ms: b.revertWatchMs ?? 0 },
  );
  return {
    onManaged: first((b) => b.onManaged) ?? DEFAULT_GITOPS.onManaged,
    revertWatch: watch?.text ?? DEFAULT_GITOPS.revertWatch,
    revertWatchMs: watch?.ms ?? DEFAULT_GITOPS.revertWatchMs,
    exempt: [...(first((b) => b.exempt) ?? DEFAULT_GITOPS.exempt)],
  };
}

const ON_MANAGED_WORDS: Readonly<Record<OnManaged, string>> = {
  warn: 'warn before a change Git will revert (the card names the owner and the fields Git declares)',
  refuse: 'refuse a change Git will revert (change Git instead; --break-glass does not bypass it)',
  pause:
    'pause Flux on the target in the same patch (then commit the change to Git and run `/flink gitops resume <target>`; refused for Argo CD and Helm targets)',
};

/** check-policy's words for the keys one `gitops` block sets, in key order; nothing for an empty block. */
export function gitopsWords(block: GitopsPolicy): string[] {
  const words: string[] = [];
  if (block.onManaged !== undefined) words.push(ON_MANAGED_WORDS[block.onManaged]);
  if (block.revertWatch !== undefined) {
    words.push(
      block.revertWatchMs === 0 ? 'no revert watch' : `changes are watched for a revert for ${block.revertWatch}`,
    );
  }
  if (block.exempt !== undefined) {
    const n = block.exempt.length;
    words.push(n === 0 ? 'no operation is exempt' : `${joinWords(block.exempt)} ${n === 1 ? 'is' : 'are'} exempt`);
  }
  return words;
}
