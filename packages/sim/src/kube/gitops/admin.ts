// `GET /sim/gitops` (every managed resource with its counters) and `POST /sim/gitops` (switch a resource's
// controller) on the simulated API server (docs/sandbox.md#gitops-switches).
import { GitOpsError, MANAGE_USAGE, parseManage, type SimGitOps } from './gitops.js';

export interface GitOpsAnswer {
  status: number;
  body: unknown;
}

const USAGE = `POST /sim/gitops takes ${MANAGE_USAGE}`;

function bad(message: string, status = 400): GitOpsAnswer {
  return { status, body: { error: message, usage: USAGE } };
}

export function gitopsAdmin(method: string, rawBody: string, gitops: SimGitOps | undefined): GitOpsAnswer {
  if (!gitops) return { status: 404, body: { error: 'this API server runs no simulated GitOps controllers' } };
  if (method === 'GET') return { status: 200, body: { targets: gitops.list() } };
  if (method !== 'POST') return { status: 405, body: { error: 'use GET or POST on /sim/gitops' } };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch (error) {
    return bad(`the body is not valid JSON: ${(error as Error).message}`);
  }
  const request = parseManage(body);
  if ('error' in request) return bad(request.error);
  try {
    return { status: 200, body: { target: gitops.manage(request) } };
  } catch (error) {
    if (error instanceof GitOpsError) return bad(error.message, error.status);
    throw error;
  }
}
