// Reads a request body only up to a limit and a deadline (docs/deployment.md#request-limits): a Content-Length over
// the limit is refused without reading a byte, a chunked body is counted as it streams and cut where it passes it.
import type { IncomingMessage } from 'node:http';

export type BodyRead =
  | { ok: true; body: Buffer }
  | { ok: false; reason: 'too-large'; limit: number }
  | { ok: false; reason: 'timeout'; timeoutMs: number }
  | { ok: false; reason: 'aborted' };

export interface BodyLimits {
  maxBytes: number;
  /** The whole body must have arrived this long after the headers. */
  timeoutMs: number;
}

/** true when the request announces more than `maxBytes` (a chunked one announces nothing: its length is counted). */
export function announcesTooMuch(req: IncomingMessage, maxBytes: number): boolean {
  const header = req.headers['content-length'];
  if (header === undefined) return false;
  // Node refuses a malformed or repeated Content-Length itself; what reaches here is digits.
  return Number(header) > maxBytes;
}

/**
 * The body as one Buffer, or why it was not read whole. On a refusal the stream is left paused and unread: the caller
 * answers with `connection: close`, and Node destroys the socket after the answer instead of draining the rest.
 */
export function readBoundedBody(req: IncomingMessage, limits: BodyLimits): Promise<BodyRead> {
  if (announcesTooMuch(req, limits.maxBytes))
    return Promise.resolve({ ok: false, reason: 'too-large', limit: limits.maxBytes });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (read: BodyRead): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      if (!read.ok) req.pause();
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limits.maxBytes) return finish({ ok: false, reason: 'too-large', limit: limits.maxBytes });
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onAbort = (): void => finish({ ok: false, reason: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) onAbort();
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: 'timeout', timeoutMs: limits.timeoutMs }),
      limits.timeoutMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}
