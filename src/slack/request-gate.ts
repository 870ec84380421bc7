// The door in front of Bolt's HTTP receiver (docs/deployment.md#request-limits). A POST to /slack/events is judged by
// its headers first (timestamp window, signature present, announced length), its body is then read only up to a limit,
// its signature checked over the bytes received and claimed once in Redis; only then does Bolt see it, with the body
// already read (Bolt takes a request's `rawBody` as read and verifies it again). Everything else goes to Bolt as is.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { readBoundedBody, type BodyRead } from '../http/bounded-body.js';
import type { Logger } from '../log.js';
import type { SeenRequests } from '../store/seen-signatures.js';
import {
  checkSigningHeaders,
  MAX_FUTURE_SKEW_SECONDS,
  MAX_REQUEST_AGE_SECONDS,
  signatureMatches,
  type SignedHeaders,
} from './request-signature.js';

/** Ten times the largest request Slack sends this app: a click, carrying a message or Home view within Block Kit limits. */
export const MAX_SLACK_BODY_BYTES = 1024 * 1024;
/** The whole body must arrive this soon after the headers (Slack wants the ack within 3 s anyway). */
export const SLACK_BODY_TIMEOUT_MS = 10_000;
/** A signature is remembered as long as its timestamp could still be accepted, plus a margin for replicas' clocks. */
export const SEEN_SIGNATURE_TTL_SECONDS = MAX_REQUEST_AGE_SECONDS + MAX_FUTURE_SKEW_SECONDS + 30;
/** Slack retries an Events API delivery at most three times, each carrying `X-Slack-Retry-Num`. */
const RETRY_NUM = /^[1-3]$/;

export interface RequestGateOptions {
  signingSecret: string;
  /** Bolt's endpoints (default `/slack/events`). */
  endpoints?: readonly string[];
  seen: SeenRequests;
  logger: Logger;
  /** Wall-clock ms, as Slack's timestamps are (default Date.now). */
  clock?: () => number;
  maxBodyBytes?: number;
  bodyTimeoutMs?: number;
}

type Verdict = { ok: true } | { ok: false; status: number; reason: string };

/** Wraps Bolt's request listener; requests for other paths (custom routes) reach it untouched and at once. */
export function gateSlackRequests(bolt: RequestListener, opts: RequestGateOptions): RequestListener {
  const endpoints = opts.endpoints ?? ['/slack/events'];
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method?.toUpperCase() !== 'POST' || !endpoints.includes(path)) return bolt(req, res);
    admit(req, opts).then(
      (verdict) => {
        if (verdict.ok) return bolt(req, res);
        opts.logger.warn({ status: verdict.status, reason: verdict.reason }, 'refused a request to the Slack endpoint');
        refuse(res, verdict.status, verdict.reason);
      },
      (error: unknown) => {
        opts.logger.error({ err: error }, 'could not admit a request to the Slack endpoint');
        refuse(res, 503, 'the request could not be checked; try again');
      },
    );
  };
}

/** Headers, body, signature, replay: the first that fails decides. Leaves the body on `req.rawBody` for Bolt. */
async function admit(req: IncomingMessage, opts: RequestGateOptions): Promise<Verdict> {
  const nowSeconds = Math.floor((opts.clock ?? Date.now)() / 1000);
  const headers = checkSigningHeaders(req.headers, nowSeconds);
  if (!headers.ok) return { ok: false, status: 401, reason: headers.reason };
  const read = await readBoundedBody(req, {
    maxBytes: opts.maxBodyBytes ?? MAX_SLACK_BODY_BYTES,
    timeoutMs: opts.bodyTimeoutMs ?? SLACK_BODY_TIMEOUT_MS,
  });
  if (!read.ok) return unread(read);
  if (!signatureMatches(opts.signingSecret, headers.signed, read.body))
    return { ok: false, status: 401, reason: 'the signature does not match the request' };
  if (!(await opts.seen.first(replayKey(req, headers.signed), SEEN_SIGNATURE_TTL_SECONDS)))
    return { ok: false, status: 401, reason: 'this signed request was already received (a replay)' };
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = read.body;
  return { ok: true };
}

function unread(read: Exclude<BodyRead, { ok: true }>): Verdict {
  switch (read.reason) {
    case 'too-large':
      return { ok: false, status: 413, reason: `the body is cut at ${read.limit} bytes` };
    case 'timeout':
      return { ok: false, status: 408, reason: `the body did not arrive within ${read.timeoutMs} ms` };
    case 'aborted':
      return { ok: false, status: 400, reason: 'the body ended before it was complete' };
  }
}

/**
 * The signature, and for an Events API retry (JSON, `X-Slack-Retry-Num` 1–3) that number too: Slack's retries of an
 * event are separate deliveries the app already copes with (docs/deployment.md#request-limits). Slash commands and
 * clicks (form bodies) are never retried by Slack, so their signature alone is the key.
 */
function replayKey(req: IncomingMessage, signed: SignedHeaders): string {
  const retry = req.headers['x-slack-retry-num'];
  const json = (req.headers['content-type'] ?? '').startsWith('application/json');
  return json && typeof retry === 'string' && RETRY_NUM.test(retry)
    ? `${signed.signature}:retry-${retry}`
    : signed.signature;
}

/** A short plain-text answer; the connection is closed after it, so an unread body is never drained. */
function refuse(res: ServerResponse, status: number, reason: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${reason}\n`);
}
