// The shape of `metadata.managedFields` entries (managed-fields.ts computes them; docs/sandbox.md#managed-fields).

/** FieldsV1: `f:<key>` per object key, `".": {}` for a map that is itself in the set, `{}` for a leaf. */
export interface FieldsV1 {
  [key: string]: FieldsV1;
}

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  /** RFC 3339, seconds, on the cluster's clock. */
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldsV1;
  subresource?: string;
}
