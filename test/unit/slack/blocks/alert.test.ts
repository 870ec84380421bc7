// The job alert message and the channel digest (src/slack/blocks/alert.ts): what an open and a recovered alert show,
// the buttons and what they carry, mentions, escaping, and Slack's limits.
import { describe, expect, it } from 'vitest';
import {
  ALERT_ACTION_IDS,
  renderAlert,
  renderAlertDigest,
  type AlertView,
} from '../../../../src/slack/blocks/index.js';
import { readAlertValue } from '../../../../src/slack/alert-actions.js';
import { buttonsOf, expectValid, visibleText } from '../../../support/blocks.js';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const CTX = { now: T0 + 5 * 60_000, command: '/flink' };

function alert(extra: Partial<AlertView> = {}): AlertView {
  return {
    id: 'inc-abc123def0',
    cluster: '',
    target: { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' },
    rule: 'prod-jobs',
    mention: '<!subteam^S0ONCALL>',
    openedAt: T0,
    updatedAt: T0 + 60_000,
    signals: [
      { kind: 'restarting', since: T0, summary: '4 restarts in 6 min', source: 'rest' },
      { kind: 'checkpoints-failing', since: T0 + 30_000, summary: '3 checkpoints failed in a row', source: 'rest' },
    ],
    seen: ['restarting', 'checkpoints-failing'],
    version: 2,
    ...extra,
  };
}

describe('an open alert', () => {
  const message = renderAlert(alert(), CTX);
  const text = visibleText(message);

  it('names the job, what is wrong now with summary and source, since when, what was seen and the policy entry', () => {
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Job alert: streaming-prod/orders' } });
    expect(text).toContain('*restarting*: 4 restarts in 6 min _(source: rest, since <!date^');
    expect(text).toContain('*checkpoints failing*: 3 checkpoints failed in a row _(source: rest');
    expect(text).toContain('*Since*\n<!date^1795600800^');
    expect(text).toContain('(5m ago)');
    expect(text).toContain('*Seen during the incident*\nrestarting, checkpoints failing');
    expect(text).toContain('*Policy entry*\n`prod-jobs`');
    expect(text).toContain('`inc-abc123def0` · version 2');
    expectValid(message);
  });

  it('pings the policy mention in the text and the blocks; the fallback text carries the incident id', () => {
    expect(message.text.startsWith('<!subteam^S0ONCALL> inc-abc123def0: job alert for streaming-prod/orders')).toBe(
      true,
    );
    expect(text).toContain('<!subteam^S0ONCALL> *What is wrong now*');
  });

  it('has Status, Restart, Savepoint and Suspend, each carrying the incident and the target', () => {
    const buttons = buttonsOf(message);
    expect(buttons.map((b) => [b.text.text, b.action_id])).toEqual([
      ['Status', ALERT_ACTION_IDS.status],
      ['Restart', ALERT_ACTION_IDS.restart],
      ['Savepoint', ALERT_ACTION_IDS.savepoint],
      ['Suspend', ALERT_ACTION_IDS.suspend],
    ]);
    expect(ALERT_ACTION_IDS).toEqual({
      status: 'flink_alert_status',
      restart: 'flink_alert_restart',
      savepoint: 'flink_alert_savepoint',
      suspend: 'flink_alert_suspend',
    });
    for (const b of buttons)
      expect(readAlertValue(b.value)).toEqual({
        ok: true,
        incident: 'inc-abc123def0',
        target: 'streaming-prod/orders',
      });
  });

  it('puts the cluster into the header and the buttons when the installation names one', () => {
    const multi = renderAlert(alert({ cluster: 'prod-eu' }), CTX);
    expect(multi.blocks[0]).toMatchObject({ text: { text: 'Job alert: prod-eu/streaming-prod/orders' } });
    expect(readAlertValue(buttonsOf(multi)[0]?.value ?? '')).toMatchObject({ target: 'prod-eu/streaming-prod/orders' });
    const session = renderAlert(
      alert({ target: { kind: 'FlinkSessionJob', cluster: 'prod-us', namespace: 'ns', name: 'job' } }),
      CTX,
    );
    expect(readAlertValue(buttonsOf(session)[0]?.value ?? '')).toMatchObject({ target: 'sessionjob:prod-us/ns/job' });
  });
});

describe('a recovered alert', () => {
  const recoveredAt = T0 + 4 * 60_000;
  const message = renderAlert(alert({ signals: [], recoveredAt, version: 3 }), CTX);

  it('says "recovered at" with the time, keeps what was seen, and has no buttons', () => {
    const text = visibleText(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Recovered: streaming-prod/orders' } });
    expect(text).toContain(':white_check_mark: *Recovered at <!date^1795601040^');
    expect(text).toContain('restarting, checkpoints failing');
    expect(text).not.toContain('What is wrong now');
    expect(JSON.stringify(message)).not.toContain('<!subteam^');
    expect(buttonsOf(message)).toEqual([]);
    expect(message.text).toContain('inc-abc123def0: streaming-prod/orders recovered at 2026-11-25 10:04:00 UTC');
    expectValid(message);
  });
});

describe('what the alert takes from outside', () => {
  it('escapes summaries and rule names, and shows (never pings) a mention that is not one', () => {
    const message = renderAlert(
      alert({
        mention: '@here <!channel>',
        rule: '<b>rule</b>',
        signals: [{ kind: 'job-failed', since: T0, summary: 'boom <!everyone> & more', source: 'status' }],
      }),
      CTX,
    );
    const all = JSON.stringify(message);
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<!everyone>');
    expect(visibleText(message)).toContain('boom &lt;\u2060!everyone&gt; &amp; more');
    expect(visibleText(message)).toContain('`&lt;b&gt;rule&lt;/b&gt;`');
  });

  it('stays within Slack limits with very long summaries', () => {
    const long = 'x'.repeat(20_000);
    const message = renderAlert(
      alert({ signals: [{ kind: 'job-failed', since: T0, summary: long, source: 'rest' }] }),
      CTX,
    );
    expectValid(message);
    expect(buttonsOf(message)).toHaveLength(4);
  });

  it('refuses button values that are not ours', () => {
    for (const value of ['', 'op-123', '{"incident":"inc-x"}', '{"incident":"nope","target":"a/b"}'])
      expect(readAlertValue(value).ok).toBe(false);
    expect(readAlertValue(JSON.stringify({ incident: 'inc-abc123def0', target: 'ns/Bad_Name' }))).toMatchObject({
      ok: false,
      message: expect.stringContaining('uppercase'),
    });
    expect(readAlertValue(JSON.stringify({ incident: 'inc-abc123def0', target: 'ns/a --break-glass' })).ok).toBe(false);
  });
});

describe('the digest', () => {
  const many = Array.from({ length: 60 }, (_, n) =>
    alert({
      id: `inc-${String(n).padStart(10, '0')}`,
      target: { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: `job-${n}` },
    }),
  );

  it('lists each incident with target, kinds and summary, within Slack limits', () => {
    const message = renderAlertDigest(many.slice(0, 12), { ...CTX, digestId: 'alerts-C0OPS' });
    const text = visibleText(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Job alerts: 12 jobs need attention' } });
    for (let n = 0; n < 12; n++)
      expect(text).toContain(
        `• \`streaming-prod/job-${n}\` (restarting, checkpoints failing): 4 restarts in 6 min; 3 checkpoints failed in a row`,
      );
    expect(message.text).toContain('alerts-C0OPS: 12 job alerts: streaming-prod/job-0, streaming-prod/job-1');
    // The entries' mentions, once each.
    expect(message.text.startsWith('<!subteam^S0ONCALL> alerts-C0OPS')).toBe(true);
    expect(text.split('<!subteam^S0ONCALL>')).toHaveLength(2);
    expect(buttonsOf(message)).toEqual([]);
    expectValid(message);
    expectValid(renderAlertDigest(many, { ...CTX, digestId: 'alerts-C0OPS' }));
  });

  it('shows recovered ones as recovered, and says when none is open any more', () => {
    const recovered = many.slice(0, 2).map((a) => ({ ...a, signals: [], recoveredAt: T0 + 60_000 }));
    const message = renderAlertDigest(recovered, { ...CTX, digestId: 'alerts-C0OPS' });
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Job alerts: none open any more' } });
    expect(visibleText(message)).toContain('• `streaming-prod/job-0`: recovered at <!date^');
  });
});
