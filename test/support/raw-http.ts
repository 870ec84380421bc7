// Raw HTTP requests fetch cannot make: headers sent with a body that never follows, and a chunked body streamed until
// the server answers (or stops reading), each reporting when and what it answered.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';

export interface RawAnswer {
  status: number;
  body: string;
  /** Bytes of body this client wrote before the answer came (or the connection ended). */
  bytesSent: number;
  /** true when the server closed the connection after answering. */
  closed: boolean;
}

/** How long a test waits for an answer that must come without the body: a server waiting for the body sends none. */
const ANSWER_TIMEOUT_MS = 5_000;

function answerOf(req: ClientRequest, sent: () => number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms (${sent()} bytes of body sent)`));
    }, ANSWER_TIMEOUT_MS);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(timer);
      const bytesSent = sent();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const closed = res.headers.connection === 'close';
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), bytesSent, closed });
      });
    });
  });
}

/** POSTs `headers` announcing `contentLength` bytes, and never sends a byte of the body. */
export function headersOnly(url: string, headers: Record<string, string>, contentLength: number): Promise<RawAnswer> {
  const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(contentLength) } });
  const answer = answerOf(req, () => 0);
  req.flushHeaders();
  return answer;
}

/**
 * POSTs a chunked body of `chunkBytes`-sized chunks, up to `maxBytes`, as fast as the server reads it, stopping once
 * an answer arrives or the connection breaks.
 */
export async function streamChunked(
  url: string,
  headers: Record<string, string>,
  opts: { chunkBytes: number; maxBytes: number },
): Promise<RawAnswer> {
  const req = request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } });
  let sent = 0;
  let answered = false;
  const answer = answerOf(req, () => sent).finally(() => {
    answered = true;
  });
  answer.catch(() => undefined);
  const chunk = Buffer.alloc(opts.chunkBytes, 'a');
  while (!answered && !req.destroyed && sent < opts.maxBytes) {
    sent += chunk.length;
    if (!req.write(chunk)) await drainedOrClosed(req);
  }
  if (!answered && !req.destroyed) req.end();
  return answer;
}

function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}
