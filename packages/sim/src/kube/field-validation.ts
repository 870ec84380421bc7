// The write options that meet the installed CRD: `fieldValidation` (Ignore, Warn — the default —, Strict) for the
// fields structural pruning drops, and `dryRun=All` (docs/sandbox.md#crd-schemas). Wording as k8s.io/apiserver's
// handlers (create.go, update.go, patch.go) and its strict decoding errors.
import type { ResourceDef } from './resources.js';
import { errors } from './status.js';
import type { AdmissionOptions, ApiError } from './store.js';

export type WriteVerb = 'create' | 'update' | 'patch';

export interface Admission {
  options: AdmissionOptions;
  /** `Warning` response headers (`299 - "unknown field \"spec.x\""`), filled as the write runs. */
  warnings: string[];
}

function strictDecoding(paths: string[]): string {
  return `strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`;
}

/** Strict: a create or update body is a 400 decode error; a patch is a 422 on the patched object. */
function strictError(def: ResourceDef, verb: WriteVerb, paths: string[], written: unknown): ApiError {
  if (verb !== 'patch') {
    return errors.badRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${strictDecoding(paths)}`,
    );
  }
  return errors.invalid('', '', [
    { field: 'patch', message: `Invalid value: ${JSON.stringify(JSON.stringify(written))}: ${strictDecoding(paths)}` },
  ]);
}

/** A warning header value as the API server writes it: code 299, no agent, the text quoted. */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function admissionOf(query: URLSearchParams, def: ResourceDef, verb: WriteVerb): Admission {
  const directive = query.get('fieldValidation') ?? '';
  const warnings: string[] = [];
  const options: AdmissionOptions = {
    unknownFields: (paths, written) => {
      if (directive === 'Strict') throw strictError(def, verb, paths, written);
      if (directive !== 'Ignore') warnings.push(...paths.map((p) => warningHeader(`unknown field "${p}"`)));
    },
  };
  if (query.getAll('dryRun').includes('All')) options.dryRun = true;
  return { options, warnings };
}
