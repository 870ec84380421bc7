// A real `serve --role bot` process sharing a test's Redis, Slack and cluster (for tests that SIGKILL it).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SECRET, TOKEN, type BotEnv } from './bot-env.js';

const REPO = new URL('../..', import.meta.url).pathname;

/** Starts the process and resolves once it says "bot started"; `slackApiUrl` defaults to the simulated Slack's. */
export async function startBotProcess(env: BotEnv, options: { port?: number; slackApiUrl?: string } = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'bot'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(options.port ?? 0),
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: options.slackApiUrl ?? env.sim.apiUrl,
      REDIS_URL: env.config.redis.url,
      REDIS_PREFIX: env.config.redis.prefix,
      KUBECONFIG: env.config.kubeconfig ?? '',
      POLICY_FILE: env.config.policyFile,
      LOG_LEVEL: 'info',
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
    child.once('exit', (code) => reject(new Error(`bot process exited ${code}: ${lines.slice(-5).join('\n')}`)));
  });
  return child;
}
