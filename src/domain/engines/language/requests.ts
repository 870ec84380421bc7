// The typed results of parsing a command: operation intents (from the kinds), read-only queries and immediate commands.
import { z } from 'zod';
import { OperationIntentSchema, type OperationIntent } from '../../kinds/index.js';
import { OpIdSchema } from '../../kit/language/intent-base.js';
import { TargetSchema } from '../../model/target.js';
import { MAX_FREEZE_MS } from '../../model/freeze.js';
import { LAST_PAGE, MAX_LIST_PAGE } from '../../kit/language/list.js';
import { DEFAULT_LOG_LINES, MAX_LOG_LINES, MAX_TASK_MANAGER } from '../../kit/language/logs.js';

const visibility = { public: z.boolean().default(false) };

export const QuerySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('help'), verb: z.string().optional(), ...visibility }),
  z.object({ kind: z.literal('status'), target: TargetSchema, ...visibility }),
  z.object({
    kind: z.literal('list'),
    namespace: z.string().optional(),
    /** Whose pages, with several clusters (docs/commands.md#paging-through-list); absent: the first cluster's. */
    cluster: z.string().optional(),
    page: z.union([z.number().int().min(1).max(MAX_LIST_PAGE), z.literal(LAST_PAGE)]).optional(),
    ...visibility,
  }),
  z.object({
    kind: z.literal('ops'),
    target: TargetSchema.optional(),
    limit: z.number().int().min(1).max(100).default(10),
    ...visibility,
  }),
  z.object({ kind: z.literal('op'), opId: OpIdSchema, ...visibility }),
  z.object({ kind: z.literal('explain'), intent: OperationIntentSchema, ...visibility }),
  z.object({ kind: z.literal('locks'), ...visibility }),
  z.object({
    kind: z.literal('savepoints'),
    target: TargetSchema,
    limit: z.number().int().min(1).max(100).default(10),
    ...visibility,
  }),
  z.object({
    kind: z.literal('exceptions'),
    target: TargetSchema,
    limit: z.number().int().min(1).max(100).default(10),
    ...visibility,
  }),
  // Always private: logs can contain data (docs/commands.md#flink-logs).
  z.object({
    kind: z.literal('logs'),
    target: TargetSchema,
    tm: z.number().int().min(1).max(MAX_TASK_MANAGER).optional(),
    lines: z.number().int().min(1).max(MAX_LOG_LINES).default(DEFAULT_LOG_LINES),
    grep: z.string().min(1).optional(),
    public: z.literal(false).default(false),
  }),
]);
export type Query = z.infer<typeof QuerySchema>;
export type QueryKind = Query['kind'];

export const CommandSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cancel'), opId: OpIdSchema }),
  z.object({
    kind: z.literal('lock'),
    target: TargetSchema,
    reason: z.string().min(1),
    /** `--for` (docs/policy.md#freezes): how long it holds, ms. */
    forMs: z.number().int().positive().max(MAX_FREEZE_MS).optional(),
  }),
  z.object({ kind: z.literal('unlock'), target: TargetSchema }),
]);
export type Command = z.infer<typeof CommandSchema>;
export type CommandKind = Command['kind'];

/** The one result type of parsing: never an exception. */
export type ParseResult =
  | { type: 'intent'; intent: OperationIntent }
  | { type: 'query'; query: Query }
  | { type: 'command'; command: Command }
  | { type: 'reply'; message: string; suggestion?: string };
