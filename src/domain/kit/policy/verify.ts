// Policy `verify` (docs/deep-verification.md#policy, docs/policy.md#keys-limits-and-verification): per environment,
// whether Flink REST is read, whether a checkpoint after the change is required, whether the health gate warns or
// fails, and how long the job is watched after COMPLETED (`watchAfter`). `default` applies to environments not listed;
// a namespace entry and a rule may set `watchAfter` for their targets (engines/policy/verify.ts resolves it).
import { z } from 'zod';
import { parseDuration } from '../../model/duration.js';

export const HEALTH_GATE_OUTCOMES = ['warn', 'fail'] as const;
export type HealthGate = (typeof HEALTH_GATE_OUTCOMES)[number];

/**
 * When the job's failovers trip the gate (docs/deep-verification.md#what-counts-as-a-restart):
 * `restarts` failovers within `window`, on the JobManager's clock.
 */
export interface RestartLimit {
  restarts: number;
  /** As written, e.g. "10m". */
  window: string;
  windowMs: number;
}

export interface VerifySettings {
  rest: boolean;
  checkpointAfterChange: boolean;
  healthGate: HealthGate;
  restartLimit: RestartLimit;
}

/** The job restarted in the last 10 minutes (a task or a global failover) trips the gate (docs/deep-verification.md#what-counts-as-a-restart). */
export const DEFAULT_RESTART_LIMIT: Readonly<RestartLimit> = { restarts: 1, window: '10m', windowMs: 600_000 };
/** The REST answer the gate reads holds at most 20 root exceptions (Flink's `maxExceptions` default). */
export const MAX_RESTARTS = 20;
const MAX_WINDOW_MS = 24 * 3_600_000;

/** How long the job is watched after COMPLETED (docs/lifecycle.md#after-completed). */
export interface WatchAfter {
  /** As written, e.g. "10m"; "0" when there is no post-change watch. */
  watchAfter: string;
  /** 0: no post-change watch. */
  watchAfterMs: number;
}

/**
 * The defaults (docs/deep-verification.md#policy): production requires a checkpoint after the change and fails the
 * gate; elsewhere it warns.
 */
export const DEFAULT_VERIFY: Readonly<Record<string, Omit<VerifySettings, 'restartLimit'>>> = {
  production: { rest: true, checkpointAfterChange: true, healthGate: 'fail' },
  default: { rest: true, checkpointAfterChange: false, healthGate: 'warn' },
};

/** Production jobs are watched for 10 minutes after a change; elsewhere not at all. */
export const DEFAULT_WATCH_AFTER: Readonly<Record<string, WatchAfter>> = {
  production: { watchAfter: '10m', watchAfterMs: 600_000 },
  default: { watchAfter: '0', watchAfterMs: 0 },
};

/** `<n>ms|s|m|h`, or `0` (any zero) for no post-change watch; the milliseconds, or the problem. */
export function watchAfterMs(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  if (/^0+(ms|s|m|h)?$/.test(text.trim())) return { ok: true, ms: 0 };
  const parsed = parseDuration(text);
  return parsed.ok ? parsed : { ok: false, message: `${parsed.message}, or 0 for no post-change watch` };
}

/** `watchAfter` as written (a string, or a bare 0) → `{watchAfter, watchAfterMs}`. */
const WatchAfterSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = String(value).trim();
  const parsed = watchAfterMs(text);
  if (parsed.ok) return { text, ms: parsed.ms };
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

interface WatchAfterKeys {
  watchAfter?: string;
  /** Set exactly when `watchAfter` is. */
  watchAfterMs?: number;
}

const watchAfterKeys = (w: { text: string; ms: number } | undefined): WatchAfterKeys =>
  w === undefined ? {} : { watchAfter: w.text, watchAfterMs: w.ms };

const OutcomeSchema = z.enum(HEALTH_GATE_OUTCOMES, { error: `must be one of ${HEALTH_GATE_OUTCOMES.join(', ')}` });

/** The gate's `window`: a duration up to 24h. */
const GateWindowSchema = z.string({ error: 'must be a duration such as 10m' }).transform((value, ctx) => {
  const parsed = parseDuration(value);
  if (parsed.ok && parsed.ms <= MAX_WINDOW_MS) return { text: value.trim(), ms: parsed.ms };
  ctx.addIssue({ code: 'custom', message: parsed.ok ? `"${value}" is longer than 24h` : parsed.message });
  return z.NEVER;
});

/** The gate as written, normalised: unset keys fall back like the others (`verifyFor`). */
export interface HealthGatePolicy {
  outcome?: HealthGate;
  restarts?: number;
  window?: string;
  windowMs?: number;
}

/**
 * `healthGate: fail` or `healthGate: { outcome: fail, restarts: 3, window: 10m }`
 * (docs/deep-verification.md#what-counts-as-a-restart).
 */
const HealthGateSchema = z.preprocess(
  (value) => (typeof value === 'string' ? { outcome: value } : value),
  z
    .strictObject(
      {
        outcome: OutcomeSchema.optional(),
        restarts: z
          .number({ error: `must be a whole number from 1 to ${MAX_RESTARTS}` })
          .int({ error: `must be a whole number from 1 to ${MAX_RESTARTS}` })
          .min(1, { error: `must be a whole number from 1 to ${MAX_RESTARTS}` })
          .max(MAX_RESTARTS, { error: `must be at most ${MAX_RESTARTS} (the root exceptions Flink's answer holds)` })
          .optional(),
        window: GateWindowSchema.optional(),
      },
      { error: `must be ${HEALTH_GATE_OUTCOMES.join(' or ')}, or { outcome, restarts, window }` },
    )
    .transform(({ window, ...rest }): HealthGatePolicy => ({
      ...rest,
      ...(window === undefined ? {} : { window: window.text, windowMs: window.ms }),
    })),
);

const EnvironmentVerifySchema = z
  .strictObject({
    rest: z.boolean({ error: 'must be true or false' }).optional(),
    checkpointAfterChange: z.boolean({ error: 'must be true or false' }).optional(),
    healthGate: HealthGateSchema.optional(),
    watchAfter: WatchAfterSchema.optional(),
  })
  .transform(({ watchAfter, ...rest }) => ({ ...rest, ...watchAfterKeys(watchAfter) }));

export const VerifySchema = z.record(
  z.string().min(1, { error: 'an environment name must not be empty' }),
  EnvironmentVerifySchema,
);
export type VerifyPolicy = z.infer<typeof VerifySchema>;

/**
 * The `verify` block of a namespace entry or a rule: only what may differ per target (`watchAfter`); REST, the
 * checkpoint requirement and the gate stay per environment.
 */
export const TargetVerifySchema = z
  .strictObject({ watchAfter: WatchAfterSchema.optional() })
  .transform(({ watchAfter }): TargetVerify => watchAfterKeys(watchAfter));
export type TargetVerify = WatchAfterKeys;

/** The settings in force for `environment` (unset keys fall back to `default`, then to the defaults). */
export function verifyFor(policy: { verify?: VerifyPolicy }, environment: string | undefined): VerifySettings {
  const own = environment === undefined ? undefined : policy.verify?.[environment];
  const fallback = policy.verify?.default;
  const builtIn =
    (environment !== undefined ? DEFAULT_VERIFY[environment] : undefined) ??
    (DEFAULT_VERIFY.default as Omit<VerifySettings, 'restartLimit'>);
  const gate = [own?.healthGate, fallback?.healthGate];
  const window = gate.find((g) => g?.window !== undefined);
  return {
    rest: own?.rest ?? fallback?.rest ?? builtIn.rest,
    checkpointAfterChange:
      own?.checkpointAfterChange ?? fallback?.checkpointAfterChange ?? builtIn.checkpointAfterChange,
    healthGate: gate.find((g) => g?.outcome !== undefined)?.outcome ?? builtIn.healthGate,
    restartLimit: {
      restarts: gate.find((g) => g?.restarts !== undefined)?.restarts ?? DEFAULT_RESTART_LIMIT.restarts,
      window: window?.window ?? DEFAULT_RESTART_LIMIT.window,
      windowMs: window?.windowMs ?? DEFAULT_RESTART_LIMIT.windowMs,
    },
  };
}

/** `watchAfter` of `environment`'s block, else of `default`, else the built-in (10m in production, 0 elsewhere). */
export function environmentWatchAfter(policy: { verify?: VerifyPolicy }, environment: string | undefined): WatchAfter {
  const blocks = [environment === undefined ? undefined : policy.verify?.[environment], policy.verify?.default];
  for (const block of blocks)
    if (block?.watchAfter !== undefined) return { watchAfter: block.watchAfter, watchAfterMs: block.watchAfterMs ?? 0 };
  return (
    (environment === undefined ? undefined : DEFAULT_WATCH_AFTER[environment]) ??
    (DEFAULT_WATCH_AFTER.default as WatchAfter)
  );
}

/** "the job is watched for 10m after COMPLETED (…)", "the job is not watched after COMPLETED". */
export function watchAfterWords(w: WatchAfter): string {
  return w.watchAfterMs === 0
    ? 'the job is not watched after COMPLETED'
    : `the job is watched for ${w.watchAfter} after COMPLETED (restarts, failing checkpoints, leaving RUNNING)`;
}

/** "any failover in 10m", "3 failovers in 10m, or one global failover" (docs/deep-verification.md#what-counts-as-a-restart). */
export function restartLimitWords(limit: RestartLimit): string {
  return limit.restarts === 1
    ? `any failover in ${limit.window}`
    : `${limit.restarts} failovers in ${limit.window}, or one global failover`;
}

interface DescribedPolicy {
  verify?: VerifyPolicy;
  namespaces: readonly { name: string; environment?: string | undefined; verify?: TargetVerify | undefined }[];
  rules: readonly { name: string; verify?: TargetVerify | undefined }[];
}

/** check-policy's words for the verify block: each environment the policy names, everything else, then overrides. */
export function describeVerify(policy: DescribedPolicy): string[] {
  const named = new Set<string>([
    ...Object.keys(policy.verify ?? {}),
    ...policy.namespaces.flatMap((n) => (n.environment ? [n.environment] : [])),
  ]);
  named.delete('default');
  const line = (label: string, env: string | undefined): string => {
    const s = verifyFor(policy, env);
    return (
      `  - ${label}: ${s.rest ? 'Flink REST is read (tasks, parallelism, restored path)' : 'Flink REST is not read'}; ` +
      `a checkpoint after the change is ${s.checkpointAfterChange ? 'required' : 'noted, not required'}; the health gate ${s.healthGate === 'fail' ? 'fails' : 'warns'} (restarts: ${restartLimitWords(s.restartLimit)}); ` +
      `${watchAfterWords(environmentWatchAfter(policy, env))}.`
    );
  };
  const overrides = [
    ...policy.namespaces.map((n) => ({ label: `namespace ${n.name}`, verify: n.verify })),
    ...policy.rules.map((r) => ({
      label: `rule ${r.name} (where it matches; the first matching rule wins)`,
      verify: r.verify,
    })),
  ].flatMap(({ label, verify }) =>
    verify?.watchAfter === undefined
      ? []
      : [
          `  - ${label}: ${watchAfterWords({ watchAfter: verify.watchAfter, watchAfterMs: verify.watchAfterMs ?? 0 })}.`,
        ],
  );
  return [...[...named].sort().map((env) => line(env, env)), line('other namespaces', undefined), ...overrides];
}
