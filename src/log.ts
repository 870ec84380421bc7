// The pino root logger; child loggers carry opId. Tokens, secrets and passwords never reach a log line.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'password',
  'authorization',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.password',
  '*.authorization',
  'headers.authorization',
  'headers["x-slack-signature"]',
  'req.headers.authorization',
  // ioredis attaches the failed command to its errors: an AUTH's arguments are the Redis user and password.
  '*.command.args',
];

const SECRET_PATTERN = /\b(xox[abprs]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+)/g;

/** Removes Slack tokens from free text (error messages can quote request bodies). */
export function scrubSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, (m) => `${m.slice(0, 5)}…redacted`);
}

export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { app: 'flink-chatops' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as typeof args;
          method.apply(this, scrubbed);
        },
      },
    },
    destination,
  );
}

export function forOperation(logger: Logger, opId: string): Logger {
  return logger.child({ opId });
}
