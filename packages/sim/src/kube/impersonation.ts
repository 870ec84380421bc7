// User impersonation as kube-apiserver reads it (docs/sandbox.md#impersonation): the Impersonate-User and
// Impersonate-Group headers of a request, and the 403 the API server answers when the caller may not impersonate.
import type { IncomingMessage } from 'node:http';
import { forbidden } from './status.js';
import type { ApiError } from './store.js';

/** Who a request asked to act as; `groups` in the order the headers came (Impersonate-Group may repeat). */
export interface Impersonated {
  user?: string;
  groups: string[];
}

/** The request's Impersonate-* headers, or undefined when it carries none. */
export function impersonationOf(req: Pick<IncomingMessage, 'headersDistinct'>): Impersonated | undefined {
  const user = req.headersDistinct['impersonate-user']?.[0];
  const groups = req.headersDistinct['impersonate-group'] ?? [];
  if (user === undefined && groups.length === 0) return undefined;
  return { ...(user === undefined ? {} : { user }), groups: [...groups] };
}

/**
 * The denial of an impersonation by a caller without `impersonate`: the user is checked first, then each group, as
 * kube-apiserver does, and the first one refused is named.
 */
export function impersonationDenial(who: Impersonated, caller: string): ApiError {
  const [resource, name] = who.user !== undefined ? ['users', who.user] : ['groups', who.groups[0] ?? ''];
  return forbidden({ user: caller, verb: 'impersonate', resource, group: '', name });
}
