// Kubernetes attribution (docs/deployment.md#kubernetes-attribution): with KUBE_IMPERSONATE=slack the worker's writes
// are made as `slack:<user id>` in the group `flink-chatops:requesters`, and a denial of that says what is missing.
import type { KubeImpersonate } from '../config.js';
import { KubeError } from './errors.js';

/** The prefix of the impersonated user name: `slack:U0ALICE`. */
export const SLACK_USER_PREFIX = 'slack:';
/** The one group every impersonated requester is in (its RBAC can be narrowed to it by resourceNames). */
export const REQUESTERS_GROUP = 'flink-chatops:requesters';
/** The component that grants the worker `impersonate` (docs/deployment.md#kubernetes-attribution). */
export const IMPERSONATION_COMPONENT = 'deploy/components/impersonation';

/** Who a write is made as. */
export interface Impersonation {
  readonly user: string;
  readonly group: string;
}

/**
 * Who a write for `requester` (a Slack user id) is made as, or undefined when the mode is `off`. A Slack user id is
 * capital letters and digits; anything else is refused (a `rejected` KubeError, before any request) rather than sent.
 */
export function impersonationFor(mode: KubeImpersonate, requester: string | undefined): Impersonation | undefined {
  if (mode === 'off') return undefined;
  if (requester === undefined || !/^[A-Z0-9]+$/.test(requester))
    throw new KubeError(
      'rejected',
      `KUBE_IMPERSONATE=slack: ${JSON.stringify(requester ?? '')} is not a Slack user id to write as; nothing was sent`,
    );
  return { user: `${SLACK_USER_PREFIX}${requester}`, group: REQUESTERS_GROUP };
}

/**
 * The request headers of kube-apiserver's user impersonation. Impersonate-Group may repeat on the wire, but
 * client-node keeps one value per header, which is all that is sent: one group.
 */
export function impersonationHeaders(who: Impersonation): Record<string, string> {
  return { 'Impersonate-User': who.user, 'Impersonate-Group': who.group };
}

/** The API server's words when the caller may not impersonate: `… cannot impersonate resource "users" …`. */
const DENIAL = /cannot impersonate resource "([a-z]+)"/;

/**
 * A 403 that refuses the impersonation itself (not the write), in words that say what to change; undefined for any
 * other message.
 */
export function describeImpersonationDenial(message: string): string | undefined {
  const resource = DENIAL.exec(message)?.[1];
  if (resource === undefined) return undefined;
  return (
    `the worker's role lacks \`impersonate\` on ${resource}, which KUBE_IMPERSONATE=slack needs: ` +
    `add the component ${IMPERSONATION_COMPONENT} (docs/deployment.md#kubernetes-attribution), ` +
    `or set KUBE_IMPERSONATE=off. The API server said: ${message}`
  );
}
