// "Made by this bot": one rule for the approval re-check and the worker (domain/kit/planning/ours.ts).
import { describe, expect, it } from 'vitest';
import { ourSubmissionsAfter } from '../../../../../src/domain/kit/planning/ours.js';

describe('"made by this bot": one rule for the approval re-check and the worker', () => {
  const plan = { uid: 'uid-1', generation: 5 };
  it('counts only other operations on the same object whose submission came after the plan', () => {
    const records = [
      { id: 'op-self01', submittedGeneration: 7, plan: { uid: 'uid-1' } },
      { id: 'op-ahead1', submittedGeneration: 6, plan: { uid: 'uid-1' } },
      { id: 'op-older1', submittedGeneration: 5, plan: { uid: 'uid-1' } },
      { id: 'op-snap01', plan: { uid: 'uid-1' } },
    ];
    expect(ourSubmissionsAfter(records, plan, 'op-self01')).toEqual([{ opId: 'op-ahead1', generation: 6 }]);
  });

  it('does not count an operation on an earlier object of the same name (the approval re-check used to)', () => {
    const records = [{ id: 'op-gone01', submittedGeneration: 6, plan: { uid: 'uid-0' } }];
    expect(ourSubmissionsAfter(records, plan, 'op-self01')).toEqual([]);
  });
});
