// The installed Flink CRDs read through the real client-node from the simulated API server
// (docs/deployment.md#operator-versions): the release of each, the flinkVersion values, one reading per refresh
// interval, and a catalog that says so when RBAC refuses the reads.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { InstalledCrds } from '../../src/kube/crds.js';
import { loadKubeConfig } from '../../src/kube/client-node.js';

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const crdReads = (sim: SimCluster) => sim.server.stats().requests['get customresourcedefinitions'] ?? 0;

describe('InstalledCrds', () => {
  it('1.15 CRDs: every kind 1.15, no resources, Flink up to v2_2; read once per refresh interval', async () => {
    cluster = await startSimCluster({ seed: 'none', crdVersion: '1.15' });
    let now = 1_000;
    const crds = new InstalledCrds(loadKubeConfig(cluster.kubeconfigPath), { refreshMs: 60_000, now: () => now });
    const catalog = await crds.catalog();
    expect(catalog.unreadable).toBeUndefined();
    expect(Object.values(catalog.crds).map((c) => [c.kind, c.release])).toEqual([
      ['FlinkDeployment', '1.15'],
      ['FlinkSessionJob', '1.15'],
      ['FlinkStateSnapshot', '1.15'],
      ['FlinkBlueGreenDeployment', '1.15'],
    ]);
    expect(catalog.crds.FlinkDeployment).toMatchObject({ resources: false });
    expect(catalog.crds.FlinkDeployment?.flinkVersions.at(-1)).toBe('v2_2');
    expect(crdReads(cluster)).toBe(4);
    now += 59_000;
    await crds.catalog();
    expect(crdReads(cluster)).toBe(4);
    now += 2_000;
    await crds.catalog();
    expect(crdReads(cluster)).toBe(8);
  });

  it('CRDs upgraded while the process runs (Helm leaves them; someone applies them): seen at the next reading', async () => {
    cluster = await startSimCluster({ seed: 'none', crdVersion: '1.15' });
    let now = 0;
    const crds = new InstalledCrds(loadKubeConfig(cluster.kubeconfigPath), { refreshMs: 60_000, now: () => now });
    expect((await crds.catalog()).crds.FlinkDeployment?.release).toBe('1.15');
    cluster.crds.install('1.16');
    expect((await crds.catalog()).crds.FlinkDeployment?.release).toBe('1.15');
    now += 60_000;
    expect((await crds.catalog()).crds.FlinkDeployment).toMatchObject({ release: '1.16', resources: true });
  });

  it('1.16 CRDs: resources declared, v2_3 and v2_4 admitted, every kind 1.16', async () => {
    cluster = await startSimCluster({ seed: 'none', crdVersion: '1.16' });
    const catalog = await new InstalledCrds(loadKubeConfig(cluster.kubeconfigPath)).catalog();
    expect(Object.values(catalog.crds).map((c) => c.release)).toEqual(['1.16', '1.16', '1.16', '1.16']);
    expect(catalog.crds.FlinkBlueGreenDeployment).toMatchObject({ resources: true });
    expect(catalog.crds.FlinkDeployment?.flinkVersions).toEqual(expect.arrayContaining(['v2_3', 'v2_4']));
  });

  it('without the RBAC to read them: no CRD known, and the reason', async () => {
    cluster = await startSimCluster({ seed: 'none' });
    cluster.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 4 });
    const catalog = await new InstalledCrds(loadKubeConfig(cluster.kubeconfigPath)).catalog();
    expect(catalog.crds).toEqual({});
    expect(catalog.unreadable).toMatch(/^the installed CRDs could not be read: .*customresourcedefinitions/);
  });
});
