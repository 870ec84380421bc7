// The simulated autoscaler's deterministic rule and its ScalingReport text.
import { describe, expect, it } from 'vitest';
import { decideParallelism, scalingReport } from '../../../src/kube/autoscaler.js';
import { parseJobGraph, type GraphVertex } from '../../../src/kube/job-graph.js';

function graph(text: string): GraphVertex[] {
  const parsed = parseJobGraph(text, 'jar');
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.vertices;
}

const deployed = (parallelism: number, conf: Record<string, string> = {}) => ({
  job: { parallelism },
  flinkConfiguration: conf,
});

describe('decideParallelism', () => {
  it('raises every vertex without parallelism in code by one and keeps the fixed ones', () => {
    const [source, sink] = graph('Source: events; Sink: results [p=1]');
    const decisions = decideParallelism([source!, sink!], deployed(2), {});
    expect(decisions.map((d) => [d.current, d.target])).toEqual([
      [2, 3],
      [1, 1],
    ]);
  });

  it('starts from the deployed overrides and stops at the max parallelism', () => {
    const [source, middle] = graph('Source: events; Map');
    const conf = { 'pipeline.jobvertex-parallelism-overrides': `${source!.id}:4` };
    expect(decideParallelism([source!, middle!], deployed(2, conf), {}).map((d) => d.target)).toEqual([5, 3]);
    expect(
      decideParallelism([source!, middle!], deployed(2, conf), { 'job.autoscaler.vertex.max-parallelism': '4' }).map(
        (d) => d.target,
      ),
    ).toEqual([4, 3]);
    expect(decideParallelism([source!], deployed(8), { 'pipeline.max-parallelism': '8' }).map((d) => d.target)).toEqual(
      [8],
    );
  });
});

describe('scalingReport', () => {
  it('lists only the vertices that change, in the operator form', () => {
    const [source, sink] = graph('Source: events; Sink: results [p=1]');
    const report = scalingReport(
      'Scaling execution enabled, begin scaling vertices:',
      decideParallelism([source!, sink!], deployed(2), {}),
    );
    expect(report).toBe(
      `Scaling execution enabled, begin scaling vertices:{ Vertex ID ${source!.id} | Parallelism 2 -> 3 | Processing capacity 1000.00 -> 1500.00 | Target data rate 1500.00}`,
    );
  });
});
