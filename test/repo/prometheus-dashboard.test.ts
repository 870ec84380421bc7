// Every query of the Grafana dashboard (deploy/components/monitoring/dashboard.json) parsed by Prometheus's own
// parser: each panel's expressions become recording rules of a scratch rules file that `promtool check rules` loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MONITORING, promtool, type RulesFile } from './prometheus-promtool.js';

type Panel = { id?: number; title?: string; targets?: { refId?: string; expr?: string }[]; panels?: Panel[] };
type Query = { where: string; expr: string };

const dashboard = JSON.parse(readFileSync(join(MONITORING, 'dashboard.json'), 'utf8')) as { panels: Panel[] };

/** Every target's `expr`, rows' nested panels included, with the panel it belongs to. */
function queries(panels: Panel[]): Query[] {
  return panels.flatMap((panel) => [
    ...(panel.targets ?? []).flatMap((t) =>
      t.expr === undefined ? [] : [{ where: `panel ${panel.id} "${panel.title}" target ${t.refId}`, expr: t.expr }],
    ),
    ...queries(panel.panels ?? []),
  ]);
}

/** Grafana's interval variables are not PromQL; Prometheus sees a duration in their place. */
const asPromql = (expr: string) => expr.replace(/\$__(rate_interval|interval|range)\b/g, '5m');

/** One group per query, named after its panel so that promtool's message says which panel is wrong (record names
 * differ: promtool's lint refuses two rules recording the same series). */
const rulesOf = (found: Query[]): RulesFile => ({
  groups: found.map((q, i) => ({ name: q.where, rules: [{ record: `dashboard:query_${i}`, expr: asPromql(q.expr) }] })),
});

const check = (found: Query[]) => promtool(['check', 'rules', 'rules.yaml'], { 'rules.yaml': rulesOf(found) });

describe('the dashboard’s queries, by promtool', () => {
  const found = queries(dashboard.panels);

  it('all parse as PromQL', () => {
    expect(found.length).toBeGreaterThanOrEqual(13);
    const { status, output } = check(found);
    expect(output).toContain(`SUCCESS: ${found.length} rules found`);
    expect(status, output).toBe(0);
  });

  it('would name the panel of a query that does not parse', () => {
    const broken = found.map((q, i) => (i === 3 ? { ...q, expr: q.expr.replace(/\)\s*$/, '') } : q));
    const { status, output } = check(broken);
    expect(status).not.toBe(0);
    expect(output).toContain(`group "${found[3]?.where.replace(/"/g, '\\"')}"`);
    expect(output).toContain('could not parse expression');
  });
});
