// `flink-chatops sim-cluster`: the simulated API server and Flink operator alone, until SIGINT/SIGTERM.
import { once } from 'node:events';
import { createLogger, parseArgs, type SubcommandHandler } from './bot.js';
import { parseClockOffsetMs, SEEDS, startSimCluster, type Seed } from './kube/cluster.js';
import { EVENT_TTL_USAGE, parseEventTtlMs } from './kube/event-ttl.js';
import { isSpeed, SPEEDS } from './kube/speed.js';

const USAGE =
  'usage: flink-chatops sim-cluster [--port N] [--host ADDR] [--seed demo|none] [--speed fast|realistic] [--kubeconfig PATH] [--clock-offset DURATION] [--event-ttl DURATION]';

type Parsed =
  | {
      ok: true;
      port: number;
      host?: string;
      seed: Seed;
      speed: (typeof SPEEDS)[number];
      kubeconfig?: string;
      clockOffsetMs: number;
      eventTtlMs?: number;
    }
  | { ok: false; message: string };

export function parseSimClusterArgs(args: string[]): Parsed {
  const parsed = parseArgs(args, {
    port: 'value',
    host: 'value',
    seed: 'value',
    speed: 'value',
    kubeconfig: 'value',
    'clock-offset': 'value',
    'event-ttl': 'value',
  });
  if (!parsed.ok) return parsed;
  if (parsed.positional.length > 0) return { ok: false, message: `unexpected argument "${parsed.positional[0]}"` };
  const {
    port = '0',
    host,
    seed = 'none',
    speed = 'realistic',
    kubeconfig,
  } = parsed.values as Record<string, string | undefined>;
  if (!/^\d+$/.test(port) || Number(port) > 65_535)
    return { ok: false, message: `--port must be a port number 0–65535 (0 = any free port), not "${port}"` };
  if (!(SEEDS as readonly string[]).includes(seed))
    return { ok: false, message: `--seed must be one of ${SEEDS.join(', ')}, not "${seed}"` };
  if (!isSpeed(speed)) return { ok: false, message: `--speed must be one of ${SPEEDS.join(', ')}, not "${speed}"` };
  // The simulated cluster's clock, set apart from the bot's (a real cluster's clocks are rarely in step with it).
  const clockOffsetMs = parseClockOffsetMs(
    parsed.values['clock-offset'] === undefined ? '0' : String(parsed.values['clock-offset']),
  );
  if (clockOffsetMs === undefined)
    return {
      ok: false,
      message: `--clock-offset must be a duration such as 30s, -30s or 2m, not "${String(parsed.values['clock-offset'])}"`,
    };
  // How long Events live (kube-apiserver --event-ttl, 1 h unless told).
  const ttl = parsed.values['event-ttl'];
  const eventTtlMs = ttl === undefined ? undefined : parseEventTtlMs(String(ttl));
  if (ttl !== undefined && eventTtlMs === undefined)
    return { ok: false, message: `${EVENT_TTL_USAGE}, not "${String(ttl)}"` };
  return {
    ok: true,
    port: Number(port),
    seed: seed as Seed,
    speed,
    clockOffsetMs,
    ...(eventTtlMs === undefined ? {} : { eventTtlMs }),
    ...(host !== undefined ? { host } : {}),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
  };
}

export const simClusterCommand: SubcommandHandler = async (args) => {
  const parsed = parseSimClusterArgs(args);
  if (!parsed.ok) {
    process.stderr.write(`flink-chatops sim-cluster: ${parsed.message}\n${USAGE}\n`);
    return 1;
  }
  const logger = createLogger(process.env.LOG_LEVEL ?? 'info', process.stderr);
  const cluster = await startSimCluster({
    port: parsed.port,
    seed: parsed.seed,
    speed: parsed.speed,
    clockOffsetMs: parsed.clockOffsetMs,
    ...(parsed.eventTtlMs === undefined ? {} : { eventTtlMs: parsed.eventTtlMs }),
    logger,
    ...(parsed.host !== undefined ? { host: parsed.host } : {}),
    ...(parsed.kubeconfig !== undefined ? { kubeconfigPath: parsed.kubeconfig } : {}),
  });
  // Listening before the first line is out: a caller may signal as soon as it has read it.
  const stopped = Promise.race([
    once(process, 'SIGINT').then(() => 'SIGINT'),
    once(process, 'SIGTERM').then(() => 'SIGTERM'),
  ]);
  // The first stdout line is the contract with scripts and tests; everything else goes to stderr.
  process.stdout.write(`${JSON.stringify({ server: cluster.url, kubeconfig: cluster.kubeconfigPath })}\n`);
  logger.info(
    { server: cluster.url, kubeconfig: cluster.kubeconfigPath, seed: parsed.seed, speed: parsed.speed },
    'simulated cluster running',
  );
  const signal = await stopped;
  logger.info({ signal }, 'simulated cluster stopping');
  await cluster.close();
  return 0;
};
