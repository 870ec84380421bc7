// Runs Prometheus's own promtool on files written to a scratch directory, for the tests of the alerts and the
// dashboard (test/repo/prometheus-*.test.ts); `npm run test:setup` installs it (README.md#the-two-commands).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MONITORING = join(ROOT, 'deploy', 'components', 'monitoring');

export type RuleGroup = {
  name: string;
  rules: ({ alert?: string; record?: string; expr: string } & Record<string, unknown>)[];
};
export type RulesFile = { groups: RuleGroup[] };

/** The rules file inside the PrometheusRule (its `spec`): what Prometheus loads once the Operator has read it. */
export function alertRules(): RulesFile {
  const rule = parse(readFileSync(join(MONITORING, 'prometheusrule.yaml'), 'utf8')) as {
    kind: string;
    spec: RulesFile;
  };
  if (rule.kind !== 'PrometheusRule') throw new Error(`prometheusrule.yaml is a ${rule.kind}, not a PrometheusRule`);
  return rule.spec;
}

/** `promtool <args>` in a fresh directory holding `files` (name → YAML text or value); its exit status and output. */
export function promtool(args: string[], files: Record<string, unknown>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  try {
    for (const [name, content] of Object.entries(files))
      writeFileSync(join(dir, name), typeof content === 'string' ? content : stringify(content));
    const run = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error("promtool is not installed: `npm run test:setup` installs it (Debian's prometheus package)");
    if (run.error) throw run.error;
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
