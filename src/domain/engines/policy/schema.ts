// The policy file's shape (docs/policy.md#policy) as strict zod schemas; schema-issues.ts turns zod's issues into
// path-named lines.
import { TargetVerifySchema, VerifySchema, type TargetVerify, type VerifyPolicy } from '../../kit/policy/verify.js';
import { z } from 'zod';
import { DurationSchema, durationMs } from '../../kit/policy/duration-schema.js';
import { INTENT_KINDS, type IntentKind } from '../../kinds/index.js';
import type { ConfigRules, PolicyLimits } from '../../kit/policy/check-kit.js';
import { ConfigSchema, LimitsSchema } from '../../kit/policy/limits-schema.js';
import { UPGRADE_MODES, type UpgradeMode } from '../../model/upgrade-mode.js';
import { clusterNameProblem, clusterPatternProblem, globProblem } from '../../kit/policy/glob.js';
import { nearest } from '../../kit/policy/nearest.js';
import { DAYS, HHMM, isValidTimeZone, type Schedule } from '../../kit/policy/schedule.js';
import { BreakGlassSchema, type BreakGlassPolicy } from './break-glass.js';
import { gitopsSchema, type GitopsBlock } from '../../kit/policy/gitops.js';
import { WINDOW_NAME } from '../../kit/schedule/run-at.js';
import { LogsSchema, type LogsBlock } from '../../kit/policy/logs.js';
import { AlertsSchema, type AlertEntry } from '../../kit/policy/alerts.js';
import { RestoreSchema, type RestorePolicy } from '../../kit/policy/restore-source.js';

export interface PolicyGroup {
  users: string[];
  usergroups: string[];
}

export interface NamespaceEntry {
  /** Exact namespace or glob such as `prod-*`. */
  name: string;
  environment?: string;
  /** Group names; undefined = anyone may request. */
  requesters?: string[];
  incidentChannel?: string;
  /** Cluster names or globs this entry applies in; undefined = every cluster. */
  clusters?: string[];
  /** GitOps settings for targets here (docs/policy.md#gitops-managed-targets); unset keys: the top level's. */
  gitops?: GitopsPolicy;
  /** `verify.watchAfter` for targets here (docs/policy.md#keys-limits-and-verification); unset: the environment's. */
  verify?: TargetVerify;
  /** Who may read pod logs here and what is redacted (docs/policy.md#logs); unset keys: the top level's. */
  logs?: LogsBlock;
}

/** A `gitops:` block (docs/policy.md#gitops-managed-targets) as parsed; engines/policy/gitops.ts resolves it. */
export type GitopsPolicy = GitopsBlock<IntentKind>;

export interface RuleWhen {
  namespaces?: string[];
  operations?: IntentKind[];
  upgradeModes?: UpgradeMode[];
  schedule?: Schedule;
  /** Cluster names or globs; undefined = every cluster. */
  clusters?: string[];
}

/** A channel's defaults for targets that leave out the namespace or the cluster (at least one is set). */
export interface ChannelDefaults {
  defaultNamespace?: string;
  /** One exact cluster name. */
  defaultCluster?: string;
}

interface RuleBase {
  name: string;
  when: RuleWhen;
  /** GitOps settings where the rule matches; they win over the namespace's and the top level's, key by key. */
  gitops?: GitopsPolicy;
  /** `verify.watchAfter` where the rule matches; wins over the namespace's and the environment's. */
  verify?: TargetVerify;
}
export type RequireRule = RuleBase & { require: { approvals: number; from: string[] }; deny?: undefined };
export type DenyRule = RuleBase & { deny: string; require?: undefined };
/** A rule that only sets `gitops`: neither a requirement nor a deny. */
export type GitopsRule = RuleBase & { gitops: GitopsPolicy; require?: undefined; deny?: undefined };
/** A rule that only sets `verify` (docs/policy.md#keys-limits-and-verification). */
export type VerifyRule = RuleBase & { verify: TargetVerify; require?: undefined; deny?: undefined };
export type Rule = RequireRule | DenyRule | GitopsRule | VerifyRule;

export interface ApprovalSettings {
  /** As written, e.g. "30m". */
  ttl: string;
  ttlMs: number;
  allowSelfApproval: boolean;
  /** Environments where `--reason` is mandatory. */
  requireReason: string[];
  /**
   * How approvers are reached (docs/policy.md#reaching-approvers): a DM copy of the card each (default), the channel
   * card only, or neither.
   */
  notify: ApprovalNotify;
  /** Remind approvers who have not voted this long after AWAITING_APPROVAL; absent: never. */
  remindAfter?: string;
  remindAfterMs?: number;
  /** Then also ask `escalateTo`; absent: never. */
  escalateAfter?: string;
  escalateAfterMs?: number;
  escalateTo: string[];
}

export const APPROVAL_NOTIFY = ['dm', 'channel', 'none'] as const;
export type ApprovalNotify = (typeof APPROVAL_NOTIFY)[number];

export interface Policy {
  version: 1;
  groups: Record<string, PolicyGroup>;
  namespaces: NamespaceEntry[];
  channels: Record<string, ChannelDefaults>;
  rules: Rule[];
  approval: ApprovalSettings;
  /** Which flinkConfiguration keys `config` may change; absent: none. */
  config?: ConfigRules;
  /** Ceilings for `resources` and `scale`. */
  limits?: PolicyLimits;
  /** Deep verification and the health gate per environment (verify.ts). */
  verify?: VerifyPolicy;
  /**
   * Who may skip approvals in an emergency, where, and how soon it is reviewed (docs/policy.md#break-glass;
   * break-glass.ts).
   */
  breakGlass?: BreakGlassPolicy;
  /**
   * IANA zone for `--at HH:MM` and windows without their own zone (docs/policy.md#scheduled-operations); absent: UTC.
   */
  timezone?: string;
  /** Named execution windows for `--window` (docs/policy.md#scheduled-operations). */
  windows?: Record<string, ExecutionWindow>;
  /** GitOps settings everywhere (docs/policy.md#gitops-managed-targets); namespaces and rules override them. */
  gitops?: GitopsPolicy;
  /** Jobs the workers watch for failures on their own, and where incidents go (docs/policy.md#job-alerts). */
  alerts?: AlertEntry[];
  /** Who may read pod logs with `/flink logs` and what is redacted (docs/policy.md#logs); namespaces override keys. */
  logs?: LogsBlock;
  /** Where `restore --from` may read besides the target's own state (docs/policy.md#restore-sources). */
  restore?: RestorePolicy;
}

/** A `windows` entry: a schedule whose zone defaults to the policy's `timezone`. */
export type ExecutionWindow = Omit<Schedule, 'timezone'> & { timezone?: string };

export const DEFAULT_APPROVAL_TTL = '30m';

export { nearest };

/** A string that must be one of `values`; the error names the nearest one. */
function oneOf<T extends string>(values: readonly T[], noun: string) {
  return z.string().superRefine((value, ctx) => {
    if ((values as readonly string[]).includes(value)) return;
    const hint = nearest(value, values);
    ctx.addIssue({
      code: 'custom',
      message: `unknown ${noun} "${value}"${hint ? ` (did you mean "${hint}"?)` : ''}; use one of ${values.join(', ')}`,
    });
  }) as unknown as z.ZodType<T>;
}

const GitopsSchema = gitopsSchema(INTENT_KINDS, oneOf);

const nonEmpty = (what: string) => ({ error: `list at least one ${what}, or leave the key out` });

const shown = (input: unknown) => JSON.stringify(input);
const SlackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, {
  error: (iss) => `${shown(iss.input)} is not a Slack user id (U… or W…, e.g. U0LEAD1)`,
});
const SlackUsergroupId = z.string().regex(/^S[A-Z0-9]{2,}$/, {
  error: (iss) => `${shown(iss.input)} is not a Slack user group id (S…, e.g. S0LEADS)`,
});
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const SlackChannelId = z.string().regex(CHANNEL_ID, {
  error: (iss) => `${shown(iss.input)} is not a Slack channel id (C… or G…, e.g. C0INCIDENTS)`,
});

const NamespacePattern = z.string().superRefine((value, ctx) => {
  const problem = globProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A `clusters` list: exact cluster names (DNS-1123 labels) or globs such as "prod-*". */
const ClusterPatterns = z
  .array(
    z.string().superRefine((value, ctx) => {
      const problem = clusterPatternProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .min(1, nonEmpty('cluster'));

const GroupSchema = z.strictObject({
  users: z.array(SlackUserId).default([]),
  usergroups: z.array(SlackUsergroupId).default([]),
});

const NamespaceSchema = z.strictObject({
  name: NamespacePattern,
  environment: z.string().min(1, { error: 'must not be empty' }).optional(),
  requesters: z.array(z.string()).min(1, nonEmpty('group')).optional(),
  incidentChannel: SlackChannelId.optional(),
  clusters: ClusterPatterns.optional(),
  gitops: GitopsSchema.optional(),
  verify: TargetVerifySchema.optional(),
  logs: LogsSchema.optional(),
});

const ChannelSchema = z
  .strictObject({
    defaultNamespace: z.string().optional(),
    defaultCluster: z
      .string()
      .superRefine((value, ctx) => {
        const problem = clusterNameProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
  })
  .superRefine((channel, ctx) => {
    if (channel.defaultNamespace === undefined && channel.defaultCluster === undefined) {
      ctx.addIssue({ code: 'custom', message: 'set defaultNamespace or defaultCluster' });
    }
  });

const TimeSchema = z
  .string()
  .regex(HHMM, { error: (iss) => `must be HH:MM between 00:00 and 23:59, not ${shown(iss.input)}` });

const TimeZoneSchema = z.string().refine(isValidTimeZone, {
  error: (iss) => `unknown time zone ${shown(iss.input)}; use an IANA name such as Europe/Berlin`,
});

const ScheduleSchema = z.strictObject({
  days: z.array(oneOf(DAYS, 'day')).min(1, nonEmpty('day')),
  from: TimeSchema,
  to: TimeSchema,
  timezone: TimeZoneSchema,
});

/**
 * `windows:` for `--window <name>` (docs/policy.md#scheduled-operations): a schedule each, in the policy's `timezone`
 * unless it has its own.
 */
const WindowsSchema = z
  .record(z.string(), ScheduleSchema.extend({ timezone: TimeZoneSchema.optional() }))
  .superRefine((windows, ctx) => {
    for (const name of Object.keys(windows)) {
      if (!WINDOW_NAME.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `window name ${shown(name)} must be letters, digits, ".", "_" or "-" (at most 63)`,
        });
    }
  });

const WhenSchema = z.strictObject({
  namespaces: z.array(NamespacePattern).min(1, nonEmpty('namespace')).optional(),
  operations: z.array(oneOf(INTENT_KINDS, 'operation')).min(1, nonEmpty('operation')).optional(),
  upgradeModes: z.array(oneOf(UPGRADE_MODES, 'upgrade mode')).min(1, nonEmpty('upgrade mode')).optional(),
  schedule: ScheduleSchema.optional(),
  clusters: ClusterPatterns.optional(),
});

const RequireSchema = z.strictObject({
  approvals: z.int().min(1, { error: 'must be at least 1' }),
  from: z.array(z.string()).min(1, nonEmpty('group')),
});

const RuleSchema = z
  .strictObject({
    name: z.string().min(1, { error: 'must not be empty' }),
    when: WhenSchema.default({}),
    require: RequireSchema.optional(),
    deny: z.string().min(1, { error: 'must say why, e.g. "No production changes on Friday afternoons"' }).optional(),
    gitops: GitopsSchema.optional(),
    verify: TargetVerifySchema.optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.require && rule.deny !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'has both "require" and "deny"; a rule does at most one of them' });
    } else if (!rule.require && rule.deny === undefined && rule.gitops === undefined && rule.verify === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'needs "require: { approvals, from }", "deny: <why>", "gitops: { … }" or "verify: { watchAfter }"',
      });
    }
  });

const ApprovalSchema = z
  .strictObject({
    ttl: DurationSchema.default(DEFAULT_APPROVAL_TTL),
    allowSelfApproval: z.boolean().default(false),
    requireReason: z.array(z.string().min(1)).default([]),
    notify: oneOf(APPROVAL_NOTIFY, 'notify setting').default('dm'),
    remindAfter: DurationSchema.optional(),
    escalateAfter: DurationSchema.optional(),
    escalateTo: z.array(z.string()).min(1, nonEmpty('group')).default([]),
  })
  .prefault({})
  .superRefine((a, ctx) => {
    if (a.escalateAfter !== undefined && a.escalateTo.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['escalateAfter'],
        message: 'needs escalateTo: [groups] (whom to ask after it)',
      });
    }
  })
  .transform((a) => ({
    ...a,
    ttlMs: durationMs(a.ttl),
    ...(a.remindAfter === undefined ? {} : { remindAfterMs: durationMs(a.remindAfter) }),
    ...(a.escalateAfter === undefined ? {} : { escalateAfterMs: durationMs(a.escalateAfter) }),
  }));

export const PolicySchema = z.strictObject({
  version: z.literal(1, { error: 'must be 1' }),
  groups: z.record(z.string().min(1), GroupSchema).default({}),
  namespaces: z.array(NamespaceSchema).min(1, { error: 'list at least one namespace the bot manages' }),
  channels: z.record(z.string(), ChannelSchema).default({}),
  rules: z.array(RuleSchema).default([]),
  approval: ApprovalSchema,
  config: ConfigSchema.optional(),
  limits: LimitsSchema.optional(),
  verify: VerifySchema.optional(),
  breakGlass: BreakGlassSchema.optional(),
  timezone: TimeZoneSchema.optional(),
  windows: WindowsSchema.optional(),
  gitops: GitopsSchema.optional(),
  alerts: AlertsSchema.optional(),
  logs: LogsSchema.optional(),
  restore: RestoreSchema.optional(),
});
