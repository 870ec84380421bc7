// Kubernetes call failures as a small catalogue: what happened, and whether the write may have been applied.

export const KUBE_ERROR_CODES = [
  'not-found',
  'conflict',
  'already-exists',
  'forbidden',
  'invalid',
  'rejected',
  'server-error',
  'timeout',
  'network',
  'aborted',
] as const;
export type KubeErrorCode = (typeof KUBE_ERROR_CODES)[number];

/**
 * `outcomeUnknown`: the request may have reached the server and been applied (timeout, reset, 5xx), so a write
 * must be followed by a read before anything is resubmitted (docs/lifecycle.md#submission). `retryable`: trying again
 * can help.
 */
const TRAITS = {
  'not-found': { retryable: false, outcomeUnknown: false },
  conflict: { retryable: true, outcomeUnknown: false },
  'already-exists': { retryable: false, outcomeUnknown: false },
  forbidden: { retryable: false, outcomeUnknown: false },
  invalid: { retryable: false, outcomeUnknown: false },
  rejected: { retryable: false, outcomeUnknown: false },
  'server-error': { retryable: true, outcomeUnknown: true },
  timeout: { retryable: true, outcomeUnknown: true },
  network: { retryable: true, outcomeUnknown: true },
  aborted: { retryable: false, outcomeUnknown: true },
} as const satisfies Record<KubeErrorCode, { retryable: boolean; outcomeUnknown: boolean }>;

export class KubeError extends Error {
  readonly retryable: boolean;
  readonly outcomeUnknown: boolean;
  /**
   * The cluster the call went to, when the installation has several ("cannot reach cluster X":
   * docs/deployment.md#several-clusters).
   */
  readonly cluster: string | undefined;

  constructor(
    readonly code: KubeErrorCode,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; cluster?: string },
  ) {
    super(message, options);
    this.name = 'KubeError';
    this.retryable = TRAITS[code].retryable;
    this.outcomeUnknown = TRAITS[code].outcomeUnknown;
    this.cluster = options?.cluster;
  }

  /** The same failure, naming the cluster it happened in. */
  in(cluster: string | undefined): KubeError {
    if (cluster === undefined || this.cluster !== undefined) return this;
    return new KubeError(this.code, this.message, this.status, { cause: this.cause, cluster });
  }
}

/** The API server could not be reached or did not answer (as opposed to answering with an error). */
export function isUnreachable(error: unknown): error is KubeError {
  return error instanceof KubeError && (error.code === 'network' || error.code === 'timeout');
}

export function codeForStatus(status: number, reason?: string): KubeErrorCode {
  if (status === 404) return 'not-found';
  if (status === 409) return reason === 'AlreadyExists' ? 'already-exists' : 'conflict';
  if (status === 403) return 'forbidden';
  if (status === 422) return 'invalid';
  if (status >= 500) return 'server-error';
  return 'rejected';
}

export function isKubeError(error: unknown, code?: KubeErrorCode): error is KubeError {
  return error instanceof KubeError && (code === undefined || error.code === code);
}
