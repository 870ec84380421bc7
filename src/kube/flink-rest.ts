// Flink's REST API (the JobManager's) read through the Kubernetes API server's service proxy with the same
// credentials (docs/deep-verification.md): short deadlines, the caller's AbortSignal, and every failure a value saying
// why.
import {
  CoreV1Api,
  Observable,
  type KubeConfig,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import type { CallOptions } from './flink-client.js';
import { makeApiClient } from './agents.js';
import { AnswerTooLarge, cappedHttp, formatBytes } from './capped-body.js';
import { proxyPath, restService } from './proxy-path.js';

export { restService };

/** Why REST could not answer, in the words the evidence report uses. */
export type RestFailure = {
  ok: false;
  /**
   * `too-large`: the answer passed REST_ANSWER_LIMIT and was not read further (docs/deep-verification.md#bounded-answers).
   * `refused`: the namespace, cluster or path is not valid in a URL, so nothing was requested.
   */
  reason: 'forbidden' | 'not-found' | 'unavailable' | 'timeout' | 'too-large' | 'error' | 'refused';
  message: string;
};
export type RestResult<T = unknown> = { ok: true; value: T } | RestFailure;

/** The port: GET a JobManager REST path of the Flink cluster `clusterId` (a FlinkDeployment's name). */
export interface FlinkRest {
  get(namespace: string, clusterId: string, path: string, options?: CallOptions): Promise<RestResult>;
}

/** The most a JobManager's answer may hold; a longer one is cut there and reported as `too-large`. */
export const REST_ANSWER_LIMIT = 4 * 1024 * 1024;

const REASONS: Record<number, RestFailure['reason']> = { 403: 'forbidden', 404: 'not-found', 503: 'unavailable' };

export class ClientNodeFlinkRest implements FlinkRest {
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: { timeoutMs?: number; onCall?: (call: { path: string; status: number }) => void } = {},
  ) {
    this.core = makeApiClient(kubeConfig, CoreV1Api);
  }

  async get(namespace: string, clusterId: string, path: string, options?: CallOptions): Promise<RestResult> {
    const built = proxyPath(namespace, clusterId, path);
    if (!built.ok) return { ok: false, reason: 'refused', message: built.message };
    const deadline = AbortSignal.timeout(options?.timeoutMs ?? this.options.timeoutMs ?? 3_000);
    const signal = options?.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const relative = path.replace(/^\/+/, '');
    const middleware: ObservableMiddleware = {
      pre: (ctx: RequestContext) => {
        ctx.setSignal(signal);
        // The generated client would percent-encode the path's slashes; the path is set from checked, encoded
        // segments instead, after the server's own prefix (docs/deep-verification.md#how-rest-is-reached).
        const url = new URL(ctx.getUrl());
        const prefix = url.pathname.slice(0, url.pathname.lastIndexOf('/api/v1/namespaces/'));
        url.pathname = `${prefix}${built.pathname}`;
        url.search = built.search;
        ctx.setUrl(url.toString());
        return new Observable(Promise.resolve(ctx));
      },
      post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
    };
    try {
      const body = await this.core.connectGetNamespacedServiceProxyWithPath(
        { name: restService(clusterId), namespace, path: relative },
        { middleware: [middleware], middlewareMergeStrategy: 'append', httpApi: cappedHttp(REST_ANSWER_LIMIT) },
      );
      this.options.onCall?.({ path: relative, status: 200 });
      return { ok: true, value: typeof body === 'string' ? (JSON.parse(body) as unknown) : body };
    } catch (error) {
      const failure = restFailure(error, deadline, options?.signal);
      this.options.onCall?.({ path: relative, status: (error as { code?: number }).code ?? 0 });
      return failure;
    }
  }
}

function restFailure(error: unknown, deadline: AbortSignal, caller: AbortSignal | undefined): RestFailure {
  const e = error as { code?: unknown; body?: unknown; message?: string };
  if (error instanceof AnswerTooLarge)
    return { ok: false, reason: 'too-large', message: `the Flink REST answer was cut at ${formatBytes(error.limit)}` };
  if (typeof e.code === 'number' && e.code >= 100) {
    return { ok: false, reason: REASONS[e.code] ?? 'error', message: bodyMessage(e.body) ?? `HTTP ${e.code}` };
  }
  if (caller?.aborted) return { ok: false, reason: 'error', message: 'the call was cancelled' };
  if (deadline.aborted) return { ok: false, reason: 'timeout', message: 'the Flink REST API did not answer in time' };
  if (error instanceof SyntaxError)
    return {
      ok: false,
      reason: 'error',
      message: `the Flink REST API answered something that is not JSON: ${error.message}`,
    };
  return { ok: false, reason: 'error', message: e.message ?? String(error) };
}

/** The message of a Kubernetes Status or of Flink's `{errors: [...]}` body. */
function bodyMessage(body: unknown): string | undefined {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return body.slice(0, 300);
    }
  }
  const record = (parsed ?? {}) as { message?: unknown; errors?: unknown };
  if (typeof record.message === 'string') return record.message;
  return Array.isArray(record.errors) && typeof record.errors[0] === 'string' ? record.errors[0] : undefined;
}
