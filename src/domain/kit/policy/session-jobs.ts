// The built-in check of a session-cluster redeploy: the operator deletes the cluster without a savepoint, so every
// session job on it is killed; stateful ones without HA on the cluster come back only through `restore`.
import type { CheckResult } from '../../model/decision.js';
import { haConfigured } from '../../model/flink-config.js';
import { deploymentNameOf, jobStatusStateOf, nameOf, upgradeModeOf } from '../../model/resource.js';
import { DEFAULT_UPGRADE_MODE, MODE } from '../../model/upgrade-mode.js';

export const SESSION_JOBS_CHECK = 'session-jobs';
const PRODUCTION = 'production';
/** How many jobs the check names one by one (the card has a size limit). */
const SHOWN = 10;

/** The FlinkSessionJobs of `items` that run on session cluster `cluster`. */
export function sessionJobsOn(cluster: string, items: readonly unknown[]): unknown[] {
  return items.filter((item) => deploymentNameOf(item) === cluster);
}

/**
 * `jobs`: the session jobs on the cluster being redeployed. Warn with each one's name, state and upgrade mode;
 * fail in production when a stateful one (savepoint or last-state) would lose its job with no HA on the cluster.
 */
export function sessionJobsCheck(
  cluster: unknown,
  jobs: readonly unknown[],
  environment: string | undefined,
): CheckResult {
  if (jobs.length === 0)
    return { name: SESSION_JOBS_CHECK, outcome: 'pass', message: 'no session jobs run on this session cluster' };
  const described = jobs.map((job) => {
    const mode = upgradeModeOf(job) ?? DEFAULT_UPGRADE_MODE;
    return {
      name: nameOf(job) ?? '?',
      text: `${nameOf(job) ?? '?'} (${jobStatusStateOf(job) ?? 'state unknown'}, ${mode})`,
      stateful: mode !== MODE.stateless,
    };
  });
  const shown = described.slice(0, SHOWN).map((d) => d.text);
  const more = described.length > SHOWN ? ` and ${described.length - SHOWN} more` : '';
  const head = `redeploying the session cluster kills its ${jobs.length} session job(s) without a savepoint: ${shown.join(', ')}${more}`;
  const stateful = described.filter((d) => d.stateful).map((d) => d.name);
  if (stateful.length > 0 && !haConfigured(cluster)) {
    const tail = `; the cluster has no high availability, so ${stateful.join(', ')} will stay at "Job Not Found" until restored from a savepoint`;
    return {
      name: SESSION_JOBS_CHECK,
      outcome: environment === PRODUCTION ? 'fail' : 'warn',
      message: `${head}${tail}`,
    };
  }
  return {
    name: SESSION_JOBS_CHECK,
    outcome: 'warn',
    message: `${head}; they come back once the cluster is up (stateless ones without their state)`,
  };
}
