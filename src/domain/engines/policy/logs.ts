// The `logs` settings in force for a namespace (docs/policy.md#logs): who may read pod logs and which lines are
// masked, each key from the namespace entry, else the top level, else the default (the namespace's requesters; no
// redact patterns). Also the cross-check of group names and check-policy's words.
import { compileRedact, type LogsBlock } from '../../kit/policy/logs.js';
import { joinWords } from '../../kit/policy/schedule.js';
import { findNamespace } from './evaluate.js';
import { isRequester, type MembershipLookup } from './groups.js';
import type { NamespaceEntry, Policy } from './schema.js';

export interface LogsSettings {
  /** Groups that may read logs; undefined: anyone (no `allowedFor` and a namespace without `requesters`). */
  allowedFor: string[] | undefined;
  /** Where `allowedFor` comes from, for messages. */
  source: 'logs.allowedFor' | 'requesters';
  /** The patterns as written, and compiled (case-insensitive). */
  redact: string[];
  redactPatterns: RegExp[];
}

/** Key by key: the namespace entry's `logs`, else the top level's, else the default. */
export function logsSettings(policy: Pick<Policy, 'logs'>, entry: NamespaceEntry): LogsSettings {
  const blocks: LogsBlock[] = [entry.logs ?? {}, policy.logs ?? {}];
  const allowed = blocks.find((b) => b.allowedFor !== undefined)?.allowedFor;
  const redact = blocks.find((b) => b.redact !== undefined)?.redact ?? [];
  return {
    allowedFor: allowed ?? entry.requesters,
    source: allowed === undefined ? 'requesters' : 'logs.allowedFor',
    redact: [...redact],
    redactPatterns: compileRedact(redact),
  };
}

export type LogsAccess = { ok: true; settings: LogsSettings; entry: NamespaceEntry } | { ok: false; message: string };

/**
 * Whether `user` may read logs of targets in `namespace` (docs/policy.md#logs): the namespace must be managed, and the
 * user in one of the allowed groups. Rejects only on membership faults.
 */
export async function logsAccess(
  policy: Policy,
  input: { namespace: string; cluster?: string; user: string },
  membership: MembershipLookup,
  unmanaged: () => string,
): Promise<LogsAccess> {
  const entry = findNamespace(policy, input.namespace, input.cluster);
  if (!entry) return { ok: false, message: unmanaged() };
  const settings = logsSettings(policy, entry);
  if (await isRequester(settings.allowedFor, input.user, membership)) return { ok: true, settings, entry };
  const place = input.cluster === undefined ? input.namespace : `${input.namespace} in cluster ${input.cluster}`;
  const groups = joinWords(settings.allowedFor ?? []);
  const why =
    settings.source === 'requesters'
      ? 'the namespace requesters, as the policy sets no logs.allowedFor'
      : 'the policy’s logs.allowedFor';
  return { ok: false, message: `you may not read logs in ${place}: only members of ${groups} may (${why})` };
}

/** `logs.allowedFor` naming a group the policy does not define, at the top level and in each namespace entry. */
export function logsGroupProblems(raw: Record<string, unknown>): string[] {
  const groups = isRecord(raw.groups) ? raw.groups : {};
  const scopes: [string, unknown][] = [['logs', raw.logs]];
  if (Array.isArray(raw.namespaces))
    raw.namespaces.forEach((ns, i) => scopes.push([`namespaces[${i}].logs`, isRecord(ns) ? ns.logs : undefined]));
  return scopes.flatMap(([path, block]) => {
    const names = isRecord(block) && Array.isArray(block.allowedFor) ? block.allowedFor : [];
    return names.flatMap((name, j) =>
      typeof name === 'string' && !Object.hasOwn(groups, name)
        ? [`${path}.allowedFor[${j}]: unknown group "${name}"`]
        : [],
    );
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function blockWords(block: LogsBlock, fallback: string): string[] {
  const words: string[] = [];
  if (block.allowedFor !== undefined) words.push(`read by members of ${joinWords(block.allowedFor)}`);
  else if (fallback !== '') words.push(fallback);
  if (block.redact !== undefined)
    words.push(
      block.redact.length === 0
        ? 'no line is redacted'
        : `lines matching ${block.redact.map((p) => JSON.stringify(p)).join(', ')} are redacted`,
    );
  return words;
}

/** check-policy's lines for `/flink logs`: the default, then each namespace entry that sets something. */
export function describeLogs(policy: Policy): string[] {
  const top = blockWords(policy.logs ?? {}, 'read by the requesters of each namespace (anyone where it has none)');
  const lines = [`  - by default: ${top.join('; ')};`];
  for (const ns of policy.namespaces) {
    const words = blockWords(ns.logs ?? {}, '');
    if (words.length > 0) lines.push(`  - namespace ${ns.name}: ${words.join('; ')};`);
  }
  lines.push(
    '  - values that look like secrets (password=, secret=, token=, key=, Slack and AWS keys, bearer tokens) are always masked as •••.',
  );
  return lines;
}
