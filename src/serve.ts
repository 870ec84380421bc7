// `flink-chatops serve`: runs a role until SIGTERM or SIGINT, then shuts it down cleanly.
import type { Config, Role } from './config.js';
import { createLogger } from './log.js';

export interface Service {
  close(): Promise<void>;
}

/** Resolves with the exit code once the role has stopped. */
export async function serve(role: Role, config: Config): Promise<number> {
  const logger = createLogger(config.logLevel);
  const started: Service[] = [];
  const service: Service = {
    close: async () => {
      for (const s of started.splice(0).reverse()) await s.close();
    },
  };
  try {
    if (role !== 'bot') started.push(await (await import('./worker/main.js')).startWorker(config, { logger }));
    if (role !== 'worker') started.push(await (await import('./slack/main.js')).startBot(config, { logger }));
  } catch (error) {
    await service.close();
    throw error;
  }
  const signal = await untilSignal();
  logger.info({ signal }, 'shutting down');
  // A second signal while draining means "now": the operations stay as recorded and are resumed elsewhere.
  void untilSignal().then((again) => {
    logger.warn({ signal: again }, 'second signal; exiting without waiting');
    process.exit(1);
  });
  await service.close();
  return 0;
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.once('SIGTERM', on);
    process.once('SIGINT', on);
  });
}
