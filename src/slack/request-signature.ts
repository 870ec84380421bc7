// Slack's request signing (docs/deployment.md#request-limits): the timestamp judged from the headers alone, before
// any of the body is read, then the `v0=` HMAC-SHA256 of `v0:<timestamp>:<body>` over the exact bytes received.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Slack's own window: a request signed longer ago than this is refused. */
export const MAX_REQUEST_AGE_SECONDS = 300;
/** A timestamp this far ahead of our clock is refused (clocks drift; Slack never signs for later). */
export const MAX_FUTURE_SKEW_SECONDS = 60;

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^v0=[0-9a-f]{64}$/;

export interface SignedHeaders {
  timestamp: number;
  /** `v0=<64 hex>`, as sent. */
  signature: string;
}

export type HeaderCheck = { ok: true; signed: SignedHeaders } | { ok: false; reason: string };

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The signing headers, judged against `nowSeconds` without reading the body. */
export function checkSigningHeaders(headers: IncomingHttpHeaders, nowSeconds: number): HeaderCheck {
  const ts = single(headers, 'x-slack-request-timestamp');
  if (ts === undefined || !TIMESTAMP.test(ts))
    return { ok: false, reason: 'missing or malformed X-Slack-Request-Timestamp' };
  const timestamp = Number(ts);
  if (nowSeconds - timestamp > MAX_REQUEST_AGE_SECONDS)
    return { ok: false, reason: `X-Slack-Request-Timestamp is more than ${MAX_REQUEST_AGE_SECONDS} s old` };
  if (timestamp - nowSeconds > MAX_FUTURE_SKEW_SECONDS)
    return { ok: false, reason: `X-Slack-Request-Timestamp is more than ${MAX_FUTURE_SKEW_SECONDS} s in the future` };
  const signature = single(headers, 'x-slack-signature');
  if (signature === undefined || !SIGNATURE.test(signature))
    return { ok: false, reason: 'missing or malformed X-Slack-Signature' };
  return { ok: true, signed: { timestamp, signature } };
}

/** true when `signature` is the signing secret's HMAC of this timestamp and these exact body bytes. */
export function signatureMatches(secret: string, signed: SignedHeaders, body: Buffer): boolean {
  const expected = createHmac('sha256', secret).update(`v0:${signed.timestamp}:`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(signed.signature.slice(3), 'hex'));
}
