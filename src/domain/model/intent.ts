// The typed results of parsing a command: operation intents, read-only queries and immediate commands.
import { z } from 'zod';
import { TargetSchema } from './target.js';

export const UPGRADE_MODES = ['savepoint', 'last-state', 'stateless'] as const;
export type UpgradeMode = (typeof UPGRADE_MODES)[number];

export const OP_ID_PATTERN = /^op-[a-z0-9]{6,12}$/;
export const OpIdSchema = z.string().regex(OP_ID_PATTERN);

export const MIN_PARALLELISM = 1;
export const MAX_PARALLELISM = 32768;

/** Options every operation command takes. */
const common = {
  reason: z.string().min(1).optional(),
  /** Slack channel ids to mirror digests into (from `--incident <#C…>`). */
  incidentChannels: z.array(z.string()).default([]),
};

export const SuspendIntent = z.object({
  kind: z.literal('suspend'),
  target: TargetSchema,
  mode: z.enum(UPGRADE_MODES).optional(),
  ...common,
});
export const ResumeIntent = z.object({ kind: z.literal('resume'), target: TargetSchema, ...common });
export const RestartIntent = z.object({ kind: z.literal('restart'), target: TargetSchema, ...common });
export const ScaleIntent = z.object({
  kind: z.literal('scale'),
  target: TargetSchema,
  parallelism: z.number().int().min(MIN_PARALLELISM).max(MAX_PARALLELISM),
  ...common,
});
export const UpgradeIntent = z.object({
  kind: z.literal('upgrade'),
  target: TargetSchema,
  image: z.string().min(1),
  mode: z.enum(UPGRADE_MODES).optional(),
  ...common,
});
export const SavepointIntent = z.object({ kind: z.literal('savepoint'), target: TargetSchema, ...common });
export const RestoreIntent = z.object({
  kind: z.literal('restore'),
  target: TargetSchema,
  from: z.string().min(1),
  allowNonRestoredState: z.boolean().default(false),
  ...common,
});
export const UndoIntent = z.object({ kind: z.literal('undo'), opId: OpIdSchema, ...common });

export const OperationIntentSchema = z.discriminatedUnion('kind', [
  SuspendIntent,
  ResumeIntent,
  RestartIntent,
  ScaleIntent,
  UpgradeIntent,
  SavepointIntent,
  RestoreIntent,
  UndoIntent,
]);
export type OperationIntent = z.infer<typeof OperationIntentSchema>;
export type IntentKind = OperationIntent['kind'];
export type IntentOf<K extends IntentKind> = Extract<OperationIntent, { kind: K }>;
export const INTENT_KINDS = ['suspend', 'resume', 'restart', 'scale', 'upgrade', 'savepoint', 'restore', 'undo'] as const satisfies readonly IntentKind[];

const visibility = { public: z.boolean().default(false) };

export const QuerySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('help'), verb: z.string().optional(), ...visibility }),
  z.object({ kind: z.literal('status'), target: TargetSchema, ...visibility }),
  z.object({ kind: z.literal('list'), namespace: z.string().optional(), ...visibility }),
  z.object({ kind: z.literal('ops'), target: TargetSchema.optional(), limit: z.number().int().min(1).max(100).default(10), ...visibility }),
  z.object({ kind: z.literal('op'), opId: OpIdSchema, ...visibility }),
  z.object({ kind: z.literal('explain'), intent: OperationIntentSchema, ...visibility }),
  z.object({ kind: z.literal('locks'), ...visibility }),
]);
export type Query = z.infer<typeof QuerySchema>;
export type QueryKind = Query['kind'];

export const CommandSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cancel'), opId: OpIdSchema }),
  z.object({ kind: z.literal('lock'), target: TargetSchema, reason: z.string().min(1) }),
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
