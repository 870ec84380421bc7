// A second deployment, "sentinel", that operator tests deploy to let the simulated operator provably do other work
// for a while: what has not happened once the sentinel is STABLE (a repeated event, a knob let go) did not happen
// for want of time.
import { editSpec, waitStable, type SimRigHooks } from './sim.js';

export interface Sentinel {
  /** Creates the sentinel and resolves once it is STABLE. */
  whileSomethingElseDeploys(): Promise<void>;
  /** Restarts the (already deployed) sentinel and resolves once it is STABLE again. */
  whileSomethingElseDeploysAgain(): Promise<void>;
}

export function sentinel(sim: SimRigHooks, namespace: string): Sentinel {
  return {
    async whileSomethingElseDeploys() {
      await sim.deployed('sentinel');
    },
    async whileSomethingElseDeploysAgain() {
      editSpec(sim.rig.store, 'flinkdeployments', namespace, 'sentinel', (s) => (s.restartNonce = 1));
      await waitStable(sim.rig.store, namespace, 'sentinel');
    },
  };
}
