// Refusals for real jobs seen through the real Bolt app (signed slash commands) against the simulated cluster:
// a Blue/Green child is refused as a target, privately, with nothing recorded and no card.
import { expect, it } from 'vitest';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { USERS, useBotEnvs } from '../support/bot-env.js';

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
