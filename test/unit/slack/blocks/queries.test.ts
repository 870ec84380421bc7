// The read-only answers (src/slack/blocks/queries.ts): status, list, ops, explain, locks, help, refusals and notices;
// also the incident digest (digest.ts) and `op` (op.ts), kept beside them.
import { describe, expect, it } from 'vitest';
import { usageLine } from '../../../../src/domain/engines/language/help.js';
import type { OperationState } from '../../../../src/domain/model/lifecycle.js';
import type { Target } from '../../../../src/domain/model/target.js';
import {
  renderExplain,
  renderHelp,
  renderIncidentDigest,
  renderList,
  renderLocks,
  renderNotice,
  renderOp,
  renderOps,
  renderRefusal,
  renderStatus,
} from '../../../../src/slack/blocks/index.js';
import type { ListView, LocksView, StatusView } from '../../../../src/app/views.js';
import { DEP } from '../../../support/evidence-fixtures.js';
import { expectValid, visibleText } from '../../../support/blocks.js';
import { CTX, LEAD, OP_ID, recordIn, REQUESTER } from '../../../support/records.js';

const PERMALINK = 'https://acme.slack.com/archives/C0DATAPLATFORM/p1767229200000100';
const digestText = (state: OperationState, phase: 'start' | 'end' = 'start') => {
  const m = renderIncidentDigest(recordIn(state), phase, { ...CTX, threadPermalink: PERMALINK });
  expectValid(m);
  expect(m.text).toContain(OP_ID);
  return visibleText(m);
};

describe('incident digest', () => {
  it('target, operation, requester, approvers, state, thread link, what happens next', () => {
    const text = digestText('AWAITING_APPROVAL');
    expect(text).toContain('Flink operation started: op-abc123');
    expect(text).toContain('*Target*\n`streaming-prod/orders-enricher`');
    expect(text).toContain('*Operation*\n`op-abc123` (scale): scale streaming-prod/orders-enricher to parallelism 8');
    expect(text).toContain(`*Requester*\n<@${REQUESTER}>`);
    expect(text).toContain('*Approvers*\n_none yet_');
    expect(text).toContain('*State*\n*AWAITING_APPROVAL*');
    expect(text).toContain(`*Thread*\n<${PERMALINK}|open the thread>`);
    expect(text).toMatch(/\*Next:\* waiting for 1 approval from leads until <!date\^/);
  });

  it.each([
    ['SUBMITTED', 'the worker is verifying'],
    ['COMPLETED', 'done'],
    ['QUEUED', 'waiting for a worker'],
    ['SUBMITTING', 'a worker is submitting the change'],
  ] as const)('%s: next is "%s"', (state, next) => {
    expect(digestText(state)).toContain(`*Next:* ${next}`);
  });

  it('the end digest names the approvers and the outcome', () => {
    const text = digestText('COMPLETED', 'end');
    expect(text).toContain('Flink operation ended: op-abc123');
    expect(text).toContain(`*Approvers*\n<@${LEAD}>`);
    expect(text).toMatch(/\*Evidence:\* (\d+) of \1 criteria met; proof depth: /);
    expect(digestText('ABORTED', 'end')).toContain('*Why:* target changed since the plan; request again');
  });

  it('without a permalink it says so instead of a broken link', () => {
    const m = renderIncidentDigest(recordIn('QUEUED'), 'start', { ...CTX, threadPermalink: 'javascript:alert(1)' });
    expect(visibleText(m)).toContain('*Thread*\n_not available_');
  });
});

const status: StatusView = {
  target: DEP,
  environment: 'production',
  lifecycleState: 'STABLE',
  jobState: 'RUNNING',
  image: 'flink:1.20.1-scala_2.12-java17',
  parallelism: 4,
  upgradeMode: 'savepoint',
  lastSavepoint: { location: 's3://flink/savepoints/orders-enricher/savepoint-1a2b', at: CTX.now - 3_600_000 },
  lease: { opId: 'op-run001', since: CTX.now - 90_000 },
  freeze: { by: 'U0BOB', reason: 'incident <42>', at: CTX.now - 7_200_000 },
  lastOperation: {
    id: 'op-run001',
    kind: 'scale',
    state: 'SUBMITTED',
    requester: REQUESTER,
    updatedAt: CTX.now - 60_000,
  },
  error: 'Job failed <details>',
};

describe('status', () => {
  it('lifecycle, job state, image, parallelism, mode, last savepoint, lease, freeze, last operation, error', () => {
    const m = renderStatus(status, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(m.text).toBe('Status of streaming-prod/orders-enricher: lifecycle STABLE, job RUNNING');
    for (const part of [
      '*Lifecycle*\nSTABLE',
      '*Job state*\nRUNNING',
      '*Image*\n`flink:1.20.1-scala_2.12-java17`',
      '*Parallelism*\n4',
      '*Upgrade mode*\nsavepoint',
      '*Last savepoint*\n`s3://flink/savepoints/orders-enricher/savepoint-1a2b` (<!date^',
      '*Lease*\nheld by `op-run001` for 1m',
      '*Freeze*\n:lock: frozen by <@U0BOB> 2h ago: incident &lt;42&gt;',
      '*Last operation*\n`op-run001` scale *SUBMITTED* by <@U0ALICE>',
      ':warning: *Operator error:* Job failed &lt;details&gt;',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('unknown fields say so', () => {
    const text = visibleText(renderStatus({ target: DEP }, CTX));
    expect(text).toContain('*Lifecycle*\n_unknown_');
    expect(text).toContain('*Lease*\n_free_');
    expect(text).toContain('*Freeze*\n_not frozen_');
    expect(text).toContain('*Last savepoint*\n_none_');
  });
});

describe('list', () => {
  const sj: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clicks' };
  const view: ListView = {
    namespaces: ['streaming-prod', 'streaming-dev'],
    items: [
      { target: DEP, lifecycleState: 'STABLE', jobState: 'RUNNING', frozen: true },
      { target: sj, lifecycleState: 'STABLE', jobState: 'RUNNING' },
    ],
    problems: [
      { namespace: 'streaming-dev', message: 'the bot has no access to namespace streaming-dev (add a RoleBinding)' },
    ],
  };

  it('groups by namespace, marks session jobs and freezes, and reports namespaces it could not read', () => {
    const m = renderList(view, CTX);
    expectValid(m);
    expect(m.text).toBe('2 Flink resources in 2 namespaces');
    const text = visibleText(m);
    expect(text).toContain(
      '*streaming-prod*\n• `streaming-prod/orders-enricher` — lifecycle STABLE · job RUNNING · :lock: frozen\n• `sessionjob:streaming-prod/clicks` (session job) — lifecycle STABLE · job RUNNING',
    );
    expect(text).toContain(
      '*streaming-dev*\n:warning: the bot has no access to namespace streaming-dev (add a RoleBinding)',
    );
  });

  it('a thousand resources in 80 namespaces stay within the limits, saying how many more', () => {
    const namespaces = Array.from({ length: 80 }, (_, i) => `ns-${i}`);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      target: { ...DEP, namespace: `ns-${i % 80}`, name: `job-${i}` },
      lifecycleState: 'STABLE',
    }));
    const m = renderList({ namespaces, items, problems: [] }, CTX);
    expectValid(m);
    expect(visibleText(m)).toMatch(/…and \d+ more/);
  });
});

describe('ops and op', () => {
  it('ops: newest first, one line each with id, kind, target, state, requester', () => {
    const older = { ...recordIn('COMPLETED'), id: 'op-old001', createdAt: CTX.now - 86_400_000 };
    const newer = recordIn('AWAITING_APPROVAL');
    const m = renderOps([older, newer], { ...CTX, target: DEP });
    expectValid(m);
    const lines = visibleText(m)
      .split('\n')
      .filter((l) => l.startsWith('• '));
    expect(lines[0]).toMatch(
      /^• `op-abc123` · scale `streaming-prod\/orders-enricher` · \*AWAITING_APPROVAL\* · <@U0ALICE> · <!date\^/,
    );
    expect(lines[1]).toMatch(/^• `op-old001` .* \*COMPLETED\* /);
    expect(visibleText(m)).toContain('Recent operations on streaming-prod/orders-enricher');
    expect(visibleText(renderOps([], CTX))).toContain('_No operations yet._');
  });

  it('ops --limit 100 over long targets in several clusters: within the limits, whole lines, the rest counted', () => {
    const records = Array.from({ length: 100 }, (_, i) => ({
      ...recordIn('COMPLETED'),
      id: `op-${String(i).padStart(6, '0')}`,
      createdAt: CTX.now - i * 1000,
      target: { cluster: `cluster-${i % 3}`, ...DEP, name: `${'x'.repeat(200)}-${i}` },
    }));
    const m = renderOps(records, CTX);
    expectValid(m);
    const text = visibleText(m);
    const lines = text.split('\n').filter((l) => l.startsWith('• '));
    expect(lines.every((l) => / · <@U0ALICE> · <!date\^\d+\^[^|]+\|[^>]+>$/.test(l))).toBe(true);
    const more = Number(/…and (\d+) more: `\/flink ops <target>`/.exec(text)?.[1]);
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.length + more).toBe(100);
    expect(lines[0]).toContain('op-000000');
  });

  it('status of a target with the longest names and values stays within the limits', () => {
    const target = {
      cluster: 'c'.repeat(63),
      kind: 'FlinkSessionJob' as const,
      namespace: 'n'.repeat(63),
      name: 'x'.repeat(253),
    };
    const m = renderStatus(
      {
        target,
        image: `registry.example.com/${'i'.repeat(2000)}`,
        error: 'e'.repeat(10_000),
        lastSavepoint: { location: `s3://${'b'.repeat(3000)}` },
        freeze: { by: 'U0ALICE', reason: 'r'.repeat(1000), at: CTX.now },
      },
      CTX,
    );
    expectValid(m);
    // The header is cut at Slack's 150 characters; the fallback text still names the whole target.
    expect(m.text).toContain(`/${'x'.repeat(253)}:`);
    expect(visibleText(m)).toContain('*Operator error:*');
  });

  it('op: intent, plan, checks, approvals, full history with times and actors, evidence', () => {
    const r = recordIn('COMPLETED');
    const m = renderOp(r, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(m.text).toContain(OP_ID);
    expect(text).toContain('*Operation*\nscale streaming-prod/orders-enricher to parallelism 8');
    expect(text).toContain('`spec.job.parallelism: 4 → 8`');
    expect(text).toContain('*pass* `not-frozen`: not frozen');
    expect(text).toContain(`<@${LEAD}> approved`);
    expect(text).toContain(`*History* (${r.history.length} entries)`);
    for (const e of r.history)
      expect(text).toMatch(
        new RegExp(`#${e.seq} · <!date\\^${Math.floor(e.at / 1000)}\\^[^>]*> · (<@${e.actor}>|_${e.actor}_) · `),
      );
    expect(text).toContain('#9 · ');
    expect(text).toMatch(/→ \*COMPLETED\* \(from SUBMITTED\)/);
    expect(text).toMatch(/:white_check_mark: `job-running`: RUNNING \(status\.jobStatus\.state, <!date/);
  });
});

describe('explain', () => {
  const r = recordIn('AWAITING_APPROVAL');
  const view = { intent: r.intent, target: r.target, environment: 'production', plan: r.plan!, decision: r.decision! };
  it.each([
    [
      'needs-approval',
      view,
      'would need approval',
      '*Would need approval*\n• `prod-needs-a-lead`: 1 approval from *leads*',
    ],
    [
      'allow',
      { ...view, decision: { outcome: 'allow' as const, checks: r.decision!.checks, requirements: [] as [] } },
      'would run without approval',
      '*Would run without approval*',
    ],
    [
      'deny',
      { ...view, decision: recordIn('DENIED').decision! },
      'would be denied',
      '*Would be denied by policy*\n• No production changes on Friday afternoons (rule friday-freeze)',
    ],
  ])('%s', (_, v, summary, section) => {
    const m = renderExplain(v, CTX);
    expectValid(m);
    expect(m.text).toBe(`explain scale streaming-prod/orders-enricher: ${summary}`);
    const text = visibleText(m);
    expect(text).toContain('`spec.job.parallelism: 4 → 8`');
    expect(text).toContain(section);
    expect(text).toContain('Nothing was recorded');
  });

  it('lists a missing --reason among what the request would need, beside the plan', () => {
    const missing = ['a --reason is required (the policy requires one in production namespaces)'];
    const m = renderExplain({ ...view, missing }, CTX);
    expectValid(m);
    expect(m.text).toBe('explain scale streaming-prod/orders-enricher: would need approval (and a --reason)');
    const text = visibleText(m);
    expect(text).toContain('`spec.job.parallelism: 4 → 8`');
    expect(text).toContain(`*Would need approval*\n• ${missing[0]}\n• \`prod-needs-a-lead\`: 1 approval from *leads*`);
    const allowed = {
      ...view,
      missing,
      decision: { ...view.decision, outcome: 'allow' as const, requirements: [] as [] },
    };
    expect(visibleText(renderExplain(allowed, CTX))).toContain(`once it has*\n• ${missing[0]}`);
  });
});

describe('locks', () => {
  const view: LocksView = {
    leases: [{ target: 'streaming-prod/orders-enricher', opId: 'op-run001', since: CTX.now - 125_000 }],
    freezes: [
      { target: 'streaming-prod/payments', by: 'U0BOB', reason: 'incident & rollback', at: CTX.now - 3_600_000 },
    ],
    audit: [
      {
        what: 'lock',
        target: 'streaming-prod/payments',
        by: 'U0BOB',
        reason: 'incident & rollback',
        at: CTX.now - 3_600_000,
      },
    ],
  };
  it('leases, freezes and audit with holders and ages', () => {
    const m = renderLocks(view, CTX);
    expectValid(m);
    expect(m.text).toBe('1 lease, 1 freeze');
    const text = visibleText(m);
    expect(text).toContain(
      '*Execution leases*\n• `streaming-prod/orders-enricher` held by `op-run001` for 2m (since <!date^',
    );
    expect(text).toContain(
      '*Freezes*\n• `streaming-prod/payments` :lock: frozen by <@U0BOB> 1h ago: incident &amp; rollback',
    );
    expect(text).toMatch(
      /\*Audit\*\n• <!date\^\d+\^[^>]*> <@U0BOB> lock `streaming-prod\/payments`: incident &amp; rollback/,
    );
  });
  it('empty sections say so', () => {
    const text = visibleText(renderLocks({ leases: [], freezes: [], audit: [] }, CTX));
    expect(text).toContain('*Execution leases*\n_none: no operation is running_');
    expect(text).toContain('*Freezes*\n_none_');
  });
});

describe('help, refusals and notices', () => {
  it('help for a verb carries the parser schema usage, escaped', () => {
    const m = renderHelp('scale', CTX);
    expectValid(m);
    const usage = usageLine('scale', '/flink').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    expect(visibleText(m)).toContain(`Usage: \`${usage}\``);
  });

  it('the overview lists every group', () => {
    const m = renderHelp(undefined, CTX);
    expectValid(m);
    for (const heading of ['*Queries', '*Operations', '*Commands']) expect(visibleText(m)).toContain(heading);
  });

  it('a refusal says what was wrong and how to write it', () => {
    const m = renderRefusal('unknown verb "scael". Did you mean `scale`?', {
      ...CTX,
      usage: usageLine('scale', '/flink'),
    });
    expectValid(m);
    expect(visibleText(m)).toContain(':no_entry_sign: unknown verb "scael". Did you mean `scale`?');
    expect(visibleText(m)).toContain('Usage: `/flink scale &lt;target&gt; &lt;parallelism&gt;');
    expect(visibleText(renderRefusal('no policy file', CTX))).toContain('`/flink help` lists every command');
  });

  it('a notice is escaped but keeps mentions', () => {
    const m = renderNotice('you are not in leads <@U0LEAD1> & <!here>');
    expectValid(m);
    expect(m.text).toBe('you are not in leads <@U0LEAD1> &amp; &lt;!here&gt;');
  });
});
