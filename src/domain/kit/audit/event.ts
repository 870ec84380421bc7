// The audit event, schema flink-chatops.audit/v1: its fields, the closed list of actions, its hash and its place in
// the chain, and strict reading of one event from untrusted JSON (docs/audit.md#the-events).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, type JsonObject } from './canonical.js';

export const AUDIT_SCHEMA = 'flink-chatops.audit/v1';

/** Every action an audit event may record, in the order of an operation's life (docs/audit.md#the-events). */
export const AUDIT_ACTIONS = [
  'requested',
  'denied',
  'awaiting_approval',
  'approved',
  'approval_refused',
  'rejected',
  'expired',
  'cancelled',
  'scheduled',
  'queued',
  'submitting',
  'submitted',
  'uncertain',
  'completed',
  'failed',
  'timed_out',
  'aborted',
  'break_glass',
  'reviewed',
  'reverted',
  'frozen',
  'unfrozen',
  'policy_loaded',
  'policy_rejected',
  'gitops_paused',
  'gitops_resumed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The `prevHash` of a chain's first event (seq 1): 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** Who caused the event: a Slack user of a workspace (`team`), and of an Enterprise Grid org when there is one. */
export interface AuditActor {
  user: string;
  team: string;
  enterprise?: string;
  name?: string;
}

/** The operation the event belongs to, when it belongs to one. */
export interface AuditOp {
  id: string;
  kind: string;
  cluster: string;
  namespace: string;
  name: string;
  uid?: string;
  reason?: string;
  incident?: string;
}

export interface AuditEvent {
  schema: typeof AUDIT_SCHEMA;
  id: string;
  seq: number;
  at: string;
  actor: AuditActor;
  action: AuditAction;
  op?: AuditOp;
  change?: JsonObject;
  decision?: JsonObject;
  evidence?: JsonObject;
  prevHash: string;
  hash: string;
}

/** What the caller knows of an event; `sealEvent` adds its schema and its place in the chain. */
export type AuditDraft = Omit<AuditEvent, 'schema' | 'seq' | 'prevHash' | 'hash'>;
/** What the next event needs of the one before it. */
export type ChainLink = Pick<AuditEvent, 'seq' | 'hash'>;

const AUDIT_ID = /^aud-[0-9a-f]{20}$/;
const AUDIT_ID_BYTES = 10;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** `aud-` + 20 lowercase hex characters (80 random bits) from the given random source. */
export function newAuditId(random: (size: number) => Uint8Array): string {
  const bytes = random(AUDIT_ID_BYTES);
  if (bytes.length < AUDIT_ID_BYTES) throw new Error(`newAuditId: the random source gave ${bytes.length} bytes`);
  const hex = Array.from(bytes.subarray(0, AUDIT_ID_BYTES), (byte) => byte.toString(16).padStart(2, '0'));
  return `aud-${hex.join('')}`;
}

/** Hex SHA-256 of the canonical JSON of the event without its `hash` (docs/audit.md#the-hash-chain). */
export function hashOf(event: Omit<AuditEvent, 'hash'>): string {
  const { hash: _ignored, ...content } = event as Omit<AuditEvent, 'hash'> & { hash?: unknown };
  return createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
}

const text = z.string({ error: 'must be a string' }).min(1, 'must not be empty');
const hex64 = z.string({ error: 'must be a string' }).regex(SHA256_HEX, 'must be 64 lowercase hex characters');
const jsonObject = z.record(z.string(), z.json(), { error: 'must be an object' });

const EventSchema = z.strictObject({
  schema: z.literal(AUDIT_SCHEMA, { error: `must be "${AUDIT_SCHEMA}"` }),
  id: z.string({ error: 'must be a string' }).regex(AUDIT_ID, 'must be "aud-" and 20 lowercase hex characters'),
  seq: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(Number.MAX_SAFE_INTEGER, 'is too large'),
  at: z
    .string({ error: 'must be a string' })
    .refine((at) => isIsoUtc(at), 'must be a UTC time as YYYY-MM-DDTHH:MM:SS.sssZ'),
  actor: z.strictObject(
    { user: text, team: text, enterprise: text.optional(), name: text.optional() },
    { error: 'must be an object' },
  ),
  action: z.enum(AUDIT_ACTIONS, {
    error: (issue) => (typeof issue.input === 'string' ? `unknown action "${issue.input}"` : 'must be a string'),
  }),
  op: z
    .strictObject(
      {
        id: text,
        kind: text,
        cluster: text,
        namespace: text,
        name: text,
        uid: text.optional(),
        reason: text.optional(),
        incident: text.optional(),
      },
      { error: 'must be an object' },
    )
    .optional(),
  change: jsonObject.optional(),
  decision: jsonObject.optional(),
  evidence: jsonObject.optional(),
  prevHash: hex64,
  hash: hex64,
});

/** Exactly the form `Date.prototype.toISOString` writes, and a real instant (no 2024-02-30). */
function isIsoUtc(at: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at)) return false;
  const instant = new Date(at);
  return !Number.isNaN(instant.getTime()) && instant.toISOString() === at;
}

/** `actor.user`, `change["a b"]`, `change.patch[2]`; the whole event when the path is empty. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_][\w-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || 'the event';
}

function problemOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `${fieldName([...issue.path, issue.keys[0] ?? ''])}: unknown field`;
  if (issue.input === undefined && issue.path.length > 0) return `${fieldName(issue.path)}: missing`;
  if (issue.code === 'invalid_type' && issue.path.length === 0) return 'the event must be a JSON object';
  return `${fieldName(issue.path)}: ${issue.message}`;
}

export type ReadEventResult = { ok: true; event: AuditEvent } | { ok: false; problem: string };

/** Checks that `value` is exactly an audit event; the problem names the first field that is not as it should be. */
export function readEvent(value: unknown): ReadEventResult {
  const parsed = EventSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, event: parsed.data as AuditEvent };
  const first = parsed.error.issues[0];
  return { ok: false, problem: first ? problemOf(first) : 'not an audit event' };
}

/** The drafts sealed one after the other after `head` (`seq` 0: the chain's first). */
export function sealAfter(drafts: readonly AuditDraft[], head: ChainLink): AuditEvent[] {
  const out: AuditEvent[] = [];
  let prev: ChainLink | undefined = head.seq === 0 ? undefined : head;
  for (const draft of drafts) {
    const event = sealEvent(draft, prev);
    out.push(event);
    prev = event;
  }
  return out;
}

/**
 * The draft as the event after `prev` (the chain's first when there is none): schema, seq, prevHash and hash set.
 * Throws when the draft is not a valid event, naming the field: a fault in the code that wrote it, never data.
 */
export function sealEvent(draft: AuditDraft, prev?: ChainLink): AuditEvent {
  const content: Omit<AuditEvent, 'hash'> = {
    schema: AUDIT_SCHEMA,
    id: draft.id,
    seq: prev ? prev.seq + 1 : 1,
    at: draft.at,
    actor: draft.actor,
    action: draft.action,
    ...(draft.op !== undefined && { op: draft.op }),
    ...(draft.change !== undefined && { change: draft.change }),
    ...(draft.decision !== undefined && { decision: draft.decision }),
    ...(draft.evidence !== undefined && { evidence: draft.evidence }),
    prevHash: prev ? prev.hash : GENESIS_HASH,
  };
  const checked = readEvent({ ...content, hash: GENESIS_HASH });
  if (!checked.ok) throw new Error(`sealEvent: ${checked.problem}`);
  // The parsed copy: fields in the schema's order, and nothing the caller still holds can change it after hashing.
  const { hash: _placeholder, ...copy } = checked.event;
  return { ...copy, hash: hashOf(copy) };
}
