// flink-chatops: the one executable. Subcommands dispatch to their modules; bad usage exits 1 with a message.
import { loadConfig, ROLES, type Role } from '../config.js';
import { parseArgs, runAsProcess, type SubcommandHandler } from './args.js';

const USAGE = `flink-chatops — operate Apache Flink jobs on Kubernetes from Slack

Usage:
  flink-chatops serve [--role bot|worker|all]     run the bot and/or worker against Slack, Redis and a cluster
  flink-chatops check-policy FILE                 validate a policy file and print what it allows
  flink-chatops audit verify FILE                 check an audit export's order, gaps and hash chain
  flink-chatops audit export [--since T] [--until T]
                                                  write the stored audit events to stdout as JSON lines
  flink-chatops --help                            this text

Configuration comes from the environment (see docs/configuration.md). In a checkout, \`sandbox\` (npm start) and
\`sim-cluster\` run the simulators of packages/sim (see docs/sandbox.md); an installed image has neither.`;

const serve: SubcommandHandler = async (args) => {
  const parsed = parseArgs(args, { role: 'value' });
  if (!parsed.ok) return usageError(parsed.message);
  const role = (parsed.values.role ?? 'all') as string;
  if (!(ROLES as readonly string[]).includes(role)) return usageError(`--role must be one of ${ROLES.join(', ')}`);
  const loaded = loadConfig(process.env, role as Role);
  if (!loaded.ok) {
    process.stderr.write(
      `flink-chatops serve: configuration problems:\n${loaded.problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
    return 1;
  }
  if (loaded.config.recordKey === undefined) {
    // The sandbox and tests seal with a key of their own process; a deployment's roles must share one
    // (docs/deployment.md#record-signing).
    process.stderr.write(
      'flink-chatops serve: configuration problems:\n  RECORD_SIGNING_KEY: required (or RECORD_SIGNING_KEY_FILE): the key bot and worker seal and check operation records with; the same value for every role (docs/deployment.md#record-signing)\n',
    );
    return 1;
  }
  return (await import('../roles/serve.js')).serve(role as Role, loaded.config);
};

const SUBCOMMANDS: Record<string, () => Promise<SubcommandHandler>> = {
  serve: async () => serve,
  'check-policy': async () => (await import('./check-policy.js')).handler,
  audit: async () => (await import('./audit.js')).handler,
};

/** The simulators' subcommands: a checkout runs them from packages/sim (bin/flink-chatops.js); an image has none. */
const DEVELOPMENT_ONLY = ['sandbox', 'sim-cluster'];

function usageError(message: string): number {
  process.stderr.write(`flink-chatops: ${message}\n\n${USAGE}\n`);
  return 1;
}

export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return sub === undefined ? 1 : 0;
  }
  const load = SUBCOMMANDS[sub];
  if (!load && DEVELOPMENT_ONLY.includes(sub)) {
    process.stderr.write(
      `flink-chatops: "${sub}" is a development tool and not part of this installation: run it from a checkout (npm start)\n`,
    );
    return 1;
  }
  if (!load) return usageError(`unknown subcommand "${sub}"`);
  const handler = await load();
  return handler(rest);
}

/** Runs the CLI as a process: sets the exit code, never prints a stack trace. */
export function run(argv: string[]): void {
  runAsProcess(main, argv);
}

if (process.argv[1] !== undefined && /[/\\]cli[/\\]main\.(ts|js)$/.test(process.argv[1])) run(process.argv.slice(2));
