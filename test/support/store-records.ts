// Records written into a store the way their writers would: created by the bot, then moved by the worker.
import type { OperationStore } from '../../src/app/ports/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Plan } from '../../src/domain/model/plan.js';
import { acceptedRecord, OP_ID } from './records.js';

/** acceptedRecord's operation (its plan with `plan` merged over it) created in `store` and moved to COMPLETED. */
export async function completedInStore(
  store: Pick<OperationStore, 'create' | 'transition' | 'get'>,
  plan: Partial<Plan> = {},
): Promise<OperationRecord> {
  const base = acceptedRecord();
  const { version: _v, history: _h, state: _s, createdAt: _c, updatedAt: _u, ...fields } = base;
  await store.create({ ...fields, plan: { ...(base.plan as Plan), ...plan } }, base.requester);
  const steps = [
    ['QUEUED', 'bot'],
    ['SUBMITTING', 'worker'],
    ['SUBMITTED', 'worker'],
    ['COMPLETED', 'worker'],
  ] as const;
  for (const [to, role] of steps) {
    const from = ['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTED'] as const;
    const result = await store.transition(OP_ID, { from: [...from], to, actor: role, role });
    if (!result.ok) throw new Error(result.reason);
  }
  return (await store.get(OP_ID)) as OperationRecord;
}
