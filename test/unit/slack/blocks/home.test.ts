// App Home within Slack's limits: many approvals, operations and freezes fit one view, buttons bound to the plan digest.
import { describe, expect, it } from 'vitest';
import { validateBlocks } from '@flink-chatops/sim/slack/blockkit-limits';
import type { HomeView } from '../../../../src/app/views.js';
import type { Target } from '../../../../src/domain/model/target.js';
import { renderHome } from '../../../../src/slack/blocks/home.js';

const T: Target = { kind: 'FlinkDeployment', namespace: 'prod', name: 'orders' };
const CTX = { now: Date.parse('2026-11-25T10:00:00Z'), command: '/flink' };

describe('renderHome', () => {
  it('40 approvals, 40 operations and 40 freezes fit a Home view (≤ 100 blocks), buttons bound to the plan digest', () => {
    const op = (i: number) => ({
      id: `op-${String(i).padStart(10, '0')}`,
      kind: 'restart' as const,
      target: T,
      state: 'AWAITING_APPROVAL' as const,
      requester: 'U0ALICE',
      createdAt: CTX.now - 1000,
      updatedAt: CTX.now,
    });
    const view: HomeView = {
      user: 'U0LEAD1',
      approvals: Array.from({ length: 40 }, (_, i) => ({
        ...op(i),
        planDigest: i.toString(16).padStart(64, 'a'),
        card: { channel: 'C0OPS', ts: '1.2' },
      })),
      mine: Array.from({ length: 40 }, (_, i) => op(100 + i)),
      leases: [{ target: 'prod/orders', opId: 'op-0000000001', since: CTX.now - 5000 }],
      freezes: Array.from({ length: 40 }, (_, i) => ({
        target: `prod/j${i}`,
        by: 'U0BOB',
        reason: 'r'.repeat(500),
        at: CTX.now,
      })),
      latest: Array.from({ length: 10 }, (_, i) => op(200 + i)),
      problems: [],
    };
    const home = renderHome(view, CTX);
    expect(home.type).toBe('home');
    expect(validateBlocks(home.blocks, 'view')).toEqual({ ok: true });
    const json = JSON.stringify(home);
    expect(json).toContain('approval:aaaaaaaaaaaaaaaa');
    expect(json).toContain('flink_ops_approve');
    expect(json).toContain('flink_ops_home_refresh');
    expect(json).toContain('…and 25 more');
  });
});
