// The `flink-chatops sandbox` subcommand (npm start): its arguments, what it prints on the terminal, and Ctrl-C; the
// sandbox itself starts in sandbox.ts.
import { isAbsolute, resolve } from 'node:path';
import { parseArgs, redactUrl, type SubcommandHandler } from './bot.js';
import { EVENT_TTL_USAGE, parseEventTtlMs } from './kube/event-ttl.js';
import { isSpeed, SPEEDS } from './kube/speed.js';
import { SANDBOX_POLICY, startSandbox, type SandboxOptions } from './sandbox.js';

const USAGE = 'usage: flink-chatops sandbox [--speed fast|realistic] [--port N] [--policy FILE]';

type Parsed = { ok: true; options: SandboxOptions } | { ok: false; message: string };

export function parseSandboxArgs(args: string[]): Parsed {
  const parsed = parseArgs(args, { speed: 'value', port: 'value', policy: 'value', 'event-ttl': 'value' });
  if (!parsed.ok) return parsed;
  if (parsed.positional.length > 0) return { ok: false, message: `unexpected argument "${parsed.positional[0]}"` };
  const { speed = 'realistic', port, policy, 'event-ttl': ttl } = parsed.values as Record<string, string | undefined>;
  if (!isSpeed(speed)) return { ok: false, message: `--speed must be one of ${SPEEDS.join(', ')}, not "${speed}"` };
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) > 65_535)) {
    return { ok: false, message: `--port must be a port number 0–65535 (0 = any free port), not "${port}"` };
  }
  const eventTtlMs = ttl === undefined ? undefined : parseEventTtlMs(ttl);
  if (ttl !== undefined && eventTtlMs === undefined) return { ok: false, message: `${EVENT_TTL_USAGE}, not "${ttl}"` };
  const policyFile = policy === undefined ? SANDBOX_POLICY : isAbsolute(policy) ? policy : resolve(policy);
  const options: SandboxOptions = { speed, policyFile, ...(port === undefined ? {} : { port: Number(port) }) };
  return { ok: true, options: eventTtlMs === undefined ? options : { ...options, eventTtlMs } };
}

/**
 * The first SIGINT or SIGTERM resolves; a second one means "stop now". The same Ctrl-C often arrives twice within
 * milliseconds (from the terminal and relayed by a wrapper such as npm, tsx or timeout), so only one that comes
 * more than a second later counts as a second signal.
 */
function watchSignals(onSecond: () => void): Promise<NodeJS.Signals> {
  let firstAt: number | undefined;
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      if (firstAt === undefined) {
        firstAt = Date.now();
        resolve(signal);
      } else if (Date.now() - firstAt > 1000) onSecond();
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export const runSandbox: SubcommandHandler = async (args) => {
  const parsed = parseSandboxArgs(args);
  if (!parsed.ok) {
    process.stderr.write(`flink-chatops sandbox: ${parsed.message}\n${USAGE}\n`);
    return 1;
  }
  const stopped = watchSignals(() => process.exit(1));
  const started = await startSandbox(parsed.options);
  if (!started.ok) {
    process.stderr.write(`${started.message}\n`);
    return 1;
  }
  const { sandbox } = started;
  const redisNote =
    sandbox.redis.kind === 'private' ? `a private redis-server at ${sandbox.redis.url}` : redactUrl(sandbox.redis.url);
  process.stdout.write(
    [
      `flink-chatops sandbox is running: open ${sandbox.url}`,
      `  policy: ${sandbox.policyFile}`,
      `  redis:  ${redisNote} (keys under {${sandbox.prefix}})`,
      `  audit trail: ${sandbox.auditPath} (one JSON line per event, not on this terminal)`,
      `  speed:  ${parsed.options.speed}; simulated clusters (kubeconfig ${sandbox.kubeconfigPath}):`,
      ...sandbox.clusters.map(({ name, cluster }) => `    ${name}: Kubernetes API at ${cluster.url}, its own worker`),
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  const signal = await stopped;
  process.stdout.write(`flink-chatops sandbox: ${signal}, stopping…\n`);
  await sandbox.close();
  process.stdout.write('flink-chatops sandbox: stopped.\n');
  return 0;
};
