// The simulator's pure pieces behind real job shapes: the job-graph annotation, overrides, Flink's normalised pointers.
import { describe, expect, it } from 'vitest';
import { normalisePointer } from '../../../src/kube/flink-rest-checkpoints.js';
import {
  BOUNDED_SOURCE_VERTEX,
  JOB_GRAPH_ANNOTATION,
  jobGraphOf,
  jobGraphProblem,
  parallelismOverrides,
  withBoundedSource,
} from '../../../src/kube/job-graph.js';
import type { KubeObject } from '../../../src/kube/store.js';

const job = (graph?: string, jarURI = 'local:///opt/flink/job.jar'): KubeObject => ({
  apiVersion: 'flink.apache.org/v1beta1',
  kind: 'FlinkDeployment',
  metadata: {
    name: 'orders',
    namespace: 'ns',
    ...(graph !== undefined ? { annotations: { [JOB_GRAPH_ANNOTATION]: graph } } : {}),
  },
  spec: { job: { jarURI, parallelism: 2 } },
});

describe('normalisePointer: the pointer as Flink reports it after resolving it', () => {
  it.each([
    ['s3://b/sp/savepoint-1/_metadata', 's3://b/sp/savepoint-1'],
    ['s3://b/sp/savepoint-1/', 's3://b/sp/savepoint-1'],
    ['s3://b/sp//savepoint-1', 's3://b/sp/savepoint-1'],
    ['file:///tmp/sp/savepoint-1', 'file:/tmp/sp/savepoint-1'],
    ['file:///tmp/sp/savepoint-1/_metadata', 'file:/tmp/sp/savepoint-1'],
    ['/tmp/sp/savepoint-1/', 'file:/tmp/sp/savepoint-1'],
    ['hdfs:///flink/sp/savepoint-1', 'hdfs://namenode:8020/flink/sp/savepoint-1'],
    ['hdfs://nn2:9000/flink/sp/savepoint-1/', 'hdfs://nn2:9000/flink/sp/savepoint-1'],
    ['s3://b/ckpt/0123/chk-42', 's3://b/ckpt/0123/chk-42'],
  ])('%s → %s', (pointer, expected) => {
    expect(normalisePointer(pointer)).toBe(expected);
  });

  it('is idempotent: a normalised pointer stays as it is', () => {
    for (const p of ['hdfs:///a/b/_metadata', 'file:///x/', 's3://b/c/'])
      expect(normalisePointer(normalisePointer(p))).toBe(normalisePointer(p));
  });
});

describe('the job-graph annotation', () => {
  it('vertex ids are stable for one graph, differ for another graph or another jar', () => {
    const graph = 'Source: events; Map; Sink: results [p=1]';
    const ids = jobGraphOf(job(graph)).map((v) => v.id);
    expect(jobGraphOf(job(graph)).map((v) => v.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(jobGraphOf(job('Source: events; Map -> Filter; Sink: results [p=1]')).map((v) => v.id)[1]).not.toBe(ids[1]);
    expect(jobGraphOf(job(graph, 'local:///opt/flink/other.jar')).map((v) => v.id)[0]).not.toBe(ids[0]);
  });

  it('reads parallelism set in code and bounded vertices; an unreadable graph is a problem admission names', () => {
    expect(jobGraphOf(job('Source: bootstrap [bounded=30s]; Sink: out [p=1]'))).toMatchObject([
      { name: 'Source: bootstrap', finishesAfterSeconds: 30 },
      { name: 'Sink: out', fixedParallelism: 1 },
    ]);
    expect(jobGraphProblem(job('Source: a [p=zero]'))).toMatch(/unknown vertex attribute "p=zero"/);
    expect(jobGraphProblem(job(' ; '))).toBe('the job graph has no vertices');
    expect(jobGraphProblem(job())).toBeUndefined();
  });

  it('the bounded-source knob puts a finishing vertex in front and keeps the ids of the others', () => {
    const object = job('Source: events; Sink: results');
    const graph = jobGraphOf(object);
    const shaped = withBoundedSource(graph, object);
    expect(shaped[0]).toMatchObject({ name: BOUNDED_SOURCE_VERTEX, finishesAfterSeconds: 0 });
    expect(shaped.slice(1)).toEqual(graph);
    expect(graph.map((v) => v.id)).not.toContain(shaped[0]?.id);
  });

  it('parallelismOverrides reads `id:p,id:p` and skips what is not a positive parallelism', () => {
    const spec = { flinkConfiguration: { 'pipeline.jobvertex-parallelism-overrides': 'aa:4, bb:0,cc:x,dd:2' } };
    expect([...parallelismOverrides(spec)]).toEqual([
      ['aa', 4],
      ['dd', 2],
    ]);
  });
});
