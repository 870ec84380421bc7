// Reading what a worker recorded: the evidence kept on an operation, its criteria, the detail of its last entry.
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { NS } from './worker-env.js';

/** The intent fields every test operation shares. */
export const common = { incidentChannels: [] };

/** A FlinkDeployment in the worker tests' namespace. */
export const dep = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });

export const evidenceOf = (r: OperationRecord): WorkerEvidence => r.evidence as WorkerEvidence;

export const criterion = (r: OperationRecord, name: string) => evidenceOf(r).criteria?.find((c) => c.name === name);
