// A regular expression that repeats a repetition — `(a+)+`, `(\w*\s?)*`, `(?:x{2,})+` — can take time exponential
// in the line's length when a line almost matches (docs/policy.md#logs). Such `logs.redact` patterns are refused:
// one scan over the pattern's text, tracking groups, without compiling or running it.

/** A quantifier starting at `at` that allows more than one repetition: `*`, `+`, `{n,}`, `{n,m}` with m > 1. */
function repeatsAt(pattern: string, at: number): boolean {
  const c = pattern[at];
  if (c === '*' || c === '+') return true;
  if (c !== '{') return false;
  const m = /^\{(\d+)(,(\d*))?\}/u.exec(pattern.slice(at, at + 24));
  if (m === null) return false;
  if (m[2] === undefined) return Number(m[1]) > 1;
  return m[3] === '' || Number(m[3]) > 1;
}

/** The index of the first repeated group whose content itself repeats, or undefined. */
export function nestedRepetitionAt(pattern: string): number | undefined {
  const open: { start: number; repeats: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\')
      i++; // an escaped character is a literal; a quantifier after it is seen next
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') open.push({ start: i, repeats: false });
    else if (c === ')') {
      const group = open.pop();
      if (group === undefined) continue;
      const repeated = repeatsAt(pattern, i + 1);
      if (repeated && group.repeats) return group.start;
      const outer = open.at(-1);
      if (outer !== undefined && (group.repeats || repeated)) outer.repeats = true;
    } else if (repeatsAt(pattern, i)) {
      const inner = open.at(-1);
      if (inner !== undefined) inner.repeats = true;
    }
  }
  return undefined;
}
