// The operator and CRD releases the simulated clusters of a test run: the truth suite runs once per combination
// (vitest.config.ts: projects `truth-1.16` and `truth-1.16-crd-1.15`), told through SIM_OPERATOR_VERSION and
// SIM_CRD_VERSION; unset, the simulator's default (1.15, the CRDs following the operator).
import { OPERATOR_VERSIONS, type OperatorVersion } from '@flink-chatops/sim/kube/versions';

function versionFrom(name: string, value: string | undefined): OperatorVersion | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(OPERATOR_VERSIONS as readonly string[]).includes(value))
    throw new Error(`${name}=${value}: expected one of ${OPERATOR_VERSIONS.join(', ')}`);
  return value as OperatorVersion;
}

/** `startSimCluster` options for this run's releases (empty when the run uses the defaults). */
export function simVersionOptions(): { operatorVersion?: OperatorVersion; crdVersion?: OperatorVersion } {
  const operatorVersion = versionFrom('SIM_OPERATOR_VERSION', process.env.SIM_OPERATOR_VERSION);
  const crdVersion = versionFrom('SIM_CRD_VERSION', process.env.SIM_CRD_VERSION);
  return {
    ...(operatorVersion === undefined ? {} : { operatorVersion }),
    ...(crdVersion === undefined ? {} : { crdVersion }),
  };
}
