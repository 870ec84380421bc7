// Web API request arguments: form or JSON bodies, query parameters, the token, and typed reads of each field.

export type Args = Record<string, unknown>;

/** Fields the WebClient JSON-encodes inside form bodies. */
const JSON_FIELDS = ['blocks', 'attachments', 'metadata', 'view'];

export type ParsedArgs = { ok: true; args: Args; token: string | undefined } | { ok: false; error: string };

export function parseArgs(
  raw: string,
  contentType: string | undefined,
  query: URLSearchParams,
  authorization: string | undefined,
): ParsedArgs {
  const args: Args = Object.fromEntries(query);
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (raw.length > 0) {
    if (type === 'application/json') {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return { ok: false, error: 'invalid_json' };
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: 'invalid_json' };
      Object.assign(args, body);
    } else if (type === 'application/x-www-form-urlencoded' || type === '') {
      Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
    } else {
      return { ok: false, error: 'invalid_form_data' };
    }
  }
  for (const field of JSON_FIELDS) {
    const value = args[field];
    if (typeof value !== 'string') continue;
    // An unparseable value stays a string so the method can answer its own *_format error.
    try {
      args[field] = JSON.parse(value);
    } catch {
      /* kept as given */
    }
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  const bodyToken = typeof args.token === 'string' && args.token !== '' ? args.token : undefined;
  delete args.token;
  return { ok: true, args, token: bearer ?? bodyToken };
}

export function str(args: Args, key: string): string | undefined {
  const v = args[key];
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

export function bool(args: Args, key: string): boolean {
  const v = args[key];
  return v === true || v === 1 || v === 'true' || v === '1';
}

export function int(args: Args, key: string): number | undefined {
  const v = args[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
  return Number.isInteger(n) ? n : undefined;
}
