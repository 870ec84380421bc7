// Command-line arguments of every subcommand (cli and the simulators' tools alike), and how a command's exit code
// reaches the process: a leaf module that imports nothing of ours.

export type SubcommandHandler = (args: string[]) => Promise<number>;

/** Parses `--name value` and `--flag` arguments; unknown ones are reported, not ignored. */
export function parseArgs(
  args: string[],
  spec: Record<string, 'value' | 'flag'>,
): { ok: true; values: Record<string, string | true>; positional: string[] } | { ok: false; message: string } {
  const values: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const kind = spec[name];
    if (!kind) return { ok: false, message: `unknown option --${name}` };
    if (kind === 'flag') {
      values[name] = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) return { ok: false, message: `--${name} needs a value` };
    values[name] = value;
  }
  return { ok: true, values, positional };
}

/** Runs a command as a process: its result is the exit code, a thrown error one line on stderr (never a stack). */
export function runAsProcess(main: SubcommandHandler, argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`flink-chatops: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
