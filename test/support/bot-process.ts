// A real `serve --role bot` process sharing a test's Redis, Slack and cluster (for tests that SIGKILL it, and the
// Socket Mode readiness test): started with the given environment, resolved once it says "bot started".
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SECRET, TOKEN, type BotEnv } from './bot-env.js';

const REPO = new URL('../..', import.meta.url).pathname;

export interface BotProcess {
  child: ChildProcess;
  /** Every line it wrote so far, stdout and stderr. */
  lines: string[];
}

/** `flink-chatops serve --role bot` with only PATH and `env`; rejects with its last lines if it exits before starting. */
export async function spawnBot(env: Record<string, string>): Promise<BotProcess> {
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'bot'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      RECORD_SIGNING_KEY: process.env.RECORD_SIGNING_KEY ?? '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('bot started')) resolve();
    });
    createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    child.once('exit', (code) => reject(new Error(`serve --role bot exited ${code}: ${lines.slice(-5).join('\n')}`)));
  });
  return { child, lines };
}

/** The bot env's configuration as a process; `slackApiUrl` defaults to the simulated Slack's. */
export async function startBotProcess(
  env: BotEnv,
  options: { port?: number; slackApiUrl?: string; leaseTtl?: string } = {},
): Promise<ChildProcess> {
  const started = await spawnBot({
    ...(options.leaseTtl === undefined ? {} : { LEASE_TTL: options.leaseTtl }),
    PORT: String(options.port ?? 0),
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: options.slackApiUrl ?? env.sim.apiUrl,
    REDIS_URL: env.config.redis.url,
    REDIS_PREFIX: env.config.redis.prefix,
    KUBECONFIG: env.config.kubeconfig ?? '',
    POLICY_FILE: env.config.policyFile,
  });
  return started.child;
}
