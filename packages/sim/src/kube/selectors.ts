// Label and field selectors: parsing with kube-apiserver's grammar and messages, and matching against objects.
import type { KubeObject } from './store.js';

export type LabelRequirement =
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'gt' | 'lt'; key: string; value: number };

export type FieldRequirement = { field: string; op: 'eq' | 'neq'; value: string };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function keyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    return `invalid label key "${key}": prefix part must be a DNS-1123 subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

function valueProblem(value: string): string | undefined {
  if (value.length > 63 || !NAME.test(value)) {
    return `invalid label value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

const SET_FORM = /^([^\s!=<>()]+)\s+(in|notin)\s*\((.*)\)$/;
const EQUALITY_FORM = /^([^\s!=<>()]+)\s*(==|!=|=|>|<)\s*(.*)$/;

function parseRequirement(raw: string): Parsed<LabelRequirement> {
  const text = raw.trim();
  if (text === '') return { ok: false, message: "unable to parse requirement: found '', expected: identifier" };
  const set = SET_FORM.exec(text);
  if (set) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    const problem = keyProblem(key) ?? values.map(valueProblem).find((p) => p !== undefined);
    if (problem) return { ok: false, message: `unable to parse requirement: ${problem}` };
    return { ok: true, value: { op: op === 'in' ? 'in' : 'notin', key, values } };
  }
  const eq = EQUALITY_FORM.exec(text);
  if (eq) {
    const [, key = '', op, value = ''] = eq;
    const problem = keyProblem(key);
    if (problem) return { ok: false, message: `unable to parse requirement: ${problem}` };
    if (op === '>' || op === '<') {
      if (!/^-?\d+$/.test(value.trim())) {
        return {
          ok: false,
          message: `unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer: "${value}"`,
        };
      }
      return { ok: true, value: { op: op === '>' ? 'gt' : 'lt', key, value: Number(value) } };
    }
    const vp = valueProblem(value.trim());
    if (vp) return { ok: false, message: `unable to parse requirement: ${vp}` };
    return { ok: true, value: { op: op === '!=' ? 'notin' : 'in', key, values: [value.trim()] } };
  }
  const negated = text.startsWith('!');
  const key = (negated ? text.slice(1) : text).trim();
  const problem = keyProblem(key);
  if (problem) return { ok: false, message: `unable to parse requirement: ${problem} (in "${text}")` };
  return { ok: true, value: { op: negated ? 'notexists' : 'exists', key } };
}

export function parseLabelSelector(selector: string): Parsed<LabelRequirement[]> {
  if (selector.trim() === '') return { ok: true, value: [] };
  const out: LabelRequirement[] = [];
  for (const part of splitTopLevel(selector)) {
    const parsed = parseRequirement(part);
    if (!parsed.ok) return parsed;
    out.push(parsed.value);
  }
  return { ok: true, value: out };
}

export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string> | undefined,
): boolean {
  return requirements.every((r) => {
    const value = labels?.[r.key];
    switch (r.op) {
      case 'exists':
        return value !== undefined;
      case 'notexists':
        return value === undefined;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
      case 'gt':
        return value !== undefined && /^-?\d+$/.test(value) && Number(value) > r.value;
      case 'lt':
        return value !== undefined && /^-?\d+$/.test(value) && Number(value) < r.value;
    }
  });
}

/** Splits on unescaped `sep`, keeping escapes for the next step. */
function splitEscaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] as string);
      i += 1;
    } else if (ch === sep) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

const unescape = (s: string): string => s.replace(/\\(.)/g, '$1');

/**
 * Parses `a=b,c!=d` against the fields this resource supports. Unknown fields are refused with the
 * message kube-apiserver gives for custom resources or core types.
 */
export function parseFieldSelector(
  selector: string,
  supported: readonly string[],
  core: boolean,
): Parsed<FieldRequirement[]> {
  if (selector.trim() === '') return { ok: true, value: [] };
  const out: FieldRequirement[] = [];
  for (const part of splitEscaped(selector, ',')) {
    const m = /^((?:\\.|[^!=\\])+?)\s*(==|!=|=)(.*)$/.exec(part.trim());
    if (!m) return { ok: false, message: `invalid selector: '${selector}'; can't understand '${part}'` };
    const [, rawField = '', op, rawValue = ''] = m;
    const field = unescape(rawField.trim());
    if (!supported.includes(field)) {
      const message = core
        ? `field label not supported: ${field}`
        : `"${field}" is not a known field selector: only ${supported.map((s) => `"${s}"`).join(', ')}`;
      return { ok: false, message };
    }
    out.push({ field, op: op === '!=' ? 'neq' : 'eq', value: unescape(rawValue) });
  }
  return { ok: true, value: out };
}

function fieldValue(object: KubeObject, field: string): string {
  if (field === 'source') {
    const source = object.source as { component?: unknown } | undefined;
    return typeof source?.component === 'string' ? source.component : '';
  }
  let current: unknown = object;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object') return '';
    current = (current as Record<string, unknown>)[part];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'string' ? current : JSON.stringify(current);
}

export function matchesFields(requirements: readonly FieldRequirement[], object: KubeObject): boolean {
  return requirements.every((r) => (fieldValue(object, r.field) === r.value) === (r.op === 'eq'));
}

/** Storage key order (namespace, then name, bytewise), the order kube-apiserver lists in. */
export function byKey(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata.namespace}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
