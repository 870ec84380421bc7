// Every object version the simulated operator produces must fit the Flink operator's CRD schemas (release 1.15.0).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startSimCluster } from '../../src/kube/cluster.js';
import { SCENARIO_ANNOTATION, type ScenarioSpec } from '../../src/kube/scenarios.js';
import type { KubeObject, SimStore } from '../../src/kube/store.js';
import { editSpec, statusOf, waitFor, waitForStatus, waitStable } from '../support/sim.js';
import { deployment, snapshot } from '../support/sim-resources.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const CRD_DIR = resolve(REPO_ROOT, '..', 'shared', 'reference', 'flink-operator-crds');
const CRDS = {
  flinkdeployments: 'flinkdeployments.flink.apache.org-v1.yml',
  flinksessionjobs: 'flinksessionjobs.flink.apache.org-v1.yml',
  flinkstatesnapshots: 'flinkstatesnapshots.flink.apache.org-v1.yml',
  flinkbluegreendeployments: 'flinkbluegreendeployments.flink.apache.org-v1.yml',
} as const;
type Plural = keyof typeof CRDS;
type Schema = Record<string, unknown>;

function loadSchemas(): Record<Plural, Schema> {
  const out = {} as Record<Plural, Schema>;
  for (const [plural, file] of Object.entries(CRDS) as [Plural, string][]) {
    const crd = parse(readFileSync(resolve(CRD_DIR, file), 'utf8')) as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
    };
    const version = crd.spec.versions.find((v) => v.name === 'v1beta1');
    if (!version) throw new Error(`${file} has no v1beta1`);
    out[plural] = version.schema.openAPIV3Schema;
  }
  return out;
}

/**
 * Fields a structural schema would prune (kube-apiserver drops them silently): properties not declared where
 * neither additionalProperties nor x-kubernetes-preserve-unknown-fields allows them.
 */
function prunedFields(schema: Schema | undefined, value: unknown, path: string, out: string[]): void {
  if (!schema || value === null || typeof value !== 'object' || schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => prunedFields(schema.items as Schema | undefined, item, `${path}[${i}]`, out));
    return;
  }
  const properties = schema.properties as Record<string, Schema> | undefined;
  const additional = schema.additionalProperties as Schema | boolean | undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const sub = properties?.[key] ?? (typeof additional === 'object' ? additional : undefined);
    if (!sub && additional !== true) out.push(`${path}.${key}`);
    else prunedFields(sub, child, `${path}.${key}`, out);
  }
}

/** A varied workload: the demo seed plus upgrades, suspends, failures, rollbacks and snapshots of every outcome. */
/** Generous waits: this file runs a long workload and CI runs it beside the rest of the suite on 2 cores. */
const SLOW = 20_000;

type SetScenario = (ns: string, name: string, s: ScenarioSpec | ScenarioSpec[]) => void;

async function runWorkload(store: SimStore, setScenario: SetScenario): Promise<void> {
  const prod = 'streaming-prod';
  const dev = 'streaming-dev';
  for (const name of ['orders', 'payments', 'clickstream', 'fraud-detection'])
    await waitStable(store, prod, name, 'flinkdeployments', SLOW);
  await waitStable(store, prod, 'sessionjob-etl', 'flinksessionjobs', SLOW);
  editSpec(store, 'flinkdeployments', prod, 'orders', (s) => (s.image = 'flink:1.20.1'));
  editSpec(store, 'flinkdeployments', prod, 'fraud-detection', (s) => ((s.job.state = 'suspended'), SLOW));
  editSpec(store, 'flinkdeployments', prod, 'payments', (s) => (s.restartNonce = 101));
  editSpec(
    store,
    'flinkdeployments',
    prod,
    'clickstream',
    (s) => (s.flinkConfiguration['pipeline.jobvertex-parallelism-overrides'] = 'a:4'),
  );
  editSpec(store, 'flinksessionjobs', prod, 'sessionjob-etl', (s) => ((s.job.state = 'suspended'), SLOW));
  editSpec(store, 'flinkdeployments', dev, 'orders', (s) => (s.image = 'flink:broken'));
  store.create('flinkdeployments', deployment('audit', prod, { upgradeMode: 'last-state', ha: false }));
  setScenario(prod, 'payments', 'savepoint-failure');
  await waitStable(store, prod, 'payments', 'flinkdeployments', SLOW);
  store.create('flinkstatesnapshots', snapshot('payments-failing', prod, 'payments', { backoffLimit: 1 }));
  store.create('flinkstatesnapshots', snapshot('ledger-abandoned', prod, 'ledger-export'));
  store.create('flinkstatesnapshots', snapshot('dangling', prod, 'nosuch'));
  store.create('flinkstatesnapshots', snapshot('orders-chk', prod, 'orders', { checkpoint: true }));
  await waitStable(store, prod, 'audit', 'flinkdeployments', SLOW);
  editSpec(store, 'flinkdeployments', prod, 'audit', (s) => ((s.job.state = 'suspended'), SLOW));
  editSpec(store, 'flinkdeployments', prod, 'clickstream', (s) => (s.job.savepointRedeployNonce = 5));
  await waitStable(store, prod, 'orders', 'flinkdeployments', SLOW);
  editSpec(store, 'flinkdeployments', prod, 'orders', (s) => {
    s.job.initialSavepointPath = 's3://backups/orders/savepoint-0';
    s.job.savepointRedeployNonce = 1;
  });
  const terminal = (state: unknown) => ['COMPLETED', 'FAILED', 'ABANDONED'].includes(String(state));
  for (const name of ['payments-failing', 'ledger-abandoned', 'orders-chk']) {
    await waitForStatus(store, 'flinkstatesnapshots', prod, name, (s) => terminal(s.state), 'terminal', SLOW);
  }
  await waitForStatus(
    store,
    'flinkdeployments',
    dev,
    'orders',
    (s) => s.lifecycleState === 'ROLLED_BACK' && s.jobStatus?.state === 'RUNNING',
    'rolled back',
    SLOW,
  );
  await waitForStatus(
    store,
    'flinkdeployments',
    prod,
    'audit',
    (s) => s.jobStatus?.state === 'CANCELED',
    'cancelled',
    SLOW,
  );
  await waitForStatus(
    store,
    'flinkdeployments',
    prod,
    'fraud-detection',
    (s) => s.lifecycleState === 'SUSPENDED',
    'suspended',
    SLOW,
  );
  await waitForStatus(
    store,
    'flinksessionjobs',
    prod,
    'sessionjob-etl',
    (s) => s.lifecycleState === 'SUSPENDED',
    'suspended',
    SLOW,
  );
  await waitFor(store, () => statusOf(store.get('flinkdeployments', prod, 'clickstream')).error, SLOW);
  await waitStable(store, prod, 'orders', 'flinkdeployments', SLOW);
}

/** The failure modes real operators show on healthy clusters: a failed job suspended by NOOP, a recovering pull, UpgradeFailed. */
async function runFailureModes(store: SimStore, setScenario: SetScenario): Promise<void> {
  const dev = 'streaming-dev';
  store.create(
    'flinkdeployments',
    deployment('flaky', dev, { annotations: { [SCENARIO_ANNOTATION]: 'job-exceptions=1,job-failure' } }),
  );
  store.create(
    'flinkdeployments',
    deployment('pull', dev, { annotations: { [SCENARIO_ANNOTATION]: 'image-pull-failure=1s' } }),
  );
  store.create('flinkdeployments', deployment('stuck', dev, { upgradeMode: 'last-state', ha: false }));
  await waitForStatus(store, 'flinkdeployments', dev, 'flaky', (s) => s.jobStatus?.state === 'FAILED', 'failed', SLOW);
  editSpec(store, 'flinkdeployments', dev, 'flaky', (s) => (s.job.state = 'suspended'));
  await waitStable(store, dev, 'pull', 'flinkdeployments', SLOW);
  await waitStable(store, dev, 'stuck', 'flinkdeployments', SLOW);
  setScenario(dev, 'stuck', ['upgrade-failed', 'savepoint-failure=once']);
  editSpec(store, 'flinkdeployments', dev, 'stuck', (s) => (s.restartNonce = 1));
  await waitForStatus(
    store,
    'flinkdeployments',
    dev,
    'flaky',
    (s) => s.lifecycleState === 'SUSPENDED',
    'suspended',
    SLOW,
  );
  await waitFor(store, () => statusOf(store.get('flinkdeployments', dev, 'stuck')).error, SLOW);
  editSpec(store, 'flinkdeployments', dev, 'stuck', (s) => (s.job.state = 'suspended'));
  await waitForStatus(
    store,
    'flinkdeployments',
    dev,
    'stuck',
    (s) => s.jobStatus?.state === 'CANCELED',
    'cancelled',
    SLOW,
  );
}

describe('CRD conformance of the simulated operator', () => {
  it('every version of every FlinkDeployment, FlinkSessionJob, FlinkStateSnapshot and FlinkBlueGreenDeployment validates against its CRD schema', async () => {
    if (!existsSync(CRD_DIR)) {
      console.warn(
        `sim-crd-conformance: ${CRD_DIR} is absent — the simulated objects were NOT validated against the CRD schemas`,
      );
      expect(existsSync(CRD_DIR), 'CRD reference folder absent: this run validated nothing').toBe(false);
      return;
    }
    const schemas = loadSchemas();
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validators = Object.fromEntries(
      Object.entries(schemas).map(([plural, schema]) => [plural, ajv.compile(schema)]),
    ) as Record<Plural, ValidateFunction>;
    const problems: string[] = [];
    const check = (plural: Plural, object: KubeObject): void => {
      const body = { spec: object.spec, ...(object.status ? { status: object.status } : {}) };
      const where = `${plural}/${object.metadata.namespace}/${object.metadata.name}@${object.metadata.resourceVersion ?? '?'}`;
      if (!validators[plural](body)) problems.push(`${where}: ${ajv.errorsText(validators[plural].errors)}`);
      const pruned: string[] = [];
      prunedFields(schemas[plural], body, '', pruned);
      if (pruned.length > 0) problems.push(`${where}: fields a structural schema would prune: ${pruned.join(', ')}`);
    };

    const cluster = await startSimCluster({ seed: 'demo', speed: 'fast' });
    let checked = 0;
    const stop = cluster.store.subscribe((change) => {
      if (change.type === 'DELETED' || !(change.resource in CRDS)) return;
      checked += 1;
      check(change.resource as Plural, change.object);
    });
    try {
      await runWorkload(cluster.store, (ns, name, s) => cluster.operator.setScenario(ns, name, s));
      await runFailureModes(cluster.store, (ns, name, s) => cluster.operator.setScenario(ns, name, s));
      await cluster.seeded;
      for (const plural of Object.keys(CRDS) as Plural[])
        for (const object of cluster.store.list(plural)) check(plural, object);
      // The demo's Blue/Green pair is among what was checked.
      expect(cluster.store.list('flinkbluegreendeployments').map((o) => o.metadata.name)).toEqual(['checkout-bg']);
    } finally {
      stop();
      await cluster.close();
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
    // The checks bite: a wrong enum value and a field the schema does not declare are both reported.
    const bogus = cluster.store.list('flinkdeployments')[0] as KubeObject;
    const before = problems.length;
    check('flinkdeployments', {
      ...bogus,
      status: { ...bogus.status, lifecycleState: 'BOGUS', jobStatus: { state: 'RUNNING', secret: 1 } },
    });
    expect(problems.slice(before).join('\n')).toMatch(
      /lifecycleState must be equal to one of the allowed values[\s\S]*\.status\.jobStatus\.secret/,
    );
    const states = new Set(cluster.store.list('flinkstatesnapshots').map((s) => statusOf(s).state));
    expect([...states].sort()).toEqual(['ABANDONED', 'COMPLETED', 'FAILED', 'TRIGGER_PENDING']);
  }, 90_000);
});
