// "Did you mean" for policy files: the candidate a misspelt word most likely meant.

/**
 * The candidate a typo most likely meant, for "did you mean" hints: same word in another case, one
 * containing the other ("requester" → "requesters", "friday" → "fri"), or a few edits away (a swap of
 * two letters counts as one). Words of one or two letters get no guess.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (w.length < 3) return undefined;
  const lower = candidates.map((c) => c.toLowerCase());
  const exact = lower.indexOf(w);
  if (exact >= 0) return candidates[exact];
  const containing = candidates.filter((c, i) => {
    const l = lower[i] as string;
    return l.length >= 3 && (l.includes(w) || w.includes(l));
  });
  if (containing.length > 0)
    return containing.sort((a, b) => Math.abs(a.length - w.length) - Math.abs(b.length - w.length))[0];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(w.length / 3)) + 1;
  candidates.forEach((c, i) => {
    const d = editDistance(w, lower[i] as string);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  });
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
