// Kubernetes requests reuse their connections (docs/deployment.md#kubernetes-connections): the real client-node clients
// against the simulated API server through a TCP forwarder that counts the connections opened.
import http from 'node:http';
import https from 'node:https';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flinkDeployment, kubeConfigFor, startSimApi, type SimApi } from '@flink-chatops/sim/testing/kube';
import { IDLE_SOCKET_MS, reuseConnections } from '../../../src/kube/agents.js';
import { ClientNodeFlinkClient } from '../../../src/kube/client-node.js';
import { ClientNodeFlinkRest } from '../../../src/kube/flink-rest.js';
import { ClientNodePodLogs } from '../../../src/kube/pod-logs.js';
import { startTcpForwarder, type TcpForwarder } from '../../support/tcp-forwarder.js';

const NS = 'streaming-dev';

describe('the Kubernetes clients', () => {
  let sim: SimApi;
  let front: TcpForwarder;
  let url: string;

  beforeEach(async () => {
    sim = await startSimApi();
    sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
    front = await startTcpForwarder(sim.server.port);
    url = `http://127.0.0.1:${front.port}`;
  });
  afterEach(async () => {
    await front.close();
    await sim.close();
  });

  it('send one request after another over one connection: objects, Flink REST and pods alike', async () => {
    const kc = kubeConfigFor(url);
    const kube = new ClientNodeFlinkClient(kc, { timeoutMs: 2000 });
    const rest = new ClientNodeFlinkRest(kc, { timeoutMs: 2000 });
    const pods = new ClientNodePodLogs(kc, { timeoutMs: 2000 });
    for (let i = 0; i < 5; i++) expect((await kube.get('FlinkDeployment', NS, 'orders'))?.metadata.name).toBe('orders');
    expect(await kube.listSummaries('FlinkDeployment', NS)).toHaveLength(1);
    // Without a simulated Flink the proxy answers 503: a request all the same.
    expect((await rest.get(NS, 'orders', '/jobs/overview')).ok).toBe(false);
    // This API server serves no pods: a 404, and a request all the same.
    await expect(pods.listPods(NS, 'app=orders')).rejects.toThrow();
    // client-node alone opens one connection per request: 8 here.
    expect(front.connections).toBe(1);
  });

  it('open no more connections than requests in flight at once, and reuse them afterwards', async () => {
    const kube = new ClientNodeFlinkClient(kubeConfigFor(url), { timeoutMs: 2000 });
    const names = ['a', 'b', 'c'];
    for (const name of names) sim.store.create('flinkdeployments', flinkDeployment(name, NS));
    await Promise.all(names.map((name) => kube.get('FlinkDeployment', NS, name)));
    const afterBurst = front.connections;
    expect(afterBurst).toBeGreaterThanOrEqual(1);
    expect(afterBurst).toBeLessThanOrEqual(names.length);
    for (const name of names) await kube.get('FlinkDeployment', NS, name);
    expect(front.connections).toBe(afterBurst);
  });
});

describe('reuseConnections', () => {
  const withAgent = (agent: http.Agent | undefined): RequestContext => {
    const ctx = new RequestContext('https://kube.example:6443/api', HttpMethod.GET);
    if (agent) ctx.setAgent(agent);
    return ctx;
  };
  const pooled = (agent: http.Agent): http.Agent => {
    const ctx = withAgent(agent);
    reuseConnections(ctx);
    return ctx.getAgent() as http.Agent;
  };

  it('gives requests with the same server credentials one keep-alive agent, closing idle connections', () => {
    const first = pooled(new https.Agent({ ca: 'CA-1', rejectUnauthorized: true }));
    const second = pooled(new https.Agent({ ca: Buffer.from('CA-1'), rejectUnauthorized: true }));
    expect(first).toBeInstanceOf(https.Agent);
    expect(second).toBe(first);
    const options = (first as http.Agent & { options: http.AgentOptions }).options;
    expect(options.keepAlive).toBe(true);
    expect(options.timeout).toBe(IDLE_SOCKET_MS);
  });

  it('keeps apart other TLS material, another server name and plain http', () => {
    const base = pooled(new https.Agent({ ca: 'CA-1' }));
    expect(pooled(new https.Agent({ ca: 'CA-2' }))).not.toBe(base);
    expect(pooled(new https.Agent({ ca: 'CA-1', cert: 'C', key: 'K' }))).not.toBe(base);
    expect(pooled(new https.Agent({ ca: 'CA-1', servername: 'other' }))).not.toBe(base);
    const plain = pooled(new http.Agent());
    expect(plain).not.toBeInstanceOf(https.Agent);
    expect(plain).not.toBe(base);
  });

  it("leaves a proxy's agent, and a request without one, as they are", () => {
    class ProxyAgent extends http.Agent {}
    const proxy = new ProxyAgent();
    expect(pooled(proxy)).toBe(proxy);
    const bare = withAgent(undefined);
    reuseConnections(bare);
    expect(bare.getAgent()).toBeUndefined();
  });
});
