// The audit trail of one process (docs/audit.md): the operation store writes each change's events in its commit
// through `drafts` and `written`; events that belong to no operation change (a refused click, a freeze, a policy
// load) are appended by `record`. Every event appended here is also one log line: on stdout, or where `lines` writes
// (the sandbox's file, docs/audit.md#in-the-sandbox).
import { randomBytes } from 'node:crypto';
import type { AuditLog, AuditRecord, AuditRecorder, OperationAuditing } from '../app/ports/audit-log.js';
import type { PolicyLoad } from '../app/policy-source.js';
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import { newAuditId, type AuditDraft, type AuditEvent } from '../domain/kit/audit/event.js';
import { operationAuditDrafts, UNKNOWN_TEAM } from '../domain/engines/audit/operation-events.js';
import { forOperation, type Logger } from '../log.js';
import type { RedisConnection, ReplicaWait } from '../store/connection.js';
import { RedisAuditLog } from '../store/audit-log.js';
import { auditLine } from './stdout.js';

export interface AuditTrailOptions {
  log: AuditLog;
  logger: Logger;
  /** Where each event's line goes (docs/audit.md#on-stdout); default `logger`. */
  lines?: Logger;
  now?: () => number;
  random?: (size: number) => Uint8Array;
}

export class AuditTrail implements OperationAuditing, AuditRecorder {
  private readonly log: AuditLog;
  private readonly logger: Logger;
  private readonly lines: Logger;
  private readonly now: () => number;
  private readonly random: (size: number) => Uint8Array;

  constructor(opts: AuditTrailOptions) {
    this.log = opts.log;
    this.logger = opts.logger;
    this.lines = opts.lines ?? opts.logger;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? ((size) => randomBytes(size));
  }

  drafts(record: OperationRecord, entries: readonly HistoryEntry[]): AuditDraft[] {
    return operationAuditDrafts(record, entries, () => newAuditId(this.random));
  }

  written(events: readonly AuditEvent[]): void {
    for (const event of events) {
      try {
        auditLine(event.op ? forOperation(this.lines, event.op.id) : this.lines, event);
      } catch {
        // The event is in the chain; a broken log stream loses the line, never the event.
      }
    }
  }

  /** Appends one event that belongs to no operation change and writes its line; throws when it could not be kept. */
  async record(record: AuditRecord): Promise<AuditEvent> {
    const { at, ...rest } = record;
    const event = await this.log.append({
      ...rest,
      id: newAuditId(this.random),
      at: new Date(at ?? this.now()).toISOString(),
    });
    this.written([event]);
    return event;
  }

  /** The `onLoad` of a PolicyFileSource: each read of a changed file becomes its audit event. */
  readonly policyLoaded = (load: PolicyLoad): void => void this.recordQuietly(policyLoadRecord(load));

  /** `record`, for callers whose own work must not fail with it: a lost event is logged as an error. */
  async recordQuietly(record: AuditRecord): Promise<void> {
    await this.record(record).catch((error: unknown) =>
      this.logger.error({ err: error, action: record.action }, 'could not append an audit event'),
    );
  }
}

/** The trail of a process on the store's Redis: the chain under `prefix`, held for the records' retention. */
export function redisAuditTrail(
  redis: RedisConnection,
  opts: {
    prefix: string;
    retentionMs?: number;
    logger: Logger;
    lines?: Logger;
    now?: () => number;
    replicas?: ReplicaWait;
  },
): AuditTrail {
  const log = new RedisAuditLog(redis, {
    prefix: opts.prefix,
    ...(opts.replicas ? { replicas: opts.replicas } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.retentionMs === undefined ? {} : { retentionMs: opts.retentionMs }),
  });
  return new AuditTrail({
    log,
    logger: opts.logger,
    ...(opts.lines ? { lines: opts.lines } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
}

/** A read of a changed policy file as its audit event; no Slack user caused it (docs/audit.md#the-events). */
export function policyLoadRecord(load: PolicyLoad): AuditRecord {
  return {
    actor: { user: 'system', team: UNKNOWN_TEAM },
    action: load.accepted ? 'policy_loaded' : 'policy_rejected',
    decision: {
      file: load.path,
      ...(load.sha256 ? { sha256: load.sha256 } : {}),
      ...(load.accepted ? {} : { problems: load.problems.slice(0, 20) }),
    },
  };
}
