// `flink-chatops check-policy FILE [--clusters a,b]`: validates a policy file and prints what it allows, or every
// problem by path; with --clusters, cluster names in the policy must be among the given ones
// (docs/policy.md#several-clusters).
import { describePolicy } from '../domain/engines/policy/describe.js';
import { describeAlerts } from '../domain/engines/policy/alerts.js';
import { clusterNameProblem } from '../domain/kit/policy/glob.js';
import { loadPolicyFile, type PolicyLoadOptions } from '../app/policy-load.js';
import { parseArgs } from './args.js';

export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const USAGE = 'usage: flink-chatops check-policy FILE [--clusters NAME,NAME…]';
const HELP = [
  'Validates a policy file (docs/policy.md) and prints what it allows; exits 1 with one line per problem.',
  "--clusters: the installation's cluster names (KUBE_CONTEXTS); a cluster the policy names that is not",
  'among them, or a cluster glob matching none of them, is a problem. Without it cluster names are not checked.',
].join('\n');

type Invocation = { ok: true; file: string; options: PolicyLoadOptions } | { ok: false; message: string };

/** `FILE [--clusters a,b]`, in either order. */
function parseInvocation(args: string[]): Invocation {
  const parsed = parseArgs(args, { clusters: 'value' });
  if (!parsed.ok) return parsed;
  const [file, ...extra] = parsed.positional;
  if (file === undefined || extra.length > 0)
    return { ok: false, message: file === undefined ? 'name the policy file' : 'expected exactly one FILE' };
  const list = parsed.values.clusters;
  if (typeof list !== 'string') return { ok: true, file, options: {} };
  const clusters = list.split(',').map((c) => c.trim());
  for (const cluster of clusters) {
    const problem = clusterNameProblem(cluster);
    if (problem) return { ok: false, message: `--clusters: ${cluster === '' ? 'a cluster name is empty' : problem}` };
  }
  return { ok: true, file, options: { clusters } };
}

export async function checkPolicy(args: string[], io: CliOutput = processOutput): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    io.out(`${USAGE}\n${HELP}\n`);
    return 0;
  }
  const invocation = parseInvocation(args);
  if (!invocation.ok) {
    io.err(`flink-chatops check-policy: ${invocation.message}\n${USAGE}\n`);
    return 1;
  }
  const { file, options } = invocation;
  const loaded = await loadPolicyFile(file, options);
  if (!loaded.ok) {
    if (loaded.problem === 'missing' || loaded.problem === 'unreadable') {
      io.err(`flink-chatops check-policy: ${loaded.errors.join('\n')}\n`);
    } else {
      const n = loaded.errors.length;
      const heading =
        loaded.problem === 'yaml' ? `${file}: not valid YAML:` : `${file}: ${n} problem${n === 1 ? '' : 's'}:`;
      io.err(`${heading}\n${indented(loaded.errors)}\n`);
      printWarnings(io, loaded.warnings);
    }
    return 1;
  }
  io.out(`${file}: a valid policy (sha256 ${loaded.hash.slice(0, 12)}).\n\n${describePolicy(loaded.policy)}`);
  if (loaded.policy.alerts !== undefined) io.out(`\n${describeAlerts(loaded.policy).join('\n')}\n`);
  printWarnings(io, loaded.warnings);
  return 0;
}

const indented = (lines: readonly string[]) => lines.map((line) => `  ${line}`).join('\n');

function printWarnings(io: CliOutput, warnings: readonly string[]): void {
  if (warnings.length > 0) io.err(`warnings:\n${indented(warnings)}\n`);
}

/** The `check-policy` entry of the CLI's subcommand table. */
export const handler = (args: string[]): Promise<number> => checkPolicy(args);
