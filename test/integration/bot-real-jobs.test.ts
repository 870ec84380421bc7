// Refusals for real jobs seen through the real Bolt app (signed slash commands) against the simulated cluster:
// a Blue/Green child is refused as a target, privately, with nothing recorded and no card; a scale above the max
// parallelism Flink REST reports is denied at planning, naming the number.
import { expect, it } from 'vitest';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { USERS, useBotEnvs } from '../support/bot-env.js';
import { runningDeployment } from '../support/running-job.js';

const bots = useBotEnvs();

it('a FlinkDeployment owned by a FlinkBlueGreenDeployment is refused, naming the parent; nothing is recorded', async () => {
  const env = await bots.start();
  try {
    bots.cluster.store.update('flinkdeployments', 'streaming-dev', 'orders', (d: KubeObject) => ({
      ...d,
      metadata: {
        ...d.metadata,
        ownerReferences: [
          {
            apiVersion: 'flink.apache.org/v1beta1',
            kind: 'FlinkBlueGreenDeployment',
            name: 'orders-bg',
            uid: 'bg-uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    }));
    const sent = await env.command('scale streaming-dev/orders 3', USERS.bob);
    expect(sent.status).toBe(200);
    const reply = await sent.reply();
    expect(reply.text).toContain(
      'streaming-dev/orders is managed by FlinkBlueGreenDeployment streaming-dev/orders-bg: change the parent, not its blue/green child',
    );
    expect(reply.body.response_type).toBe('ephemeral');
    expect(await env.operationCount()).toBe(0);
    expect(env.sim.messages(env.channel)).toEqual([]);
    const live = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'orders');
    expect((live?.spec?.job as { parallelism?: number }).parallelism).toBe(2);
  } finally {
    await env.close();
  }
}, 60_000);

// Flink keeps a restored state's max parallelism (StateAssignmentOperation); a job started at parallelism 2 reports
// 128 on its vertices (KeyGroupRangeAssignment.computeDefaultMaxParallelism), the bound of its next restore.
it('a scale above the max parallelism Flink REST reports is DENIED at planning with the number; nothing is written', async () => {
  const env = await bots.start();
  try {
    await runningDeployment(bots.cluster, 'streaming-dev', 'maxp-orders');
    const before = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'maxp-orders')?.metadata.resourceVersion;
    const denied = await env.request('scale streaming-dev/maxp-orders 200', USERS.bob);
    expect(denied.state).toBe('DENIED');
    const reasons = denied.decision?.outcome === 'deny' ? denied.decision.reasons.join('\n') : '';
    expect(reasons).toContain('parallelism 200 is above the max parallelism 128 Flink REST reports for');
    const live = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'maxp-orders');
    expect(live?.metadata.resourceVersion).toBe(before);
  } finally {
    await env.close();
  }
}, 60_000);
