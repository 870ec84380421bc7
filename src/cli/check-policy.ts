// `flink-chatops check-policy FILE`: validates a policy file and prints what it allows, or every problem by path.
import { describePolicy } from '../domain/policy/describe.js';
import { loadPolicyFile } from '../app/policy-load.js';

export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const USAGE = 'usage: flink-chatops check-policy FILE';

export async function checkPolicy(args: string[], io: CliOutput = processOutput): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    io.out(`${USAGE}\nValidates a policy file (SPEC §6) and prints what it allows; exits 1 with one line per problem.\n`);
    return 0;
  }
  const [file, ...extra] = args;
  if (file === undefined || file.startsWith('--') || extra.length > 0) {
    io.err(`flink-chatops check-policy: ${file === undefined ? 'name the policy file' : 'expected exactly one FILE'}\n${USAGE}\n`);
    return 1;
  }
  const loaded = await loadPolicyFile(file);
  if (!loaded.ok) {
    if (loaded.problem === 'missing' || loaded.problem === 'unreadable') {
      io.err(`flink-chatops check-policy: ${loaded.errors.join('\n')}\n`);
    } else {
      const n = loaded.errors.length;
      const heading = loaded.problem === 'yaml' ? `${file}: not valid YAML:` : `${file}: ${n} problem${n === 1 ? '' : 's'}:`;
      io.err(`${heading}\n${indented(loaded.errors)}\n`);
      printWarnings(io, loaded.warnings);
    }
    return 1;
  }
  io.out(`${file}: a valid policy (sha256 ${loaded.hash.slice(0, 12)}).\n\n${describePolicy(loaded.policy)}`);
  printWarnings(io, loaded.warnings);
  return 0;
}

const indented = (lines: readonly string[]) => lines.map((line) => `  ${line}`).join('\n');

function printWarnings(io: CliOutput, warnings: readonly string[]): void {
  if (warnings.length > 0) io.err(`warnings:\n${indented(warnings)}\n`);
}

/** The `check-policy` entry of the CLI's subcommand table. */
export const handler = (args: string[]): Promise<number> => checkPolicy(args);
