// Fault injection for the simulated API server (lost responses, 500s, delays, RBAC denials, watch breaks) and request counts.
import { z } from 'zod';
import type { RequestInfo } from './routes.js';

export const FAULT_KINDS = ['lose-response', 'error-500', 'delay', 'error-403'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type WatchCloseMode = 'abrupt' | 'graceful';

/** The service account the simulated RBAC denials name. */
export const DEFAULT_SIM_USER = 'system:serviceaccount:flink-chatops:flink-chatops';

const FaultSpecSchema = z
  .object({
    kind: z.enum(FAULT_KINDS),
    /** HTTP method, any case. */
    method: z.string().min(1).optional(),
    /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
    verb: z.string().min(1).optional(),
    resource: z.string().min(1).optional(),
    namespace: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    /** `status`, or `none` for the main resource only; unset matches both. */
    subresource: z.string().min(1).optional(),
    /** How many matching requests this fault hits; default 1. */
    times: z.number().int().positive().optional(),
    ms: z.number().int().nonnegative().optional(),
    user: z.string().min(1).optional(),
  })
  .strict()
  .refine((f) => f.kind !== 'delay' || f.ms !== undefined, { message: 'a delay fault needs "ms"' });

export type FaultSpec = z.infer<typeof FaultSpecSchema>;
export interface ActiveFault extends FaultSpec {
  id: number;
  remaining: number;
}

/** Parses a fault (or explains what is wrong with it), for the admin endpoint and programmatic callers alike. */
export function parseFault(input: unknown): { ok: true; fault: FaultSpec } | { ok: false; message: string } {
  const parsed = FaultSpecSchema.safeParse(input);
  if (parsed.success) return { ok: true, fault: parsed.data };
  const message = parsed.error.issues.map((i) => `${i.path.join('.') || 'fault'}: ${i.message}`).join('; ');
  return { ok: false, message: `invalid fault: ${message} (kinds: ${FAULT_KINDS.join(', ')})` };
}

function matches(fault: FaultSpec, info: RequestInfo): boolean {
  if (fault.method && fault.method.toUpperCase() !== info.method) return false;
  if (fault.verb && fault.verb !== info.verb) return false;
  if (fault.resource && fault.resource !== info.resource) return false;
  if (fault.namespace && fault.namespace !== info.namespace) return false;
  if (fault.name && fault.name !== info.name) return false;
  if (fault.subresource === 'none') return info.subresource === undefined;
  if (fault.subresource && fault.subresource !== info.subresource) return false;
  return true;
}

export class FaultInjector {
  private faults: ActiveFault[] = [];
  private nextId = 1;
  private expireWatches = 0;
  private readonly forbidden = new Map<string, string>();
  private impersonationDenied: string | undefined;
  private closeHandler: (how: WatchCloseMode) => number = () => 0;

  /** Adds a fault; it hits the next `times` (default 1) matching requests. Returns its id. */
  inject(spec: FaultSpec): number {
    const parsed = parseFault(spec);
    if (!parsed.ok) throw new Error(parsed.message);
    const id = this.nextId++;
    this.faults.push({ ...parsed.fault, id, remaining: parsed.fault.times ?? 1 });
    return id;
  }

  /** Active faults with how many hits each has left. */
  list(): ActiveFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** Removes every fault, namespace denial, impersonation denial and pending watch expiry. */
  clear(): void {
    this.faults = [];
    this.expireWatches = 0;
    this.forbidden.clear();
    this.impersonationDenied = undefined;
  }

  /**
   * Ends every open watch stream: `abrupt` (default) destroys the connection, as an API server crash or a load
   * balancer would, and client-node's Watch reports an error; `graceful` ends the stream cleanly, as a server
   * shutdown or watch timeout does. Returns how many streams were closed.
   */
  closeWatches(how: WatchCloseMode = 'abrupt'): number {
    return this.closeHandler(how);
  }

  /** The next watch that resumes from a resourceVersion gets 410 Gone (an ERROR event, then the stream ends). */
  expireNextWatch(): void {
    this.expireWatches += 1;
  }

  /** Every request in `namespace` gets 403 Forbidden with the RBAC message, until allowNamespace or clear. */
  forbidNamespace(namespace: string, user = DEFAULT_SIM_USER): void {
    this.forbidden.set(namespace, user);
  }

  allowNamespace(namespace: string): void {
    this.forbidden.delete(namespace);
  }

  /**
   * Every request that carries Impersonate-* headers gets 403 Forbidden, as kube-apiserver answers a caller without
   * `impersonate` on users/groups (docs/sandbox.md#impersonation), until allowImpersonation or clear.
   */
  forbidImpersonation(user = DEFAULT_SIM_USER): void {
    this.impersonationDenied = user;
  }

  allowImpersonation(): void {
    this.impersonationDenied = undefined;
  }

  /** @internal The server wires watch closing in here. */
  onCloseWatches(handler: (how: WatchCloseMode) => number): void {
    this.closeHandler = handler;
  }

  /** @internal The user denied in this namespace, if it is forbidden. */
  forbiddenUser(namespace: string | undefined): string | undefined {
    return namespace === undefined ? undefined : this.forbidden.get(namespace);
  }

  /** @internal The caller whose impersonation is refused, while forbidImpersonation holds. */
  impersonationDeniedTo(): string | undefined {
    return this.impersonationDenied;
  }

  /** @internal Takes (and counts down) every fault matching the request. */
  take(info: RequestInfo): FaultSpec[] {
    const hit: FaultSpec[] = [];
    for (const fault of this.faults) {
      if (fault.remaining > 0 && matches(fault, info)) {
        fault.remaining -= 1;
        hit.push(fault);
      }
    }
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return hit;
  }

  /** @internal True once per expireNextWatch() call. */
  takeWatchExpiry(): boolean {
    if (this.expireWatches === 0) return false;
    this.expireWatches -= 1;
    return true;
  }
}

export interface RequestStatsSnapshot {
  total: number;
  /** `<verb> <resource>[/<subresource>]`, e.g. `patch flinkdeployments`, `list events`, `get discovery`. */
  requests: Record<string, number>;
}

export class RequestStats {
  private total = 0;
  private counts = new Map<string, number>();

  count(info: RequestInfo): void {
    const what =
      info.resource === undefined
        ? 'discovery'
        : info.subresource
          ? `${info.resource}/${info.subresource}`
          : info.resource;
    const key = `${info.verb} ${what}`;
    this.total += 1;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  snapshot(): RequestStatsSnapshot {
    return { total: this.total, requests: Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b))) };
  }

  reset(): void {
    this.total = 0;
    this.counts = new Map();
  }
}
