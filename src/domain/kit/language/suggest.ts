// Nearest-word suggestions for typos in verbs, flags and enum values ("sacle" → "scale").

/** Words longer than this are not typos of a command word; skipping them keeps 10 kB inputs cheap. */
const MAX_WORD = 40;

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so "sacle" is one edit from
 * "scale"), giving up early with `limit + 1` once every cell in a row exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.MAX_SAFE_INTEGER): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (prevPrev[j - 2] as number) + 1);
      }
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length] as number;
}

/**
 * The candidate `word` most probably meant, or undefined when nothing is close enough to be worth saying.
 * Order of evidence: an exact hint (a synonym such as "stop" → "suspend"), a unique prefix of at least three
 * letters, then the smallest edit distance within a third of the word's length (at least 1); ties go to the
 * earlier candidate, so callers list candidates in the order they want preferred.
 */
export function nearest(
  word: string,
  candidates: readonly string[],
  hints: Readonly<Record<string, string>> = {},
): string | undefined {
  const w = word.toLowerCase();
  if (w.length === 0 || w.length > MAX_WORD) return undefined;
  if (candidates.includes(w)) return w;
  const hinted = Object.hasOwn(hints, w) ? hints[w] : undefined;
  if (hinted !== undefined) return hinted;
  if (w.length >= 3) {
    const prefixed = candidates.filter((c) => c.startsWith(w));
    if (prefixed.length === 1) return prefixed[0];
  }
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(w, c, limit);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
