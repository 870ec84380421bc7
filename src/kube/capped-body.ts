// Answers read up to a cap (docs/deep-verification.md#bounded-answers): client-node's own HTTP library reads a whole
// body into memory however long it is, so a JobManager answering 32 MB through the service proxy would cost the bot
// 32 MB and the parse. This library sends the request client-node prepared (its URL, headers, pooled agent and
// AbortSignal) and reads the answer as it streams in, stopping and closing the connection once it passes the cap.
import http from 'node:http';
import https from 'node:https';
import {
  ResponseContext,
  wrapHttpLibrary,
  type HttpLibrary,
  type RequestContext,
  type ResponseBody,
} from '@kubernetes/client-node';

/** The answer was longer than the cap: nothing of it is used. */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer was cut at ${formatBytes(limit)}`);
    this.name = 'AnswerTooLarge';
  }
}

/** `4 MB`, `512 KB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** An HTTP library for one client-node call whose answer may hold at most `limit` bytes. */
export function cappedHttp(limit: number): HttpLibrary {
  return wrapHttpLibrary({ send: (request) => send(request, limit) });
}

function send(request: RequestContext, limit: number): Promise<ResponseContext> {
  const url = new URL(request.getUrl());
  const transport = url.protocol === 'https:' ? https : http;
  const agent = request.getAgent();
  const signal = request.getSignal();
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: request.getHttpMethod(),
        headers: request.getHeaders(),
        ...(agent === undefined ? {} : { agent }),
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        const tooLarge = () => {
          reject(new AnswerTooLarge(limit));
          req.destroy();
        };
        if (Number(res.headers['content-length']) > limit) return tooLarge();
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) tooLarge();
          else chunks.push(chunk);
        });
        res.on('end', () => resolve(answer(res, Buffer.concat(chunks))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const body = request.getBody();
    req.end(typeof body === 'string' ? body : undefined);
  });
}

function answer(res: http.IncomingMessage, bytes: Buffer): ResponseContext {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const body: ResponseBody = { text: async () => bytes.toString('utf8'), binary: async () => bytes };
  return new ResponseContext(res.statusCode ?? 0, headers, body);
}
