// Structural pruning of custom resources (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go): fields
// the installed CRD does not declare are dropped before the object is stored (docs/sandbox.md#crd-schemas).
import type { SchemaNode } from './crd-schema.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The child schema of `key` under `node`, undefined when the key is not declared. */
function childOf(node: SchemaNode, key: string): SchemaNode | 'kept' | undefined {
  if (node.type !== 'object') return undefined;
  if (node.preserveUnknownFields) return node.properties?.[key] ?? 'kept';
  return node.properties?.[key] ?? node.additionalProperties;
}

function prune(value: unknown, node: SchemaNode, path: string, out: string[]): void {
  if (node.type === 'array') {
    if (Array.isArray(value)) value.forEach((item, i) => prune(item, node.items, `${path}[${i}]`, out));
    return;
  }
  if (node.type !== 'object' || !isObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = childOf(node, key);
    const at = path === '' ? key : `${path}.${key}`;
    if (child === undefined) {
      delete value[key];
      out.push(at);
    } else if (child !== 'kept') prune(value[key], child, at, out);
  }
}

/**
 * Removes from `object` (in place) every field `schema` does not declare; returns their paths as the API server
 * names them in its warnings (`spec.taskManager.resources`, `spec.ingress.tls[0].x`), in document order.
 */
export function pruneUnknownFields(object: Json, schema: SchemaNode): string[] {
  const out: string[] = [];
  prune(object, schema, '', out);
  return out;
}
