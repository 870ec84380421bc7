// A FlinkDeployment of a test's own on a simulated cluster, created and awaited until the operator reports it STABLE
// and RUNNING, so a test starts from a running job.
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { flinkDeployment } from '@flink-chatops/sim/testing/kube';
import { eventually } from './poll.js';

export interface RunningDeployment {
  kind: 'FlinkDeployment';
  namespace: string;
  name: string;
}

/** Creates `namespace/name` and resolves once it is STABLE with its job RUNNING. */
export async function runningDeployment(
  cluster: Pick<SimCluster, 'store'>,
  namespace: string,
  name: string,
): Promise<RunningDeployment> {
  cluster.store.create('flinkdeployments', flinkDeployment(name, namespace));
  await eventually(`${namespace}/${name} running`, () => {
    const status = cluster.store.get('flinkdeployments', namespace, name)?.status as
      { lifecycleState?: string; jobStatus?: { state?: string } } | undefined;
    return status?.lifecycleState === 'STABLE' && status.jobStatus?.state === 'RUNNING';
  });
  return { kind: 'FlinkDeployment', namespace, name };
}
