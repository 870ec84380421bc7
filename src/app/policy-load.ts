// Reading a policy file: bytes → sha256, YAML → value (syntax errors with line and column) → validated Policy.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { Policy } from '../domain/engines/policy/schema.js';
import { validatePolicy, type ValidationOptions } from '../domain/engines/policy/validate.js';

/** `clusters`: the installation's cluster names; when given, cluster names in the policy are checked against them. */
export type PolicyLoadOptions = ValidationOptions;

export type PolicyParseResult =
  | { ok: true; policy: Policy; warnings: string[] }
  /** `yaml`: not YAML at all (each line has the line and column); `invalid`: one path-named line per problem. */
  | { ok: false; problem: 'yaml' | 'invalid'; errors: string[]; warnings: string[] };

export type PolicyLoadResult =
  | { ok: true; policy: Policy; /** sha256 hex of the file bytes */ hash: string; warnings: string[] }
  /** No file at that path: every mutating command is then refused, saying so (docs/configuration.md#configuration). */
  | { ok: false; problem: 'missing'; errors: string[] }
  /** The path exists but cannot be read (a directory, no permission). */
  | { ok: false; problem: 'unreadable'; errors: string[] }
  | { ok: false; problem: 'yaml' | 'invalid'; errors: string[]; warnings: string[]; /** as for ok */ hash?: string };

/** "YAML syntax error at line 3, column 5: Map keys must be unique". */
function yamlErrorLine(error: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): string {
  const first = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  const pos = error.linePos?.[0];
  return `YAML syntax error${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${first}`;
}

/** Parses and validates policy text; every problem comes back as a line, never as an exception. */
export function parsePolicyText(text: string, options: PolicyLoadOptions = {}): PolicyParseResult {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) return { ok: false, problem: 'yaml', errors: doc.errors.map(yamlErrorLine), warnings: [] };
  if (doc.contents === null) {
    return {
      ok: false,
      problem: 'invalid',
      errors: ['the file is empty; a policy starts with "version: 1"'],
      warnings: [],
    };
  }
  let value: unknown;
  try {
    // Bounded alias expansion: a hostile file cannot blow up memory ("billion laughs").
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    return {
      ok: false,
      problem: 'yaml',
      errors: [`YAML error: ${error instanceof Error ? error.message : String(error)}`],
      warnings: [],
    };
  }
  const result = validatePolicy(value, options);
  return result.ok ? result : { ok: false, problem: 'invalid', errors: result.errors, warnings: result.warnings };
}

/** The largest policy file read (docs/policy.md#changing-the-policy): a real one is a few kilobytes. */
export const MAX_POLICY_BYTES = 1024 * 1024;

/** At most `limit` bytes of the file: a file that gives more is too large, however big it is. */
async function readAtMost(path: string, limit: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const { bytesRead } = await file.read(buffer, filled, limit - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await file.close();
  }
}

export async function loadPolicyFile(path: string, options: PolicyLoadOptions = {}): Promise<PolicyLoadResult> {
  let bytes: Buffer;
  try {
    bytes = await readAtMost(path, MAX_POLICY_BYTES + 1);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, problem: 'missing', errors: [`${path}: no such file`] };
    const detail = code === 'EISDIR' ? 'is a directory, not a file' : `cannot be read (${code ?? String(error)})`;
    return { ok: false, problem: 'unreadable', errors: [`${path}: ${detail}`] };
  }
  if (bytes.length > MAX_POLICY_BYTES) {
    const errors = [`${path}: the file is larger than ${MAX_POLICY_BYTES / 1024 / 1024} MiB, the most a policy may be`];
    return { ok: false, problem: 'invalid', errors, warnings: [] };
  }
  const parsed = parsePolicyText(bytes.toString('utf8'), options);
  const hash = createHash('sha256').update(bytes).digest('hex');
  if (!parsed.ok) return { ...parsed, hash };
  return {
    ok: true,
    policy: parsed.policy,
    hash,
    warnings: parsed.warnings,
  };
}
