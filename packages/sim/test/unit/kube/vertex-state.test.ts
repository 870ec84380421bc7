// A vertex's status is the aggregate of its subtasks' execution states, as Flink's
// ExecutionJobVertex.getAggregateJobVertexState computes it (flink-runtime, executiongraph/ExecutionJobVertex.java).
import { describe, expect, it } from 'vitest';
import { aggregateState, countTasks, EXECUTION_STATES, vertexTasks } from '../../../src/kube/vertex-state.js';

describe('ExecutionJobVertex.getAggregateJobVertexState', () => {
  it('RUNNING as soon as one subtask runs, the others still SCHEDULED or DEPLOYING', () => {
    expect(aggregateState(countTasks(6, 'SCHEDULED', { RUNNING: 1 }), 6)).toBe('RUNNING');
    expect(aggregateState(countTasks(6, 'DEPLOYING', { RUNNING: 5 }), 6)).toBe('RUNNING');
  });

  it('SCHEDULED and DEPLOYING collapse to CREATED: no vertex is ever SCHEDULED', () => {
    expect(aggregateState(countTasks(4, 'SCHEDULED'), 4)).toBe('CREATED');
    expect(aggregateState(countTasks(4, 'SCHEDULED', { DEPLOYING: 2 }), 4)).toBe('CREATED');
  });

  it('FAILED > CANCELING > CANCELED > INITIALIZING > RUNNING', () => {
    const all = { FAILED: 1, CANCELING: 1, CANCELED: 1, INITIALIZING: 1, RUNNING: 1 };
    expect(aggregateState(countTasks(5, 'RUNNING', all), 5)).toBe('FAILED');
    expect(aggregateState(countTasks(5, 'RUNNING', { ...all, FAILED: 0 }), 5)).toBe('CANCELING');
    expect(aggregateState(countTasks(5, 'RUNNING', { CANCELED: 1, INITIALIZING: 1 }), 5)).toBe('CANCELED');
    expect(aggregateState(countTasks(5, 'RUNNING', { INITIALIZING: 1 }), 5)).toBe('INITIALIZING');
  });

  it('FINISHED only when every subtask finished; some finished and the rest not started is RUNNING', () => {
    expect(aggregateState(countTasks(3, 'FINISHED'), 3)).toBe('FINISHED');
    expect(aggregateState(countTasks(3, 'CREATED', { FINISHED: 2 }), 3)).toBe('RUNNING');
  });
});

describe('subtask states of a simulated vertex', () => {
  const run = { parallelism: 6, finished: false, waiting: 2, failed: 0 };

  it('a running job with subtasks waiting for a slot: RUNNING and SCHEDULED counts, the vertex RUNNING', () => {
    const tasks = vertexTasks({ ...run, jobState: 'RUNNING' });
    expect(tasks).toMatchObject({ RUNNING: 4, SCHEDULED: 2, CREATED: 0 });
    expect(aggregateState(tasks, 6)).toBe('RUNNING');
  });

  it('never a job state as a task state: RESTARTING and SUSPENDED cancel the subtasks, a job being created has them CREATED', () => {
    for (const jobState of ['RESTARTING', 'SUSPENDED', 'CREATED', 'CANCELLING', 'FAILED']) {
      const tasks = vertexTasks({ ...run, jobState });
      expect(Object.keys(tasks)).toEqual([...EXECUTION_STATES]);
      expect(Object.values(tasks).reduce((a, b) => a + b, 0)).toBe(6);
    }
    expect(aggregateState(vertexTasks({ ...run, jobState: 'RESTARTING' }), 6)).toBe('CANCELED');
    expect(aggregateState(vertexTasks({ ...run, jobState: 'CREATED' }), 6)).toBe('CREATED');
    expect(vertexTasks({ ...run, jobState: 'FAILED', failed: 2 })).toMatchObject({ FAILED: 2, CANCELED: 4 });
  });
});
