// The bot's public entry: what tools beside the bot (the simulators and sandbox in packages/sim) may use. The
// roles are loaded only when started, so reading the command language or a policy does not load Bolt or BullMQ.
import type { BotOverrides, RunningBot } from './roles/bot.js';
import type { RunningWorker, WorkerOverrides } from './roles/worker.js';
import type { Config } from './config.js';

export { parseArgs, runAsProcess, type SubcommandHandler } from './cli/args.js';
export { loadConfig, redactUrl, type Config } from './config.js';
export { createLogger, type Logger } from './log.js';
export { loadPolicyFile } from './app/policy-load.js';
export type { Policy } from './domain/engines/policy/schema.js';
export { VERB_NAMES, usageLine, verbSpec } from './domain/engines/language/verbs.js';
export { parseCommand } from './domain/engines/language/parse.js';

/** `serve --role bot` in this process: the Slack app and its notifier. */
export async function startBot(config: Config, overrides?: BotOverrides): Promise<RunningBot> {
  return (await import('./roles/bot.js')).startBot(config, overrides);
}

/** `serve --role worker` in this process: the BullMQ worker and the operator watchers. */
export async function startWorker(config: Config, overrides?: WorkerOverrides): Promise<RunningWorker> {
  return (await import('./roles/worker.js')).startWorker(config, overrides);
}
