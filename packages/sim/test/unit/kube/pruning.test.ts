// The simulator's CRD model (crd-schema.ts) prunes exactly as the Flink operator's own CRDs of release 1.15 and 1.16
// do (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go), when a copy of them is present beside the
// checkout: a sample with every declared field and an undeclared one beside each object's fields is pruned by both.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { crdSchema, FLINK_VERSIONS, type FlinkResource } from '../../../src/kube/crd-schema.js';
import { pruneUnknownFields } from '../../../src/kube/pruning.js';
import type { OperatorVersion } from '../../../src/kube/versions.js';

const REFERENCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  '..',
  '..',
  'shared',
  'reference',
);
const DIRS: Record<OperatorVersion, string> = {
  '1.15': resolve(REFERENCE, 'flink-operator-crds'),
  '1.16': resolve(REFERENCE, 'flink-operator-crds-1.16'),
};
const PLURALS: FlinkResource[] = [
  'flinkdeployments',
  'flinksessionjobs',
  'flinkstatesnapshots',
  'flinkbluegreendeployments',
];
type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  enum?: string[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
};

function referenceSpec(crd: OperatorVersion, plural: FlinkResource): Schema {
  const text = readFileSync(resolve(DIRS[crd], `${plural}.flink.apache.org-v1.yml`), 'utf8');
  const doc = parse(text) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
  const version = doc.spec.versions.find((v) => v.name === 'v1beta1');
  const spec = version?.schema.openAPIV3Schema.properties?.spec;
  if (!spec) throw new Error(`${plural} ${crd}: no spec schema`);
  return spec;
}

/** Every declared field, with an undeclared `zzUnknown` beside each object's; pod templates only at their top. */
function sample(schema: Schema, path: string): unknown {
  if (schema['x-kubernetes-preserve-unknown-fields']) return { any: { nested: 1 } };
  if (schema.properties) {
    const out: Record<string, unknown> = { zzUnknown: 1 };
    for (const [key, child] of Object.entries(schema.properties)) {
      out[key] = path.endsWith('podTemplate') ? {} : sample(child, `${path}.${key}`);
    }
    return out;
  }
  if (typeof schema.additionalProperties === 'object') return { someKey: sample(schema.additionalProperties, path) };
  if (schema.items) return [sample(schema.items, `${path}[0]`)];
  if (schema.type === 'object') return { zzUnknown: 1 };
  return schema.type === 'string' ? (schema.enum?.[0] ?? 'x') : schema.type === 'boolean' ? true : 1;
}

/** The reference pruning: undeclared keys go unless the node preserves unknown fields or is a map. */
function referencePrune(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (value === null || typeof value !== 'object' || schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => schema.items && referencePrune(item, schema.items, `${path}[${i}]`, out));
    return;
  }
  for (const key of Object.keys(value)) {
    const child =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (child) referencePrune((value as Record<string, unknown>)[key], child, `${path}.${key}`, out);
    else if (schema.additionalProperties !== true) out.push(`${path}.${key}`);
  }
}

describe('the CRD model prunes as the Flink operator CRDs do (pruning/algorithm.go)', () => {
  const present = existsSync(DIRS['1.15']) && existsSync(DIRS['1.16']);

  it.each(['1.15', '1.16'] as const)('release %s: the same fields pruned from a full sample of every CRD', (crd) => {
    if (!present) {
      console.warn(`pruning.test: ${REFERENCE} is absent — the CRD model was NOT compared with the CRDs`);
      expect(present, 'CRD reference folders absent: this run compared nothing').toBe(false);
      return;
    }
    for (const plural of PLURALS) {
      const reference = referenceSpec(crd, plural);
      const object = { spec: sample(reference, 'spec') as Record<string, unknown> };
      const expected: string[] = [];
      referencePrune(object.spec, reference, 'spec', expected);
      expect(expected.length, `${plural}: the sample has undeclared fields`).toBeGreaterThan(1);
      const pruned = pruneUnknownFields(structuredClone(object), crdSchema(plural, crd));
      expect(pruned.sort(), `${plural} ${crd}`).toEqual(expected.sort());
    }
  });

  it.each(['1.15', '1.16'] as const)('release %s: the flinkVersion enum', (crd) => {
    if (!present) {
      expect(present, 'CRD reference folders absent: this run compared nothing').toBe(false);
      return;
    }
    expect(referenceSpec(crd, 'flinkdeployments').properties?.flinkVersion?.enum).toEqual(FLINK_VERSIONS[crd]);
  });

  it('pruning names array elements and nested paths as the API server does, and keeps what it may', () => {
    const object = {
      spec: {
        ingress: { tls: [{ hosts: ['a'], secretName: 's', extra: 1 }] },
        flinkConfiguration: { 'a.b': { c: 1 } },
        taskManager: { resources: { requests: { memory: '1Gi' } } },
      },
      status: { anything: true },
    };
    expect(pruneUnknownFields(object, crdSchema('flinkdeployments', '1.15'))).toEqual([
      'spec.ingress.tls[0].extra',
      'spec.taskManager.resources',
    ]);
    expect(object).toEqual({
      spec: {
        ingress: { tls: [{ hosts: ['a'], secretName: 's' }] },
        flinkConfiguration: { 'a.b': { c: 1 } },
        taskManager: {},
      },
      status: { anything: true },
    });
  });
});
