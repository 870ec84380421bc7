import { defineConfig } from 'vitest/config';

const TRUTH_SUITE = [
  'test/integration/real-jobs.test.ts',
  'test/integration/bot-real-jobs.test.ts',
  'test/integration/deep-verification.test.ts',
  'test/integration/bot-gitops.test.ts',
];
const TRUTH_RUNS: { name: string; env: Record<string, string> }[] = [
  { name: 'truth-1.16', env: { SIM_OPERATOR_VERSION: '1.16' } },
  { name: 'truth-1.16-crd-1.15', env: { SIM_OPERATOR_VERSION: '1.16', SIM_CRD_VERSION: '1.15' } },
];

// Unit and integration files run in parallel; crash and end-to-end files (test/e2e) run one at a time, after them.
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/record-key-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/unit/**/*.test.ts', 'test/repo/**/*.test.ts', 'test/integration/**/*.test.ts'],
          // Vitest's default is one fewer than the cores: one worker on a 2-core machine. These files mostly wait
          // on simulators and Redis, so two side by side use the machine without starving each other.
          maxWorkers: 2,
          // A worker runs its files one after another in one module graph instead of importing everything anew per
          // file: that import was a third of the suite's CPU. Every file starts and closes what it uses (its own
          // servers, Redis prefix and clients); the processes a test spawns are its own either way.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      // The truth suite (real jobs, deep verification, GitOps) once more against each other operator release the
      // bot supports (docs/deployment.md#operator-versions): a 1.16 operator on its own CRDs, and a 1.16 operator
      // whose CRDs were left at 1.15 (Helm does not upgrade CRDs). The main project runs it against 1.15.
      ...TRUTH_RUNS.map(({ name, env }) => ({
        extends: true as const,
        test: { name, include: TRUTH_SUITE, env, maxWorkers: 2, isolate: false, sequence: { groupOrder: 0 } },
      })),
      {
        // The simulators' own tests (packages/sim), beside the bot's unit and integration files.
        extends: true,
        test: {
          name: 'sim',
          include: ['packages/sim/test/**/*.test.ts'],
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
