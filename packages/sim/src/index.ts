// The simulators' entry for tests outside the package: the simulated cluster with its GitOps controllers, and
// reading managedFields as the simulated API server writes them (docs/sandbox.md#gitops-switches).
export { startSimCluster, type SimCluster, type SimClusterOptions } from './kube/cluster.js';
export {
  CONTROLLER_MANAGERS,
  FLUX_INTERVAL_MS,
  FLUX_RECONCILE,
  GITOPS_CONTROLLERS,
  GitOpsError,
  SELF_HEAL_DELAY_MS,
  SimGitOps,
  type ActiveController,
  type GitOpsController,
  type GitOpsKind,
  type GitOpsStats,
  type GitOpsTarget,
  type GitOpsView,
  type ManageRequest,
  type ManageResult,
  type PassListener,
  type PassOutcome,
} from './kube/gitops/gitops.js';
export { decodeFields, encodeFields, fieldOwners, type FieldPath } from './kube/managed-fields.js';
export { userAgentManager } from './kube/field-manager.js';
export type { FieldsV1, KubeObject, ManagedFieldsEntry } from './kube/store.js';
