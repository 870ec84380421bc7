// "Did you mean" for target names (docs/commands.md#unknown-targets): the few names closest to a typed one.
import { editDistance } from './suggest.js';

/** At most so many names are compared, however many a namespace holds: the hint's work stays bounded. */
export const MAX_COMPARED = 2_000;

/**
 * Up to `max` of `names` close to `typed`, closest first (ties by name): within a third of its length in edits (at
 * least 2, at most 3), or containing it / contained in it when both have 3 letters or more. Only the first
 * `MAX_COMPARED` names are looked at.
 */
export function closeNames(typed: string, names: readonly string[], max = 3): string[] {
  const word = typed.toLowerCase();
  const limit = Math.min(3, Math.max(2, Math.floor(word.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const name of names.slice(0, MAX_COMPARED)) {
    if (name === word) continue;
    const d = editDistance(word, name, limit);
    const within = word.length >= 3 && name.length >= 3 && (name.includes(word) || word.includes(name));
    if (d <= limit) scored.push({ name, score: d });
    else if (within) scored.push({ name, score: limit + 1 });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}
