// The alerts of deploy/components/monitoring (docs/operating.md#alerts) checked by Prometheus's own promtool: the
// PrometheusRule's groups load (`promtool check rules`), and its unit tests (prometheusrule.test.yaml) pass and fire
// every alert of the rule (`promtool test rules`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MONITORING, alertRules, promtool, type RulesFile } from './prometheus-promtool.js';

const TESTS_FILE = 'prometheusrule.test.yaml';
const testsText = readFileSync(join(MONITORING, TESTS_FILE), 'utf8');

type AlertTest = { alertname: string; exp_alerts?: unknown[] };
type UnitTests = { rule_files: string[]; tests: { name: string; alert_rule_test?: AlertTest[] }[] };
const unitTests = parse(testsText) as UnitTests;

const alertNames = (rules: RulesFile) => rules.groups.flatMap((g) => g.rules.flatMap((r) => r.alert ?? []));

/** A copy of the rule's groups with `change` applied to the alert `name`. */
function withAlert(name: string, change: (rule: Record<string, unknown>) => void): RulesFile {
  const copy = structuredClone(alertRules());
  const rule = copy.groups.flatMap((g) => g.rules).find((r) => r.alert === name);
  if (!rule) throw new Error(`no alert ${name} in prometheusrule.yaml`);
  change(rule);
  return copy;
}

/** `promtool test rules` on the unit tests against `rules`, written where their `rule_files` looks. */
const unitTest = (rules: RulesFile) =>
  promtool(['test', 'rules', TESTS_FILE], { [TESTS_FILE]: testsText, 'rules.yaml': rules });

describe('the PrometheusRule, by promtool', () => {
  it('loads: every expression parses, every template and duration is valid', () => {
    const rules = alertRules();
    const { status, output } = promtool(['check', 'rules', 'rules.yaml'], { 'rules.yaml': rules });
    expect(output).toContain(`SUCCESS: ${alertNames(rules).length} rules found`);
    expect(status, output).toBe(0);
  });

  it('would be refused with an expression that does not parse, naming the alert', () => {
    const rules = withAlert('FlinkChatopsAuditWebhookBehind', (r) => (r.expr = `${String(r.expr)} >`));
    const { status, output } = promtool(['check', 'rules', 'rules.yaml'], { 'rules.yaml': rules });
    expect(status).not.toBe(0);
    expect(output).toMatch(/"FlinkChatopsAuditWebhookBehind": could not parse expression/);
  });

  it('passes its unit tests', () => {
    expect(unitTests.rule_files).toEqual(['rules.yaml']);
    const { status, output } = unitTest(alertRules());
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it('has a unit test that fires each of its alerts, and none for an alert it does not have', () => {
    const cases = unitTests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const fired = new Set(cases.filter((c) => (c.exp_alerts ?? []).length > 0).map((c) => c.alertname));
    const alerts = alertNames(alertRules());
    expect(alerts.length).toBeGreaterThanOrEqual(11);
    expect(
      alerts.filter((a) => !fired.has(a)),
      `alerts no test in ${TESTS_FILE} fires`,
    ).toEqual([]);
    const unknown = cases.map((c) => c.alertname).filter((a) => !alerts.includes(a));
    expect(unknown, 'tested alerts prometheusrule.yaml does not have').toEqual([]);
  });

  it('fails its unit tests when an alert fires too early or never, naming the alert', () => {
    const early = unitTest(withAlert('FlinkChatopsSocketModeDown', (r) => (r.for = '1m')));
    expect(early.status).not.toBe(0);
    expect(early.output).toContain('alertname: FlinkChatopsSocketModeDown');
    const never = unitTest(
      withAlert('FlinkChatopsSlowAcks', (r) => (r.expr = String(r.expr).replace('> 2.5', '> 10'))),
    );
    expect(never.status).not.toBe(0);
    expect(never.output).toContain('alertname: FlinkChatopsSlowAcks');
  });

  it('keeps the unit tests out of what kustomize deploys', () => {
    const kustomization = parse(readFileSync(join(MONITORING, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    expect(kustomization.resources).toContain('prometheusrule.yaml');
    expect(kustomization.resources).not.toContain(TESTS_FILE);
  });
});
