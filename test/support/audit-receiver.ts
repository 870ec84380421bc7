// A real HTTP receiver for the audit webhook (docs/audit.md#the-webhook) on 127.0.0.1:0: records every request, checks
// its signature as a receiver must (HMAC-SHA256 of the raw body, compared in constant time), and answers what
// `answer` says (default 200), after it resolves.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuditEvent } from '../../src/domain/kit/audit/event.js';

export interface Received {
  id: string | undefined;
  signature: string | undefined;
  contentType: string | undefined;
  body: string;
  seq: number;
  /** Whether the signature is the body's HMAC with the receiver's secret. */
  genuine: boolean;
  /** Date.now() when it arrived. */
  atMs: number;
}

export interface AuditReceiver {
  url: string;
  received: Received[];
  /** Requests whose answer has not been sent yet. */
  readonly inFlight: number;
  close(): Promise<void>;
}

export function signatureIsGenuine(secret: string, body: Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startAuditReceiver(
  secret: string,
  answer: (request: number) => number | Promise<number> = () => 200,
): Promise<AuditReceiver> {
  const received: Received[] = [];
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = req.headers['x-flink-chatops-signature'] as string | undefined;
      const body = raw.toString('utf8');
      received.push({
        id: req.headers['x-flink-chatops-event-id'] as string | undefined,
        signature,
        contentType: req.headers['content-type'],
        body,
        seq: (JSON.parse(body) as AuditEvent).seq,
        genuine: signatureIsGenuine(secret, raw, signature),
        atMs: Date.now(),
      });
      inFlight += 1;
      void Promise.resolve(answer(received.length)).then((status) => {
        inFlight -= 1;
        res.statusCode = status;
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/audit`;
  return {
    url,
    received,
    get inFlight() {
      return inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
