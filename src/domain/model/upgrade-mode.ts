// Upgrade modes and the one rule for the mode the operator will actually use.
import { getPath } from './merge-patch.js';

export const UPGRADE_MODES = ['savepoint', 'last-state', 'stateless'] as const;
export type UpgradeMode = (typeof UPGRADE_MODES)[number];
/** The modes by name, so code compares against `MODE.savepoint` rather than repeating the words. */
export const MODE = { savepoint: UPGRADE_MODES[0], lastState: UPGRADE_MODES[1], stateless: UPGRADE_MODES[2] } as const;

/** The operator's own default when `spec.job.upgradeMode` is unset (JobSpec.upgradeMode = STATELESS). */
export const DEFAULT_UPGRADE_MODE: UpgradeMode = MODE.stateless;

export function isUpgradeMode(value: unknown): value is UpgradeMode {
  return (UPGRADE_MODES as readonly unknown[]).includes(value);
}

/** The mode the operator will stop and redeploy with: `--mode`, else `spec.job.upgradeMode`, else stateless. */
export function effectiveUpgradeMode(requested: UpgradeMode | undefined, resource: unknown): UpgradeMode {
  if (requested !== undefined) return requested;
  const spec = getPath(resource, ['spec', 'job', 'upgradeMode']);
  return isUpgradeMode(spec) ? spec : DEFAULT_UPGRADE_MODE;
}
