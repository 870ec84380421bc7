// The declared-fields guard (docs/lifecycle.md#record-integrity): the last check before a write.
import { describe, expect, it } from 'vitest';
import { undeclaredWrites } from '../../../../../src/domain/engines/planning/declared-fields.js';
import type { Target } from '../../../../../src/domain/model/target.js';

const target: Target = { kind: 'FlinkDeployment', namespace: 'ns', name: 'orders' };

describe('the declared-fields guard', () => {
  const patch = (spec: Record<string, unknown>) => ({
    type: 'patch' as const,
    patch: { metadata: { annotations: { 'flink-chatops/operation-id': 'op-x' } }, spec },
  });

  it('a scale may write its parallelism and the bot annotations, nothing else', () => {
    expect(undeclaredWrites('scale', undefined, patch({ job: { parallelism: 9 } }), target)).toEqual([]);
    expect(
      undeclaredWrites(
        'scale',
        undefined,
        patch({ job: { parallelism: 9 }, image: 'evil:1', podTemplate: { spec: { containers: [] } } }),
        target,
      ),
    ).toEqual(['spec.image', 'spec.podTemplate.spec.containers']);
  });

  it('config writes any key under flinkConfiguration; a foreign annotation is refused', () => {
    expect(undeclaredWrites('config', undefined, patch({ flinkConfiguration: { 'a.b': '1' } }), target)).toEqual([]);
    const foreign = { type: 'patch' as const, patch: { metadata: { annotations: { 'other/x': 'y' } } } };
    expect(undeclaredWrites('config', undefined, foreign, target)).toEqual(['metadata.annotations.other/x']);
  });

  it("an undo writes what the undone kind's undo restores (undo of a suspend, judged as resume)", () => {
    const change = patch({ job: { state: 'running', upgradeMode: 'savepoint' } });
    expect(undeclaredWrites('undo', 'resume', change, target)).toEqual([]);
    expect(undeclaredWrites('undo', 'resume', patch({ image: 'x' }), target)).toEqual(['spec.image']);
  });
});
