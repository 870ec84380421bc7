// The simulators' own executable: `sandbox` (npm start) and `sim-cluster`, the two development subcommands the
// bot's `flink-chatops` hands over to in a checkout (bin/flink-chatops.js). The image has neither.
import { runAsProcess, type SubcommandHandler } from './bot.js';

const USAGE = `flink-chatops development tools (packages/sim):
  flink-chatops sandbox [--speed fast|realistic]  run everything locally with a Slack-like page (npm start)
  flink-chatops sim-cluster [--port N] [--seed demo] [--speed fast|realistic]
                                                  run the simulated Kubernetes API server and Flink operator`;

export const SUBCOMMANDS: Readonly<Record<string, () => Promise<SubcommandHandler>>> = {
  sandbox: async () => (await import('./sandbox-command.js')).runSandbox,
  'sim-cluster': async () => (await import('./sim-cluster-cli.js')).simClusterCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const load = sub === undefined ? undefined : SUBCOMMANDS[sub];
  if (!load) {
    process.stderr.write(`${sub === undefined ? '' : `unknown subcommand "${sub}"\n\n`}${USAGE}\n`);
    return 1;
  }
  return (await load())(rest);
}

/** Runs the tools as a process: sets the exit code, never prints a stack trace. */
export function run(argv: string[]): void {
  runAsProcess(main, argv);
}

if (process.argv[1] !== undefined && /[/\\]sim[/\\]src[/\\]cli\.(ts|js)$/.test(process.argv[1]))
  run(process.argv.slice(2));
