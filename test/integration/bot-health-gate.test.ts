// The health gate through the real command path (docs/deep-verification.md#when-the-gate-denies): the real Bolt app
// with signed requests, real Redis, and the simulated cluster's Flink REST through client-node. A production scale of
// a job that restarted in the last 10 minutes is DENIED with what the gate saw, how to look and the ways through; with
// the policy's threshold raised the same request on the same job passes the gate and waits for its approval;
// --break-glass does not soften the gate (docs/policy.md#break-glass): still DENIED.
import { describe, expect, it } from 'vitest';
import { testPolicy, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';
import { runningDeployment } from '../support/running-job.js';

const bots = useBotEnvs();
const BREAK_GLASS = { groups: ['oncall'], environments: ['production'], reviewWithin: '24h' };

/** The JobMaster's exception history of the target's current run, once it holds `n` failovers (newest first). */
async function failedOver(namespace: string, name: string, n: number): Promise<{ timestamp: number }[]> {
  let entries: { timestamp: number }[] = [];
  await eventually(
    `${namespace}/${name} to fail over ${n} times`,
    () => {
      const job = bots.cluster.store.get('flinkdeployments', namespace, name)?.status?.jobStatus as
        { jobId: string; startTime: string } | undefined;
      entries = job ? bots.cluster.jobManagers.exceptionHistory(job.jobId, job.startTime).entries : [];
      return entries.length >= n;
    },
    { timeoutMs: 20_000 },
  );
  return entries;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** The card of `ts` once it says `state`: its text and every block, as posted. */
async function cardSaying(env: BotEnv, ts: string | undefined, state: string): Promise<string> {
  const text = (m: { text: string; blocks?: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
  const card = await env.sim.waitFor(
    () => env.sim.messages(env.channel).find((m) => m.ts === ts && text(m).includes(`State: ${state}`)),
    10_000,
    `the card saying ${state}`,
  );
  return text(card);
}

describe('the health gate on a production request', () => {
  it('restarts DENY a scale, saying what it saw, how to look and the ways through; a raised threshold lets it through, break-glass does not', async () => {
    const target = await runningDeployment(bots.cluster, 'streaming-prod', 'hg-storm');
    bots.cluster.operator.setScenario(target.namespace, target.name, ['job-exceptions=2']);
    const entries = await failedOver(target.namespace, target.name, 2);
    const newest = entries[0]?.timestamp ?? 0;

    const strict = await bots.start({ policy: (channel) => ({ ...testPolicy(channel), breakGlass: BREAK_GLASS }) });
    const denied = await strict.request('scale streaming-prod/hg-storm 3 --reason "peak"', USERS.alice);
    expect(denied.state).toBe('DENIED');
    const gate = denied.decision?.checks.find((c) => c.name === 'health-gate');
    expect(gate?.outcome).toBe('fail');
    const message = gate?.message ?? '';
    expect(message).toMatch(
      /the job failed over 2 time\(s\) in the last 10m \(2 task\): the gate's limit is any failover in 10m; /,
    );
    expect(message).toMatch(/the last at \d\d:\d\d:\d\d UTC in task "[^"]+ \(\d\/\d\)" on 10\.244\.\d+\.\d+:6121: /);
    expect(message).toContain('see `/flink exceptions streaming-prod/hg-storm`');
    // With the default limit (any failover in 10m) it passes 10 minutes after the newest, on the JobManager's clock.
    expect(message).toContain(`it passes after ${clock(newest + 600_000)} (JobManager clock)`);
    expect(message).toContain('or an undo (`/flink undo <op id>`) only warns');
    expect(message).toContain("change the policy's verify.production.healthGate");
    expect(message).not.toContain('break-glass');
    const card = await cardSaying(strict, denied.card?.ts, 'DENIED');
    expect(card).toContain('/flink exceptions streaming-prod/hg-storm');
    expect(card).toContain(`it passes after ${clock(newest + 600_000)}`);

    const raised = await bots.start({
      policy: (channel) => ({ ...testPolicy(channel), verify: { production: { healthGate: { restarts: 3 } } } }),
    });
    const waiting = await raised.request('scale streaming-prod/hg-storm 3 --reason "peak"', USERS.alice);
    expect(waiting.state).toBe('AWAITING_APPROVAL');
    expect(waiting.decision?.checks.find((c) => c.name === 'health-gate')).toMatchObject({
      outcome: 'pass',
      message: expect.stringMatching(
        /^the job is healthy: 2 task failover\(s\) in the last 10m, under the gate's limit of 3/,
      ),
    });

    // Break-glass by a member of oncall skips approvals, not a failed built-in check: still DENIED by the gate.
    const glass = await strict.request('scale streaming-prod/hg-storm 3 --break-glass --reason "INC-7"', USERS.alice);
    expect(glass.state).toBe('DENIED');
    expect(glass.decision?.checks.find((c) => c.name === 'health-gate')).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(/failed over 2 time\(s\).* ways through: it passes after /),
    });
  }, 60_000);
});
