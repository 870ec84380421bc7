// The record's seal (docs/lifecycle.md#record-integrity): a MAC over what was asked and approved, kept by the store that
// holds the key, and the checks the worker makes before it writes anything for a record.
import { canonicalJson } from '../model/canonical.js';
import { planDigest } from './planning/planner.js';
import { initialRecord, type OperationRecord } from './operation.js';

/** The key as the domain sees it: the key itself stays with its owner (config/record-key.ts). */
export interface Sealer {
  mac(text: string): string;
  verify(text: string, mac: unknown): boolean;
}

type Sealed = Pick<OperationRecord, 'id' | 'kind' | 'requester' | 'target' | 'intent' | 'plan' | 'approvals'>;

/** The canonical text the MAC covers: who asked what, the plan digest the approvals bind to, and the approvals. */
export function sealedContent(record: Sealed): string {
  return canonicalJson({
    v: 1,
    id: record.id,
    kind: record.kind,
    requester: record.requester,
    target: record.target,
    intent: record.intent,
    planDigest: record.plan?.digest ?? null,
    approvals: record.approvals,
  });
}

/**
 * `next` with its MAC as the store commits it: unchanged sealed content keeps its MAC; a changed one is sealed again only
 * when `current` verified, so a record altered behind the store's back stays unverifiable (never laundered by a later
 * commit). A new record (`current` undefined) is sealed.
 */
export function resealed(current: OperationRecord | undefined, next: OperationRecord, sealer: Sealer): OperationRecord {
  const content = sealedContent(next);
  if (current !== undefined) {
    const before = sealedContent(current);
    if (before === content || !sealer.verify(before, current.mac)) return withMac(next, current.mac);
  }
  return withMac(next, sealer.mac(content));
}

function withMac(record: OperationRecord, mac: string | undefined): OperationRecord {
  if (mac === undefined) {
    const { mac: _dropped, ...rest } = record;
    return rest;
  }
  return { ...record, mac };
}

/**
 * What does not match in a record, in words, or undefined when its MAC verifies and its plan's change still has the
 * digest the MAC covers.
 */
export function integrityProblem(record: OperationRecord, sealer: Sealer): string | undefined {
  if (record.mac === undefined) return 'the record carries no MAC (written before records were signed, or stripped)';
  if (!sealer.verify(sealedContent(record), record.mac))
    return 'the MAC does not match the intent, plan digest and approvals';
  const plan = record.plan;
  if (plan === undefined) return undefined;
  const digest = planDigest({ target: plan.target, uid: plan.uid, generation: plan.generation, change: plan.change });
  if (digest !== plan.digest) return "the plan's change does not match its digest";
  if (!sameTarget(plan.target, record.target)) return "the plan's target is not the operation's";
  return undefined;
}

/** Kind, namespace and name (the digest covers those; the cluster is the worker's own). */
function sameTarget(a: OperationRecord['target'], b: OperationRecord['target']): boolean {
  return a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

/** The initial record (`initialRecord`), sealed: what either store writes when it creates an operation. */
export function sealedInitialRecord(
  fields: Parameters<typeof initialRecord>[0],
  actor: string,
  at: number,
  sealer: Sealer,
): OperationRecord {
  return resealed(undefined, initialRecord(fields, actor, at), sealer);
}
