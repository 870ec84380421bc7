// After a session cluster was redeployed: the state of each of its session jobs, and for one left at "Job Not Found"
// the restore command that brings it back (listed only in that case: it costs a request).
import type { EvidenceVerdict } from '../domain/kit/evidence/types.js';
import type { Plan } from '../domain/model/plan.js';
import { haConfigured } from '../domain/model/flink-config.js';
import {
  deploymentNameOf,
  isSessionCluster,
  jobStatusStateOf,
  lastSavepoint,
  nameOf,
  statusErrorOf,
  upgradeModeOf,
  upgradeSavepointPathOf,
} from '../domain/model/resource.js';
import { MODE } from '../domain/model/upgrade-mode.js';
import { LAST_STATE_PLACEHOLDER } from '../domain/model/snapshot-history.js';
import { callOptions, type Run } from './context.js';

type Completed = Extract<EvidenceVerdict, { outcome: 'completed' }>;

/** The line the proof carries while the session jobs were not looked at. */
export const SESSION_JOBS_UNVERIFIED = 'the session jobs on this cluster';

/** `<last savepoint path>`, or the path the operator recorded, or a placeholder a person fills in. */
function restorePath(job: unknown, namespace: string): string {
  const name = nameOf(job) ?? '?';
  const last = lastSavepoint({ kind: 'FlinkSessionJob', namespace, name }, [], job)?.location;
  const recorded = upgradeSavepointPathOf(job);
  return last ?? (recorded !== undefined && recorded !== LAST_STATE_PLACEHOLDER ? recorded : '<path>');
}

/**
 * One note per session job: its state, and the restore command when the job is gone from the cluster — or will be:
 * the operator may not have looked at a job since its cluster came back, but a stateful one on a cluster without HA
 * cannot resume, so it is said now rather than after it shows "Job Not Found".
 */
export function sessionJobNotes(jobs: readonly unknown[], namespace: string, haOnCluster = true): string[] {
  return jobs.map((job) => {
    const name = nameOf(job) ?? '?';
    const state = jobStatusStateOf(job) ?? 'unknown';
    const error = statusErrorOf(job);
    const restore = `\`/flink restore sessionjob:${namespace}/${name} --from ${restorePath(job, namespace)}\``;
    if (error?.includes('Job Not Found'))
      return `sessionjob ${namespace}/${name}: ${state}, Job Not Found — bring it back with ${restore}`;
    if (!haOnCluster && upgradeModeOf(job) !== MODE.stateless) {
      return `sessionjob ${namespace}/${name}: ${state} as last reported; it stopped with its cluster, which has no HA, so it cannot resume — once it shows Job Not Found, bring it back with ${restore}`;
    }
    return `sessionjob ${namespace}/${name}: ${state}${error === undefined ? '' : ` (${error})`}`;
  });
}

/** A COMPLETED redeploy of a session cluster gains its session jobs' states; any other verdict is returned as is. */
export async function withSessionJobs(
  run: Run,
  plan: Plan,
  resource: unknown,
  verdict: EvidenceVerdict,
): Promise<EvidenceVerdict> {
  if (verdict.outcome !== 'completed' || plan.target.kind !== 'FlinkDeployment' || !isSessionCluster(resource))
    return verdict;
  const { namespace, name } = plan.target;
  let jobs: unknown[];
  try {
    jobs = (await run.deps.kube.list('FlinkSessionJob', namespace, callOptions(run))).filter(
      (job) => deploymentNameOf(job) === name,
    );
  } catch (error) {
    run.log.info({ err: error }, 'could not list the session jobs of the cluster');
    return verdict;
  }
  const notes = sessionJobNotes(jobs, namespace, haConfigured(resource));
  if (jobs.length === 0) notes.push(`no session jobs run on ${namespace}/${name}`);
  const proof = {
    ...verdict.proof,
    notVerified: verdict.proof.notVerified.filter((line) => !line.startsWith(SESSION_JOBS_UNVERIFIED)),
  };
  const withJobs: Completed = { ...verdict, notes: [...verdict.notes, ...notes], proof };
  return withJobs;
}
