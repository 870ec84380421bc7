// The manager an HTTP write is attributed to: `fieldManager`, else the User-Agent's program name, checked as
// kube-apiserver checks them (docs/sandbox.md#managed-fields).
import { ApiError } from './store.js';

/** kube-apiserver's limit on a field manager's name, in bytes. */
export const FIELD_MANAGER_MAX_BYTES = 128;

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const hex = (codePoint: number): string => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A `fieldManager` longer than 128 bytes or holding a non-printable character is refused with 422 Invalid on the
 * request's options (`PatchOptions.meta.k8s.io "" is invalid: fieldManager: …`), as kube-apiserver answers.
 */
export function checkFieldManager(fieldManager: string, kind: WriteOptionsKind): void {
  const causes: { reason: string; message: string; field: string }[] = [];
  if (Buffer.byteLength(fieldManager, 'utf8') > FIELD_MANAGER_MAX_BYTES) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${FIELD_MANAGER_MAX_BYTES} bytes`,
      field: 'fieldManager',
    });
  }
  let position = 0;
  for (const char of fieldManager) {
    const codePoint = char.codePointAt(0) as number;
    if (!PRINTABLE.test(char)) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character ${hex(codePoint)} (at position ${position})`,
        field: 'fieldManager',
      });
    }
    position += Buffer.byteLength(char, 'utf8');
  }
  if (causes.length === 0) return;
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  throw new ApiError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${summary}`, {
    group: 'meta.k8s.io',
    kind,
    causes,
  });
}

/**
 * The User-Agent's program name, as kube-apiserver takes it when a write names no `fieldManager`: the part before
 * the first `/`, without non-printable characters, cut at 128 bytes. @kubernetes/client-node 1.x sends node-fetch's
 * default `node-fetch/1.0 (+https://github.com/bitinn/node-fetch)`, so its writes are `node-fetch`'s.
 */
export function userAgentManager(userAgent: string): string {
  let out = '';
  for (const char of userAgent.split('/')[0] ?? '') {
    if (!PRINTABLE.test(char)) continue;
    if (Buffer.byteLength(out + char, 'utf8') > FIELD_MANAGER_MAX_BYTES) break;
    out += char;
  }
  return out;
}

/** The manager of a write: the checked `fieldManager` query parameter, else the User-Agent's program name. */
export function requestManager(query: URLSearchParams, userAgent: string, kind: WriteOptionsKind): string {
  const fieldManager = query.get('fieldManager') ?? '';
  if (fieldManager === '') return userAgentManager(userAgent);
  checkFieldManager(fieldManager, kind);
  return fieldManager;
}
