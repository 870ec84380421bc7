// The page's GitOps switch on a cluster-panel row: off, Argo CD self-heal, Flux or Helm for one resource
// (docs/sandbox.md#gitops-switches).
import { CONTROLLER_MANAGERS, GitOpsError, GITOPS_CONTROLLERS, type GitOpsController } from './kube/gitops/gitops.js';
import { pickCluster, type PanelCluster } from './page-cluster.js';

/** The switch's choices, in the order the page offers them. */
export const GITOPS_CHOICES: readonly { id: GitOpsController; label: string }[] = GITOPS_CONTROLLERS.map((id) => ({
  id,
  label: id === 'off' ? 'off' : CONTROLLER_MANAGERS[id].label,
}));

type Body = Record<string, unknown>;

function text(body: Body, name: string, required = true): string | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new GitOpsError(`"${name}" must be a non-empty string`, 400);
  return v;
}

const isController = (v: unknown): v is GitOpsController =>
  typeof v === 'string' && (GITOPS_CONTROLLERS as readonly string[]).includes(v);

/** Argo CD's knobs the switch passes on as given (the manage request checks them). */
const ARGOCD_KNOBS = ['tracking', 'serverSideApply', 'selfHeal'] as const;

/**
 * `{cluster?, kind?, namespace, name, controller, tracking?, serverSideApply?, selfHeal?}` (bad input throws
 * GitOpsError): switches the resource's controller on the cluster the row is in (`cluster` required when the page
 * shows several); answers with what now manages it.
 */
export function switchGitOps(panel: readonly PanelCluster[], body: Body): Body {
  const clusterName = text(body, 'cluster', false);
  const namespace = text(body, 'namespace') as string;
  const name = text(body, 'name') as string;
  const kind = text(body, 'kind', false);
  if (kind !== undefined && kind !== 'FlinkDeployment' && kind !== 'FlinkSessionJob')
    throw new GitOpsError('"kind" must be FlinkDeployment or FlinkSessionJob', 400);
  const controller = body.controller;
  if (!isController(controller))
    throw new GitOpsError(`"controller" must be one of ${GITOPS_CONTROLLERS.join(', ')}`, 400);
  const picked = pickCluster(panel, clusterName);
  if ('error' in picked) throw new GitOpsError(picked.error, clusterName === undefined ? 400 : 404);
  const knobs = Object.fromEntries(ARGOCD_KNOBS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
  const result = picked.cluster.gitops.manage({ ...(kind ? { kind } : {}), namespace, name, controller, ...knobs });
  const gitops = result.controller === 'off' ? undefined : { label: result.label, application: result.application };
  return {
    ok: true,
    ...(picked.name === undefined ? {} : { cluster: picked.name }),
    namespace,
    name,
    controller,
    ...(gitops ? { gitops } : {}),
  };
}
