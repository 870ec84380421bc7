// Checkpoint and savepoint pointers in the form Flink reports them (docs/deep-verification.md): one place that
// normalises a path and compares two of them, so a restore typed one way and reported another still matches.

interface Pointer {
  scheme: string | undefined;
  /** Empty when the pointer names no authority (`hdfs:///p`, `file:/x`). */
  authority: string;
  path: string;
}

function parse(raw: string): Pointer {
  const text = raw.trim();
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(text);
  let scheme: string | undefined;
  let authority = '';
  let rest = text;
  if (match) {
    scheme = (match[1] as string).toLowerCase();
    rest = match[2] as string;
    if (rest.startsWith('//')) {
      const end = rest.indexOf('/', 2);
      authority = end === -1 ? rest.slice(2) : rest.slice(2, end);
      rest = end === -1 ? '/' : rest.slice(end);
    }
  }
  // Flink collapses repeated slashes, drops a trailing one, and reports a `_metadata` file as its directory.
  let path = rest.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  if (path.endsWith('/_metadata')) path = path.slice(0, -'/_metadata'.length) || '/';
  if (scheme === 'file') authority = '';
  return { scheme, authority, path };
}

function format(p: Pointer): string {
  if (p.scheme === undefined) return p.path;
  return p.authority === '' ? `${p.scheme}:${p.path}` : `${p.scheme}://${p.authority}${p.path}`;
}

/** `file:///x/_metadata` → `file:/x`; `hdfs://nn:8020/p/` → `hdfs://nn:8020/p`. */
export function normalisePointer(raw: string): string {
  return format(parse(raw));
}

export type PointerMatch = { match: false } | { match: true; exact: boolean };

/**
 * Whether `actual` (as Flink reports it) names `expected` (as typed or as the operator recorded it). A pointer
 * without an authority matches the same path under any authority of its scheme (Flink qualifies it with the
 * file system's default one). `exact`: the strings were equal before normalising.
 */
export function pointersMatch(expected: string, actual: string): PointerMatch {
  if (expected === actual) return { match: true, exact: true };
  const a = parse(expected);
  const b = parse(actual);
  if (a.scheme !== b.scheme || a.path !== b.path) return { match: false };
  const authorities = a.authority === b.authority || a.authority === '' || b.authority === '';
  return authorities ? { match: true, exact: false } : { match: false };
}

/** Whether a checkpoint path belongs to the job (Flink writes checkpoints under `<dir>/<job id>/chk-<n>`). */
export function pointerOfJob(path: string, jobId: string): boolean {
  return parse(path).path.split('/').includes(jobId);
}
