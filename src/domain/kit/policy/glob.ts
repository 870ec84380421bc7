// Namespace and cluster patterns of the policy: exact names or globs where `*` stands for any run of characters.
import { isClusterName } from '../../model/target.js';

const GLOB_CHARS = /^[a-z0-9*-]+$/;

export function isGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/** Why `pattern` cannot name namespaces (lowercase letters, digits, "-" and "*", at most 63), or undefined. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'must not be empty';
  if (pattern.length > 63) return `"${pattern}" is ${pattern.length} characters long; namespaces have at most 63`;
  if (!GLOB_CHARS.test(pattern)) {
    return `"${pattern}" is not a namespace or glob: lowercase letters, digits, "-" and "*" (e.g. "prod-*")`;
  }
  return undefined;
}

/** Why `name` is not a cluster name (a DNS-1123 label: lowercase letters, digits and "-", at most 63), or undefined. */
export function clusterNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (isGlob(name)) return `"${name}" is a glob; name one exact cluster`;
  if (name.length > 63) return `"${name}" is ${name.length} characters long; cluster names have at most 63`;
  if (!isClusterName(name)) {
    return `"${name}" is not a cluster name: lowercase letters, digits and "-", starting and ending with a letter or digit`;
  }
  return undefined;
}

/** Why `pattern` cannot name clusters: an exact cluster name or a glob of the same characters, or undefined. */
export function clusterPatternProblem(pattern: string): string | undefined {
  if (!isGlob(pattern)) return clusterNameProblem(pattern);
  if (pattern.length > 63) return `"${pattern}" is ${pattern.length} characters long; cluster names have at most 63`;
  if (!GLOB_CHARS.test(pattern)) {
    return `"${pattern}" is not a cluster name or glob: lowercase letters, digits, "-" and "*" (e.g. "prod-*")`;
  }
  return undefined;
}

/**
 * Whether `name` matches `pattern`, where `*` stands for any run of characters (docs/policy.md#glob-matching). No
 * regular expression: the pattern is cut at its stars, the first piece must start the name, the last must end it, and
 * each piece between is found leftmost after the one before. Taking the leftmost place is always safe (a later
 * piece only gains room), so nothing is retried: O(n·m) for a name of n and a pattern of m characters, whatever
 * the number of stars.
 */
export function matchesGlob(pattern: string, name: string): boolean {
  if (!isGlob(pattern)) return pattern === name;
  const pieces = pattern.split('*');
  const first = pieces[0] ?? '';
  const last = pieces[pieces.length - 1] ?? '';
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let from = first.length;
  const end = name.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = name.indexOf(piece, from);
    if (found < 0 || found + piece.length > end) return false;
    from = found + piece.length;
  }
  return true;
}

export function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => matchesGlob(p, name));
}

/**
 * Whether a `clusters` filter admits `cluster`. No filter admits every cluster, and so does an undefined
 * cluster: a single-cluster installation leaves targets without one (serve-time validation guarantees that
 * every cluster the policy names is that one).
 */
export function clustersMatch(patterns: readonly string[] | undefined, cluster: string | undefined): boolean {
  return patterns === undefined || cluster === undefined || matchesAny(patterns, cluster);
}

/** Whether two `clusters` filters admit a common cluster (no filter = every cluster). */
export function clusterFiltersOverlap(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return true;
  return a.some((p) => b.some((q) => globsOverlap(p, q)));
}

/**
 * Whether some namespace matches both patterns. Used to tell a rule that can never apply (its namespaces
 * overlap no managed namespace) from one that merely uses a narrower glob.
 */
export function globsOverlap(a: string, b: string): boolean {
  const memo = new Map<number, boolean>();
  const step = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false);
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === '*') result = step(i + 1, j) || (j < b.length && step(i, j + 1));
    else if (b[j] === '*') result = step(i, j + 1) || (i < a.length && step(i + 1, j));
    else result = i < a.length && j < b.length && a[i] === b[j] && step(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return step(0, 0);
}
