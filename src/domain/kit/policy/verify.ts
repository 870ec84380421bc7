// Policy `verify` (docs/deep-verification.md#policy): per environment, whether Flink REST is read, whether a checkpoint
// after the change is required, and whether the health gate warns or fails. `default` applies to environments not
// listed.
import { z } from 'zod';

export const HEALTH_GATE_OUTCOMES = ['warn', 'fail'] as const;
export type HealthGate = (typeof HEALTH_GATE_OUTCOMES)[number];

export interface VerifySettings {
  rest: boolean;
  checkpointAfterChange: boolean;
  healthGate: HealthGate;
}

/**
 * The defaults (docs/deep-verification.md#policy): production requires a checkpoint after the change and fails the
 * gate; elsewhere it warns.
 */
export const DEFAULT_VERIFY: Readonly<Record<string, VerifySettings>> = {
  production: { rest: true, checkpointAfterChange: true, healthGate: 'fail' },
  default: { rest: true, checkpointAfterChange: false, healthGate: 'warn' },
};

const EnvironmentVerifySchema = z.strictObject({
  rest: z.boolean({ error: 'must be true or false' }).optional(),
  checkpointAfterChange: z.boolean({ error: 'must be true or false' }).optional(),
  healthGate: z.enum(HEALTH_GATE_OUTCOMES, { error: `must be one of ${HEALTH_GATE_OUTCOMES.join(', ')}` }).optional(),
});

export const VerifySchema = z.record(
  z.string().min(1, { error: 'an environment name must not be empty' }),
  EnvironmentVerifySchema,
);
export type VerifyPolicy = z.infer<typeof VerifySchema>;

/** The settings in force for `environment` (unset keys fall back to `default`, then to the defaults). */
export function verifyFor(policy: { verify?: VerifyPolicy }, environment: string | undefined): VerifySettings {
  const own = environment === undefined ? undefined : policy.verify?.[environment];
  const fallback = policy.verify?.default;
  const builtIn =
    (environment !== undefined ? DEFAULT_VERIFY[environment] : undefined) ?? (DEFAULT_VERIFY.default as VerifySettings);
  return {
    rest: own?.rest ?? fallback?.rest ?? builtIn.rest,
    checkpointAfterChange:
      own?.checkpointAfterChange ?? fallback?.checkpointAfterChange ?? builtIn.checkpointAfterChange,
    healthGate: own?.healthGate ?? fallback?.healthGate ?? builtIn.healthGate,
  };
}

/** check-policy's words for the verify block: each environment the policy names, then everything else. */
export function describeVerify(policy: {
  verify?: VerifyPolicy;
  namespaces: readonly { environment?: string | undefined }[];
}): string[] {
  const named = new Set<string>([
    ...Object.keys(policy.verify ?? {}),
    ...policy.namespaces.flatMap((n) => (n.environment ? [n.environment] : [])),
  ]);
  named.delete('default');
  const line = (label: string, s: VerifySettings): string =>
    `  - ${label}: ${s.rest ? 'Flink REST is read (tasks, parallelism, restored path)' : 'Flink REST is not read'}; ` +
    `a checkpoint after the change is ${s.checkpointAfterChange ? 'required' : 'noted, not required'}; the health gate ${s.healthGate === 'fail' ? 'fails' : 'warns'}.`;
  return [
    ...[...named].sort().map((env) => line(env, verifyFor(policy, env))),
    line('other namespaces', verifyFor(policy, undefined)),
  ];
}
