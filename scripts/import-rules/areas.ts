// Areas of a checked root: which area a module belongs to, what an area may import, and that rule in words.

/**
 * An area's rule. `may`: areas it imports freely (its own area always). `types`: areas it may name with
 * `import type`/`export type` only. `packages`: when set, the only bare specifiers it may use (otherwise any).
 * `pure`: no clock, randomness, process or global I/O.
 */
export interface AreaRule {
  may: readonly string[];
  types?: readonly string[];
  packages?: readonly string[];
  pure?: boolean;
}

/** Areas by name: a folder or a file under the root, named without its extension, `/`-separated. */
export type Layers = Readonly<Record<string, AreaRule>>;

/** The one area of a root with no inner layering (packages/sim/src): it holds every module of the root. */
export const WHOLE_ROOT = '*';

/** The area of a module (path relative to the root, `/`-separated): the longest key that contains it. */
export function areaIn(layers: Layers, path: string): string | undefined {
  const bare = path.replace(/\.(c|m)?(t|j)s$/, '');
  const found = Object.keys(layers)
    .filter((area) => bare === area || bare.startsWith(`${area}/`))
    .sort((a, b) => b.length - a.length)[0];
  return found ?? (WHOLE_ROOT in layers ? WHOLE_ROOT : undefined);
}

/** The rule of an area in words, for messages. */
export function describeRule(layers: Layers, area: string): string {
  const rule = layers[area] as AreaRule;
  const name = area === WHOLE_ROOT ? 'this root' : area;
  const parts = [`${name} may import ${[...new Set([name, ...rule.may])].join(', ')}`];
  if (rule.types) parts.push(`types only from ${rule.types.join(', ')}`);
  if (rule.packages) parts.push(`and of packages only ${rule.packages.join(', ')}`);
  return parts.join('; ');
}

/** Why an import of `kind` from `area` into `targetArea` breaks the table, or undefined when it is allowed. */
export function layerProblem(layers: Layers, area: string, kind: string, targetArea: string): string | undefined {
  const rule = layers[area] as AreaRule;
  if (targetArea === area || rule.may.includes(targetArea)) return undefined;
  if (rule.types?.includes(targetArea)) return kind === 'type' ? undefined : 'must be `import type`';
  return `reaches ${targetArea}`;
}
