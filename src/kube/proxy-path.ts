// The API server path of a Flink REST read through the service proxy, built from checked, encoded segments
// (docs/deep-verification.md#how-rest-is-reached): the namespace and the Flink cluster are DNS-1123 labels, every
// path segment is a plain word, the one after `jobs` a job id. Nothing read from a resource is spliced in as text.
import { jobIdProblem, labelProblem } from '../domain/model/target.js';

export type ProxyPath = { ok: true; pathname: string; search: string } | { ok: false; message: string };

/** `<cluster-id>-rest:rest`: the Service the operator creates for every Flink cluster, and its named port. */
export function restService(clusterId: string): string {
  return `${clusterId}-rest:rest`;
}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
/** Flink's own words where a job id could stand (`/jobs/overview`). */
const JOBS_WORDS = new Set(['overview']);

/** `/api/v1/namespaces/<ns>/services/<cluster>-rest:rest/proxy/<path>` with its query, or why it may not be built. */
export function proxyPath(namespace: string, clusterId: string, path: string): ProxyPath {
  const problem = labelProblem('namespace', namespace) ?? labelProblem('Flink cluster', clusterId);
  if (problem !== undefined) return { ok: false, message: problem };
  const at = path.indexOf('?');
  const segments = (at < 0 ? path : path.slice(0, at)).split('/').filter((s) => s !== '');
  for (const [i, segment] of segments.entries()) {
    const bad =
      segments[i - 1] === 'jobs' && !JOBS_WORDS.has(segment)
        ? jobIdProblem('job id', segment)
        : SEGMENT.test(segment)
          ? undefined
          : `the Flink REST path segment ${JSON.stringify(segment.slice(0, 80))} is not a plain word`;
    if (bad !== undefined) return { ok: false, message: bad };
  }
  const query = new URLSearchParams(at < 0 ? '' : path.slice(at + 1)).toString();
  const service = restService(encodeURIComponent(clusterId));
  return {
    ok: true,
    pathname: `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${service}/proxy/${segments.map(encodeURIComponent).join('/')}`,
    search: query === '' ? '' : `?${query}`,
  };
}
