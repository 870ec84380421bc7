// Which Flink Kubernetes Operator release a simulated cluster runs, and which release its CRDs come from. The two
// are upgraded separately in real clusters (Helm does not upgrade CRDs), so a cluster may run a 1.16 operator on
// 1.15 CRDs (docs/deployment.md#operator-versions).
export const OPERATOR_VERSIONS = ['1.15', '1.16'] as const;
export type OperatorVersion = (typeof OPERATOR_VERSIONS)[number];

export interface SimVersions {
  /** The operator binary's release: reconcile behaviour, validation, snapshot retries. */
  operator: OperatorVersion;
  /** The release the installed CRDs come from: which fields the API server keeps and which values it admits. */
  crd: OperatorVersion;
}

/** The versions a cluster runs: 1.15 unless told; the CRDs follow the operator unless told otherwise. */
export function simVersions(operator?: OperatorVersion, crd?: OperatorVersion): SimVersions {
  const op = operator ?? '1.15';
  return { operator: op, crd: crd ?? op };
}
