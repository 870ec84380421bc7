// Policy `alerts:` (docs/policy.md#job-alerts): which jobs the workers watch without being asked, where an incident is
// posted and whom it mentions, and the thresholds of restarts and failing checkpoints.
import { z } from 'zod';
import { DurationSchema } from './duration-schema.js';
import { clusterPatternProblem, globProblem } from './glob.js';

export const DEFAULT_ALERT_RESTARTS = { count: 3, window: '10m' } as const;
export const DEFAULT_ALERT_CHECKPOINT_FAILURES = 3;

export interface AlertEntry {
  name: string;
  /** Namespace names or globs. */
  namespaces?: string[];
  /** `namespace/name` of FlinkDeployments or FlinkSessionJobs; either part may be a glob. */
  targets?: string[];
  /** Cluster names or globs; absent: every cluster. */
  clusters?: string[];
  channel: string;
  mention?: string;
  restarts?: { count?: number; window?: string };
  checkpoints?: { failures?: number };
}

const shown = (input: unknown) => JSON.stringify(input);
const nonEmpty = (what: string) => ({ error: `list at least one ${what}, or leave the key out` });

const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
/** A user group (`<!subteam^S…>`) or one person (`<@U…>`), as Slack writes a mention. */
const MENTION = /^(<!subteam\^S[A-Z0-9]{2,}>|<@[UW][A-Z0-9]{2,}>)$/;
const NAME_GLOB = /^[a-z0-9.*-]{1,253}$/;

/** Why `pattern` cannot name jobs as `namespace/name` (globs allowed in either part), or undefined. */
export function targetPatternProblem(pattern: string): string | undefined {
  const parts = pattern.split('/');
  if (parts.length !== 2) return `${shown(pattern)} is not namespace/name (e.g. "streaming-prod/orders" or "team-*/*")`;
  const [namespace, name] = parts as [string, string];
  const problem = globProblem(namespace);
  if (problem) return `${shown(pattern)}: the namespace ${problem}`;
  if (!NAME_GLOB.test(name)) {
    return `${shown(pattern)}: the name must be a Kubernetes name or glob: lowercase letters, digits, ".", "-" and "*"`;
  }
  return undefined;
}

const checked = (problemOf: (value: string) => string | undefined) =>
  z.string().superRefine((value, ctx) => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const positiveInt = z.int({ error: 'must be a whole number' }).min(1, { error: 'must be at least 1' });

const AlertEntrySchema = z
  .strictObject({
    name: z.string().trim().min(1, { error: 'must not be empty' }),
    namespaces: z.array(checked(globProblem)).min(1, nonEmpty('namespace')).optional(),
    targets: z.array(checked(targetPatternProblem)).min(1, nonEmpty('target')).optional(),
    clusters: z.array(checked(clusterPatternProblem)).min(1, nonEmpty('cluster')).optional(),
    channel: z.string().regex(CHANNEL_ID, {
      error: (iss) => `${shown(iss.input)} is not a Slack channel id (C… or G…, e.g. C0ALERTS)`,
    }),
    mention: z
      .string()
      .regex(MENTION, {
        error: (iss) =>
          `${shown(iss.input)} is not a mention: write a user group as "<!subteam^S0ONCALL>" or a person as "<@U0LEAD1>"`,
      })
      .optional(),
    restarts: z
      .strictObject({
        count: positiveInt.optional(),
        window: DurationSchema.optional(),
      })
      .optional(),
    checkpoints: z.strictObject({ failures: positiveInt.optional() }).optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.namespaces === undefined && entry.targets === undefined && entry.clusters === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'matches no job: name namespaces: [globs], targets: ["namespace/name"] or clusters: [globs]',
      });
    }
  });

/** `alerts:`: entries tried in order, the first one matching a job decides for it; names are unique. */
export const AlertsSchema = z.array(AlertEntrySchema).superRefine((entries, ctx) => {
  const first = new Map<string, number>();
  entries.forEach((entry, i) => {
    const seen = first.get(entry.name);
    if (seen === undefined) first.set(entry.name, i);
    else
      ctx.addIssue({
        code: 'custom',
        path: [i, 'name'],
        message: `duplicate alerts name ${shown(entry.name)} (also alerts[${seen}])`,
      });
  });
});
