// The audit events on stdout (docs/audit.md#on-stdout): one pino line per event, `"audit": true` and the event under
// `event`, whole and unchanged, so a log agent can pick the lines out and ship them.
import type { AuditEvent } from '../domain/kit/audit/event.js';
import type { Logger } from '../log.js';

/** The `msg` of every audit line. */
export const AUDIT_MESSAGE = 'audit';

/** A logger at `info` for loggers set quieter (LOG_LEVEL=warn, error, fatal): audit lines are not debug output. */
const louder = new WeakMap<Logger, Logger>();

function infoLogger(logger: Logger): Logger {
  if (logger.isLevelEnabled('info') || logger.level === 'silent') return logger;
  let child = louder.get(logger);
  if (!child) {
    child = logger.child({}, { level: 'info' });
    louder.set(logger, child);
  }
  return child;
}

/**
 * Writes `event` as one info line of `logger`, whatever LOG_LEVEL says but `silent`. The logger's redaction cannot
 * reach into the event: its paths name top-level fields and fields one level down (src/log.ts), and the event sits
 * under `event`, whose own fields are a closed list none of those paths name (docs/audit.md#the-events).
 */
export function auditLine(logger: Logger, event: AuditEvent): void {
  infoLogger(logger).info({ audit: true, event }, AUDIT_MESSAGE);
}
