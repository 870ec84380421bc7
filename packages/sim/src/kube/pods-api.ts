// The pods endpoints of the simulated API server (pods.ts, pod-logs.ts): GET on `pods` (list with labelSelector),
// `pods/<name>` and `pods/<name>/log`; the pods are read-only here.
import type { ServerResponse } from 'node:http';
import { podLog, type PodLogSources } from './pod-logs.js';
import type { SimPods } from './pods.js';
import { errors } from './status.js';

export interface PodsRoute {
  namespace?: string;
  name?: string;
  log: boolean;
}

export interface PodsAnswer {
  status: number;
  contentType: string;
  /** A log cut by `limitBytes` is bytes: the cut may fall inside a character, as kube's does. */
  body: string | Buffer;
}

/** GET on `pods` (list with labelSelector), `pods/<name>` and `pods/<name>/log`; the pods are read-only here. */
export function answerPods(
  pods: SimPods,
  sources: PodLogSources,
  route: PodsRoute,
  method: string,
  query: URLSearchParams,
): PodsAnswer {
  if (method !== 'GET') throw errors.methodNotAllowed(method, route.log ? 'pods/log' : 'pods');
  const json = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  if (route.name === undefined) {
    if (query.get('watch') === 'true' || query.get('watch') === '1')
      throw errors.methodNotAllowed('GET', 'pods (watch is not simulated)');
    const items = pods.list(route.namespace, query.get('labelSelector') ?? '');
    return json({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: sources.store.resourceVersion },
      items,
    });
  }
  const namespace = route.namespace ?? 'default';
  if (route.log) return podLog(pods, sources, namespace, route.name, query);
  return json(pods.pod(namespace, route.name).object);
}

/** Writes an answer (JSON or the log's text) unless the connection is gone. */
export function sendPods(res: ServerResponse, answer: PodsAnswer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': Buffer.byteLength(answer.body),
  });
  res.end(answer.body);
}
