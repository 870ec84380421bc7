// How operator 1.16 reads `resources` quantities and picks the field in effect (flink-kubernetes-operator
// ResourceConfigUtils.parseResourceMemoryString/hasResourceRequirements/computeLimitFactor, FlinkConfigBuilder
// .setResourceRequirements).
import { describe, expect, it } from 'vitest';
import {
  effectiveResources,
  hasResourceRequirements,
  quantityValue,
  resourceMemoryBytes,
} from '../../../src/kube/resource-requirements.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

describe('resourceMemoryBytes (ResourceConfigUtils.parseResourceMemoryString: Flink MemorySize first, then Quantity)', () => {
  it.each([
    ['2G', 2 * GIB],
    ['2g', 2 * GIB],
    ['2gb', 2 * GIB],
    ['2048m', 2048 * MIB],
    ['500m', 500 * MIB],
    ['2Gi', 2 * GIB],
    ['1.5Gi', 1.5 * GIB],
    ['4294967296', 4 * GIB],
    ['1.5G', 1.5e9],
  ])('%s is %d bytes', (text, bytes) => {
    expect(resourceMemoryBytes(text)).toBe(bytes);
  });

  it('refuses what neither syntax reads', () => {
    expect(resourceMemoryBytes('lots')).toBeUndefined();
  });
});

describe('quantityValue (Kubernetes Quantity, for cpu)', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    [1.5, 1.5],
    ['1e3', 1000],
  ])('%s is %d', (text, value) => {
    expect(quantityValue(text)).toBe(value);
  });
});

describe('the field in effect', () => {
  it('resources counts only with a request or a limit (an empty block leaves resource in effect)', () => {
    expect(hasResourceRequirements({})).toBe(false);
    expect(hasResourceRequirements({ requests: {}, limits: {} })).toBe(false);
    expect(hasResourceRequirements({ limits: { 'ephemeral-storage': '1Gi' } })).toBe(true);
  });

  it('with resources, resource is ignored entirely; request else limit; both make the limit factor', () => {
    const spec = {
      taskManager: {
        resource: { memory: '8g', cpu: 8 },
        resources: { requests: { memory: '2Gi', cpu: '500m' }, limits: { memory: '4Gi' } },
      },
    };
    expect(effectiveResources(spec, 'taskManager', {})).toEqual({
      memoryBytes: 2 * GIB,
      cpu: 0.5,
      memoryLimitFactor: 2,
      cpuLimitFactor: 1,
    });
  });

  it('only a limit: the limit is the process size and flinkConfiguration keeps its factor', () => {
    const spec = { jobManager: { resources: { limits: { memory: '3g' } } } };
    const conf = { 'kubernetes.jobmanager.memory.limit-factor': '1.5' };
    expect(effectiveResources(spec, 'jobManager', conf)).toMatchObject({
      memoryBytes: 3 * GIB,
      memoryLimitFactor: 1.5,
    });
  });
});
