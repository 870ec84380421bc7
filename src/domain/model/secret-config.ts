// Which Flink configuration values are secret (docs/policy.md#secret-values): the one predicate every renderer asks
// before it shows a value of spec.flinkConfiguration, and what it shows (or, for the audit, keeps) instead.
import { sha256Hex } from './canonical.js';

/** What a person sees in place of a secret value: on cards, threads, `op`, `explain`, DMs and refusals. */
export const SECRET_SHOWN = '•••';

const FLINK_CONFIGURATION = 'spec.flinkConfiguration.';
/** Words that make a key secret wherever they stand in it (`security.ssl.keystore-password`, `auth.token`). */
const SECRET_INSIDE = ['password', 'passwd', 'secret', 'token', 'credential', 'passphrase', 'apikey'];
/** Whole words that make a key secret (`db.pwd`). */
const SECRET_WORDS = new Set(['pwd']);
/** Parts of keys Flink itself treats as sensitive (its GlobalConfiguration): headers, JAAS, auth parameters. */
const SECRET_PARTS = ['jaas.config', 'http-headers', 'auth-params', 'basic-auth', 'service-key', 'api-key', 'api_key'];

/**
 * Whether the value of configuration `key` is secret: the key names a password, secret, token, credential or API
 * key, or ends in the word `key` (`s3.secret-key`, `s3.access-key`, `fs.azure.account.key`). One linear pass
 * over the key; a non-secret key that looks like one is masked too, which costs only its display.
 */
export function isSecretConfigKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (SECRET_INSIDE.some((w) => lower.includes(w)) || SECRET_PARTS.some((p) => lower.includes(p))) return true;
  const words = lower.split(/[._-]/);
  return words[words.length - 1] === 'key' || words.some((w) => SECRET_WORDS.has(w));
}

/** The configuration key a spec path names (`spec.flinkConfiguration.s3.secret-key` → `s3.secret-key`), or undefined. */
export function configKeyOfPath(path: string): string | undefined {
  return path.startsWith(FLINK_CONFIGURATION) ? path.slice(FLINK_CONFIGURATION.length) : undefined;
}

/** Whether a spec path (dotted, from `spec.`) holds a secret configuration value. */
export function isSecretPath(path: string): boolean {
  const key = configKeyOfPath(path);
  return key !== undefined && isSecretConfigKey(key);
}

/** A value at `path` as it may be shown: a secret one (set) becomes {@link SECRET_SHOWN}; unset stays unset. */
export function shownAt(path: string, value: unknown): unknown {
  return value !== undefined && value !== null && isSecretPath(path) ? SECRET_SHOWN : value;
}

/** A configuration value as it may be shown. */
export function shownConfigValue(key: string, value: string): string {
  return isSecretConfigKey(key) ? SECRET_SHOWN : value;
}

/** What the audit keeps of a secret value: `sha256:<hex>` of it as written (text as is, anything else as JSON). */
export function secretDigest(value: unknown): string {
  return `sha256:${sha256Hex(typeof value === 'string' ? value : JSON.stringify(value))}`;
}

/** A value at `path` as the audit keeps it: a secret one (set) as its {@link secretDigest}. */
export function auditedAt(path: string, value: unknown): unknown {
  return value !== undefined && value !== null && isSecretPath(path) ? secretDigest(value) : value;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy of a merge patch or resource (from its root: `spec.flinkConfiguration…`) with every secret configuration
 * value replaced by `replace(path, value)`: what a renderer or the audit may keep of it.
 */
export function withSecretsReplaced(
  value: unknown,
  replace: (path: string, value: unknown) => unknown,
  at: string[] = [],
): unknown {
  if (!isRecord(value)) {
    const path = at.join('.');
    return at.length > 2 ? replace(path, value) : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const path = [...at, key];
    const under = path.length < 2 || (path[0] === 'spec' && path[1] === 'flinkConfiguration');
    out[key] = under ? withSecretsReplaced(inner, replace, path) : inner;
  }
  return out;
}
