// Where `restore --from` may read state (docs/policy.md#restore-sources): under the target's own savepoint and
// checkpoint directories, one of its own savepoints, or a prefix the policy's `restore.allowedFrom` names. Matching
// is by whole path segments, one pass over each (linear), and a path with `.` or `..` segments is never admitted.
import { z } from 'zod';

/** At most this many `allowedFrom` entries, each at most this long: the policy file stays small. */
const MAX_PREFIXES = 50;
const MAX_PREFIX = 512;

/** `scheme://authority/seg/seg…` split into lowercase scheme, authority and segments (empty ones dropped). */
interface SplitUri {
  scheme: string;
  authority: string;
  segments: string[];
}

const URI = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)$/;

function split(uri: string): SplitUri | undefined {
  const match = URI.exec(uri.trim());
  if (match === null) return undefined;
  const [, scheme = '', authority = '', path = ''] = match;
  return { scheme: scheme.toLowerCase(), authority, segments: path.split('/').filter((s) => s !== '') };
}

/** A `.` or `..` segment, also percent-encoded (`%2e%2E`), or a backslash that some file systems read as `/`. */
function dotted(segment: string): boolean {
  const plain = segment.replace(/%2e/gi, '.');
  return plain === '.' || plain === '..' || segment.includes('\\');
}

/**
 * `uri` lies at or under `prefix`, segment by segment: `s3://b/sp` admits `s3://b/sp/x`, never `s3://b/sp-other`. A
 * `*` segment in `prefix` (policy entries only) stands for exactly one segment.
 */
export function under(uri: string, prefix: string, wildcard = false): boolean {
  const u = split(uri);
  const p = split(prefix);
  if (u === undefined || p === undefined) return false;
  if (u.scheme !== p.scheme || u.authority !== p.authority || p.segments.length > u.segments.length) return false;
  return p.segments.every((s, i) => (wildcard && s === '*') || s === u.segments[i]);
}

export interface RestoreSources {
  /** The target's savepoint and checkpoint directories (flinkConfiguration, its session cluster's included). */
  directories: readonly string[];
  /** Its own savepoints: FlinkStateSnapshots of the target and the status history. */
  savepoints: readonly string[];
  /** Policy `restore.allowedFrom`. */
  allowedFrom: readonly string[];
}

/** Why `from` may not be restored from (undefined: it may). */
export function restoreSourceProblem(from: string, sources: RestoreSources): string | undefined {
  const parts = split(from);
  if (parts === undefined) return `--from ${JSON.stringify(from)} is not a URI with a scheme`;
  if (parts.segments.some(dotted)) return `--from may not contain "." or ".." path segments`;
  if (sources.savepoints.some((s) => under(from, s))) return undefined;
  if (sources.directories.some((d) => under(from, d))) return undefined;
  if (sources.allowedFrom.some((p) => under(from, p, true))) return undefined;
  const own =
    sources.directories.length === 0
      ? 'it has no savepoint or checkpoint directory set'
      : `its directories are ${sources.directories.join(', ')}`;
  return `--from ${from} is not one of the target's own savepoints or under its own state directories (${own}), nor under a prefix the policy's restore.allowedFrom names`;
}

const Prefix = z
  .string()
  .max(MAX_PREFIX)
  .superRefine((value, ctx) => {
    const parts = split(value);
    if (parts === undefined || (parts.authority === '' && parts.scheme !== 'file')) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(value)} is not a URI prefix like "s3://bucket/savepoints"`,
      });
    } else if (parts.segments.some(dotted)) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} may not contain "." or ".." segments` });
    }
  });

/** Policy `restore` (docs/policy.md#restore-sources). */
export const RestoreSchema = z.strictObject({
  allowedFrom: z.array(Prefix).max(MAX_PREFIXES).default([]),
});
export type RestorePolicy = z.infer<typeof RestoreSchema>;
