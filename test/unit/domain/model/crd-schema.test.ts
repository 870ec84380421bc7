// Reading an installed CRD's schema (docs/deployment.md#operator-versions): declared fields, what a patch would lose,
// the release of a CRD by its probes, the 1.16 operator's fingerprint.
import { describe, expect, it } from 'vitest';
import {
  crdFacts,
  declares,
  describeCrds,
  disallowedValues,
  operatorOnCrds,
  droppedFields,
  notInCrd,
  reconciledBy116,
  undeclaredFields,
} from '../../../../src/domain/model/crd-schema.js';

const str = { type: 'string' };
const process116 = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    resource: { type: 'object', properties: { memory: str } },
    resources: { type: 'object', properties: { requests: { type: 'object', additionalProperties: str } } },
  },
};
function schema(withResources: boolean, versions: string[]): Record<string, unknown> {
  const processSpec = withResources
    ? process116
    : {
        ...process116,
        properties: { replicas: process116.properties.replicas, resource: process116.properties.resource },
      };
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          flinkConfiguration: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          flinkVersion: { type: 'string', enum: versions },
          ingress: {
            type: 'object',
            properties: { tls: { type: 'array', items: { type: 'object', properties: { hosts: str } } } },
          },
          taskManager: processSpec,
        },
      },
    },
  };
}
const crd = (openAPIV3Schema: unknown, description?: string) => ({
  spec: {
    versions: [
      {
        name: 'v1beta1',
        schema: { openAPIV3Schema },
        additionalPrinterColumns: [{ name: 'Job Status', ...(description ? { description } : {}) }],
      },
    ],
  },
});
const OLD = schema(false, ['v1_20', 'v2_2']);
const NEW = schema(true, ['v1_20', 'v2_2', 'v2_3', 'v2_4']);

describe('declares / undeclaredFields: what the API server keeps', () => {
  it('follows properties, maps, arrays and preserve-unknown-fields', () => {
    expect(declares(NEW, ['spec', 'taskManager', 'resources', 'requests', 'memory'])).toBe(true);
    expect(declares(OLD, ['spec', 'taskManager', 'resources'])).toBe(false);
    expect(declares(OLD, ['spec', 'flinkConfiguration', 'any', 'depth'])).toBe(true);
    expect(declares(OLD, ['spec', 'ingress', 'tls', 'hosts'])).toBe(true);
    expect(declares(OLD, ['spec', 'ingress', 'tls', 'other'])).toBe(false);
  });

  it('names the first undeclared key of each branch of a merge patch; metadata and removals are never refused', () => {
    const patch = {
      metadata: { annotations: { a: 'b' } },
      spec: {
        taskManager: { replicas: 2, resources: { requests: { memory: '4Gi' } }, extra: null },
        flinkConfiguration: { 'x.y': '1' },
      },
    };
    expect(undeclaredFields(OLD, patch)).toEqual(['spec.taskManager.resources']);
    expect(undeclaredFields(NEW, patch)).toEqual([]);
  });

  it('droppedFields: the patched fields the returned object does not hold', () => {
    const patch = {
      metadata: { annotations: { a: 'b' } },
      spec: { job: { parallelism: 3 }, taskManager: { resources: {} } },
    };
    expect(droppedFields(patch, { spec: { job: { parallelism: 3 }, taskManager: {} } })).toEqual([
      'spec.taskManager.resources',
    ]);
    expect(droppedFields(patch, { spec: { job: { parallelism: 3 }, taskManager: { resources: {} } } })).toEqual([]);
  });

  it('disallowedValues: strings outside their enum, from the installed schema', () => {
    const patch = { spec: { flinkVersion: 'v2_3', taskManager: { replicas: 2 } } };
    expect(disallowedValues(OLD, patch)).toEqual(['spec.flinkVersion v2_3']);
    expect(disallowedValues(NEW, patch)).toEqual([]);
  });

  it('says which release brought a field', () => {
    expect(notInCrd('spec.taskManager.resources', 'FlinkDeployment')).toBe(
      'spec.taskManager.resources is not in the installed FlinkDeployment CRD (it came with operator 1.16)',
    );
    expect(notInCrd('spec.surprise', 'FlinkSessionJob')).toBe(
      'spec.surprise is not in the installed FlinkSessionJob CRD',
    );
  });
});

describe('crdFacts: the release of an installed CRD by its probes', () => {
  it('1.15: no resources, enum to v2_2, described columns; 1.16: resources and v2_4', () => {
    expect(crdFacts('FlinkDeployment', crd(OLD, 'Last observed state of the job.'))).toMatchObject({
      release: '1.15',
      resources: false,
      flinkVersions: ['v1_20', 'v2_2'],
    });
    expect(crdFacts('FlinkDeployment', crd(NEW))).toMatchObject({ release: '1.16', resources: true });
  });

  it("reads client-node's typed names too (x_kubernetes_preserve_unknown_fields, _enum)", () => {
    const typed = JSON.parse(
      JSON.stringify(NEW).replace(/"x-kubernetes-preserve-unknown-fields"/g, '"x_kubernetes_preserve_unknown_fields"'),
    ) as Record<string, unknown>;
    const text = JSON.stringify(typed).replace(/"enum"/g, '"_enum"');
    const facts = crdFacts('FlinkDeployment', crd(JSON.parse(text)));
    expect(facts?.flinkVersions).toContain('v2_4');
    expect(declares(facts?.schema, ['spec', 'flinkConfiguration', 'a.b'])).toBe(true);
  });

  it('a session-job CRD is told by its printer columns alone; no v1beta1 schema: nothing known', () => {
    const session = { type: 'object', properties: { spec: { type: 'object', properties: {} } } };
    expect(crdFacts('FlinkSessionJob', crd(session, 'Last observed state of the job.'))?.release).toBe('1.15');
    expect(crdFacts('FlinkSessionJob', crd(session))?.release).toBe('1.16');
    expect(crdFacts('FlinkSessionJob', { spec: { versions: [] } })).toBeUndefined();
  });
});

describe('reconciledBy116: the 1.16 operator writes a resources key into lastReconciledSpec', () => {
  const withSpec = (spec: unknown) => ({
    status: { reconciliationStatus: { lastReconciledSpec: JSON.stringify({ spec, resource_metadata: {} }) } },
  });
  it('present (even null) under jobManager or taskManager: 1.16; absent or unreadable: no sign', () => {
    expect(reconciledBy116(withSpec({ taskManager: { resource: { memory: '2g' }, resources: null } }))).toBe(true);
    expect(reconciledBy116(withSpec({ taskManager: { resource: { memory: '2g' } } }))).toBe(false);
    expect(reconciledBy116({ status: { reconciliationStatus: { lastReconciledSpec: '{' } } })).toBe(false);
    expect(reconciledBy116({})).toBe(false);
  });
});

describe('describeCrds / operatorOnCrds: the words of /flink status and /readyz', () => {
  const old = crdFacts('FlinkDeployment', crd(OLD, 'Last observed state of the job.'));
  const fresh = crdFacts('FlinkDeployment', crd(NEW));
  const session = crdFacts('FlinkSessionJob', crd({ type: 'object' }, 'Last observed state of the job.'));
  it('one release, mixed releases, missing kinds, unreadable', () => {
    expect(describeCrds({ FlinkDeployment: old, FlinkSessionJob: session })).toBe(
      'operator 1.15 CRDs; without jobManager/taskManager.resources; flinkVersion up to v2_2; not installed: FlinkStateSnapshot, FlinkBlueGreenDeployment',
    );
    expect(describeCrds({ FlinkDeployment: fresh, FlinkSessionJob: session })).toMatch(
      /^mixed CRDs: FlinkDeployment 1.16, FlinkSessionJob 1.15; with jobManager\/taskManager.resources; flinkVersion up to v2_4/,
    );
    expect(describeCrds({}, 'the installed CRDs could not be read: forbidden')).toBe(
      'unknown: the installed CRDs could not be read: forbidden',
    );
  });

  it('the 1.16 fingerprint on 1.15 CRDs is a mismatch; on 1.16 CRDs a fact; its absence on 1.16 CRDs a hint only', () => {
    const fingerprint = {
      status: {
        reconciliationStatus: { lastReconciledSpec: JSON.stringify({ spec: { taskManager: { resources: null } } }) },
      },
    };
    expect(operatorOnCrds(fingerprint, old)).toMatchObject({
      words: expect.stringMatching(/^operator 1.16 on 1.15 CRDs/),
      mismatch: true,
    });
    expect(operatorOnCrds(fingerprint, fresh)).toEqual({
      words: 'operator 1.16 (its lastReconciledSpec carries resources)',
      mismatch: false,
    });
    expect(operatorOnCrds({}, old)).toBeUndefined();
    const without = {
      status: { reconciliationStatus: { lastReconciledSpec: JSON.stringify({ spec: { taskManager: {} } }) } },
    };
    expect(operatorOnCrds(without, old)).toBeUndefined();
    expect(operatorOnCrds(without, fresh)).toEqual({
      words: 'no sign of operator 1.16 on this resource (a 1.15 operator on 1.16 CRDs would ignore resources)',
      mismatch: false,
    });
  });
});
