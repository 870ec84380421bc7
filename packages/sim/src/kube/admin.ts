// The simulator's own HTTP endpoints (/sim/faults, /sim/stats): fault injection and request counts for tests and the sandbox.
import type { FaultInjector, FaultSpec, RequestStats } from './faults.js';
import { parseFault } from './faults.js';

export interface AdminAnswer {
  status: number;
  body: unknown;
}

type Action =
  | { action: 'closeWatches'; graceful?: boolean }
  | { action: 'expireNextWatch' }
  | { action: 'forbidNamespace'; namespace: string; user?: string }
  | { action: 'allowNamespace'; namespace: string };

const USAGE =
  'POST /sim/faults takes a fault {"kind":"lose-response|error-500|delay|error-403", "method"?, "verb"?, "resource"?, ' +
  '"namespace"?, "name"?, "subresource"?, "times"?, "ms"?} or an array of them, or an action ' +
  '{"action":"closeWatches","graceful"?:true} / {"action":"expireNextWatch"} / {"action":"forbidNamespace"|"allowNamespace","namespace":"…"}';

function bad(message: string): AdminAnswer {
  return { status: 400, body: { error: message, usage: USAGE } };
}

function runAction(faults: FaultInjector, body: Record<string, unknown>): AdminAnswer {
  const action = body as Action;
  switch (action.action) {
    case 'closeWatches':
      return { status: 200, body: { closed: faults.closeWatches(action.graceful === true ? 'graceful' : 'abrupt') } };
    case 'expireNextWatch':
      faults.expireNextWatch();
      return { status: 200, body: { ok: true } };
    case 'forbidNamespace':
    case 'allowNamespace': {
      if (typeof action.namespace !== 'string' || action.namespace === '')
        return bad(`${action.action} needs "namespace"`);
      if (action.action === 'allowNamespace') faults.allowNamespace(action.namespace);
      else faults.forbidNamespace(action.namespace, typeof action.user === 'string' ? action.user : undefined);
      return { status: 200, body: { ok: true } };
    }
    default:
      return bad(`unknown action ${JSON.stringify(body.action)}`);
  }
}

function addFaults(faults: FaultInjector, body: unknown): AdminAnswer {
  const specs: FaultSpec[] = [];
  for (const item of Array.isArray(body) ? body : [body]) {
    const parsed = parseFault(item);
    if (!parsed.ok) return bad(parsed.message);
    specs.push(parsed.fault);
  }
  return { status: 201, body: { ids: specs.map((s) => faults.inject(s)) } };
}

export function admin(
  method: string,
  path: string,
  rawBody: string,
  faults: FaultInjector,
  stats: RequestStats,
): AdminAnswer {
  if (path === '/sim/stats') {
    if (method === 'GET') return { status: 200, body: stats.snapshot() };
    if (method === 'DELETE') {
      stats.reset();
      return { status: 200, body: { ok: true } };
    }
    return { status: 405, body: { error: 'use GET or DELETE on /sim/stats' } };
  }
  if (method === 'GET') return { status: 200, body: { faults: faults.list() } };
  if (method === 'DELETE') {
    faults.clear();
    return { status: 200, body: { ok: true } };
  }
  if (method !== 'POST') return { status: 405, body: { error: 'use GET, POST or DELETE on /sim/faults' } };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch (error) {
    return bad(`the body is not valid JSON: ${(error as Error).message}`);
  }
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'action' in body) {
    return runAction(faults, body as Record<string, unknown>);
  }
  return addFaults(faults, body);
}
