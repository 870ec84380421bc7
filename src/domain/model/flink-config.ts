// Reading Flink configuration keys from a resource's spec.flinkConfiguration (flat, nested, job over session cluster).

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a value was found: on the target itself or on the session cluster a session job runs in. */
export type ConfigSource = 'resource' | 'session cluster';

export interface ConfigValue {
  /** The value as a string (Flink reads every value as text; YAML numbers and booleans are stringified). */
  value: string;
  /** The key (or alias) that held it, as written in Flink's flat form. */
  key: string;
  source: ConfigSource;
}

/** A value as the operator's flattening reads it: text, numbers and booleans as text, a list `;`-joined. */
function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.length > 0) {
    const items = v.map((item) => (item === null ? 'null' : typeof item === 'object' ? '' : String(item)));
    return items.join(';');
  }
  return undefined;
}

/**
 * The leading keys a nested spelling of `key` may start with, in the order the operator lets them win
 * (docs/lifecycle.md#config-spellings): it flattens the map as the API server serialises it, keys sorted, and the
 * last spelling written wins, so after the flat one, the longest leading key (`"a.b": {c}` over `a: {b: {c}}`).
 */
function leadingKeys(key: string): { head: string; rest: string }[] {
  const parts = key.split('.');
  const out: { head: string; rest: string }[] = [];
  for (let i = parts.length - 1; i >= 1; i--)
    out.push({ head: parts.slice(0, i).join('.'), rest: parts.slice(i).join('.') });
  return out;
}

/**
 * The value of `key` in one `flinkConfiguration` map, as the operator reads it. Since operator 1.13 the map may be
 * nested YAML, flattened with any mix of the two, so `a.b.c` is found as `"a.b.c"`, `a: {b: {c}}` or `"a.b": {c}`;
 * with several, the one the operator's flattening keeps (flat, then the longest leading key).
 */
export function configValue(configuration: unknown, key: string): string | undefined {
  if (!isRecord(configuration)) return undefined;
  if (Object.hasOwn(configuration, key)) {
    const flat = scalar(configuration[key]);
    if (flat !== undefined) return flat;
  }
  for (const { head, rest } of leadingKeys(key)) {
    const inner = configuration[head];
    if (Object.hasOwn(configuration, head) && isRecord(inner)) {
      const found = configValue(inner, rest);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function flinkConfigurationOf(resource: unknown): unknown {
  return isRecord(resource) && isRecord(resource.spec) ? resource.spec.flinkConfiguration : undefined;
}

/**
 * Looks a key up (with its aliases, in order of preference) on the resource and then, for a session
 * job, on its session cluster: the job's configuration is layered over the cluster's.
 */
export function readFlinkConfig(
  resource: unknown,
  keys: string | readonly string[],
  sessionCluster?: unknown,
): ConfigValue | undefined {
  const names = typeof keys === 'string' ? [keys] : keys;
  const layers: [ConfigSource, unknown][] = [['resource', flinkConfigurationOf(resource)]];
  if (sessionCluster !== undefined) layers.push(['session cluster', flinkConfigurationOf(sessionCluster)]);
  for (const [source, configuration] of layers) {
    for (const key of names) {
      const value = configValue(configuration, key);
      if (value !== undefined) return { value, key, source };
    }
  }
  return undefined;
}

/**
 * Every place inside one `flinkConfiguration` map that holds a scalar for `key`, as path segments, the one in
 * effect first: the flat spelling (`["a.b.c"]`), then nested ones by longest leading key (`["a.b", "c"]`, then
 * `["a", "b", "c"]`). Empty when unset.
 */
export function configLocations(configuration: unknown, key: string): string[][] {
  if (!isRecord(configuration)) return [];
  const found: string[][] = [];
  if (Object.hasOwn(configuration, key) && scalar(configuration[key]) !== undefined) found.push([key]);
  for (const { head, rest } of leadingKeys(key)) {
    const inner = configuration[head];
    if (!Object.hasOwn(configuration, head) || !isRecord(inner)) continue;
    for (const path of configLocations(inner, rest)) found.push([head, ...path]);
  }
  return found;
}

/** Where Flink reads its high-availability mode (the newer key first). */
export const HA_KEYS = ['high-availability.type', 'high-availability'] as const;

/** High availability is configured (a mode other than NONE): the job's state survives its JobManager. */
export function haConfigured(resource: unknown, sessionCluster?: unknown): boolean {
  const value = readFlinkConfig(resource, HA_KEYS, sessionCluster)?.value.trim().toUpperCase();
  return value !== undefined && value !== '' && value !== 'NONE';
}
