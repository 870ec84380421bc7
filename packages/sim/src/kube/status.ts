// Kubernetes `Status` objects and the errors the simulated API server answers with, in the real server's words.
import { ApiError, qualified, type SimResource } from './store.js';

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

/** The Status kube-apiserver returns for a failed request. */
export function failure(error: ApiError): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    code: error.code,
  };
  if (error.details) status.details = error.details;
  return status;
}

export function success(details: Record<string, unknown>): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

export const errors = {
  notFoundPath(): ApiError {
    return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  },
  badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  },
  methodNotAllowed(method: string, what: string): ApiError {
    return new ApiError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource (${method} ${what})`,
    );
  },
  unsupportedPatch(contentType: string): ApiError {
    return new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format (${contentType || 'no Content-Type'}) - accepted media types include: application/json-patch+json, application/merge-patch+json`,
    );
  },
  tooLarge(limit: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  },
  internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
  },
  /** `qualifiedKind` as kube-apiserver prints it: `FlinkDeployment.flink.apache.org`, or `Event` for core. */
  invalid(qualifiedKind: string, name: string, causes: { field: string; message: string }[]): ApiError {
    const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
    const kind = qualifiedKind.split('.')[0] ?? qualifiedKind;
    return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
      name,
      kind,
      causes: causes.map((c) => ({ reason: 'FieldValueInvalid', message: c.message, field: c.field })),
    });
  },
  conflict(resource: SimResource, name: string, why: string): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(resource)} "${name}": ${why}`, {
      name,
      kind: resource,
    });
  },
};

export interface ForbiddenContext {
  user: string;
  verb: string;
  /** `flinkdeployments`, or `flinkdeployments/status` for a subresource. */
  resource: string;
  group: string;
  namespace?: string;
  name?: string;
}

/** The RBAC denial exactly as kube-apiserver words it. */
export function forbidden(ctx: ForbiddenContext): ApiError {
  const base = ctx.resource.split('/')[0] ?? ctx.resource;
  const subject = ctx.group === '' ? base : `${base}.${ctx.group}`;
  const named = ctx.name ? ` "${ctx.name}"` : '';
  const scope = ctx.namespace ? ` in the namespace "${ctx.namespace}"` : ' at the cluster scope';
  const message =
    `${subject}${named} is forbidden: User "${ctx.user}" cannot ${ctx.verb} resource "${ctx.resource}" ` +
    `in API group "${ctx.group}"${scope}`;
  const details: Record<string, unknown> = { group: ctx.group, kind: base };
  if (ctx.name) details.name = ctx.name;
  return new ApiError(403, 'Forbidden', message, details);
}
