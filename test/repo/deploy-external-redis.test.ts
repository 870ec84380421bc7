// An external Redis through the network policy (docs/deployment.md#an-external-redis): the
// `networkpolicy-external-redis` component, rendered with the real kubectl on top of the base and the `networkpolicy`
// component, adds one NetworkPolicy that lets the bot and worker pods reach one address range on Redis' ports (6379,
// and 6380 for TLS), with the range an overlay's patch sets; the example overlay offers it as a commented option that
// renders when uncommented, and leaves the default render without it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kustomize, kustomizeOverlay, kustomizeWithComponent, ROOT, type Obj } from '../support/kustomize.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const NAME = 'flink-chatops-external-redis';
const EXAMPLE = 'deploy/overlays/example';
const CIDR = '10.20.30.0/24';
const APP_PODS = { 'app.kubernetes.io/name': 'flink-chatops' };

const policies = (objects: Obj[]) => objects.filter((o) => o.kind === 'NetworkPolicy') as Loose[];
const named = (objects: Obj[], name: string): Loose => policies(objects).find((p) => p.metadata.name === name);
const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The example overlay with its commented external-Redis lines switched on: `# - …` and `#   …` lose their `# `. */
function exampleUncommented(): Obj[] {
  const dir = join(ROOT, EXAMPLE);
  const text = readFileSync(join(dir, 'kustomization.yaml'), 'utf8').replace(/^(\s*)# (?=- |\s)/gm, '$1');
  const files = Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== 'kustomization.yaml')
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
  return kustomizeOverlay(text, ROOT, files);
}

let withoutIt: Obj[];
let withIt: Obj[];
let patched: Obj[];
let example: Obj[];
let uncommented: Obj[];

beforeAll(() => {
  withoutIt = kustomizeWithComponent('networkpolicy');
  withIt = kustomizeWithComponent(['networkpolicy', 'networkpolicy-external-redis']);
  patched = kustomizeOverlay(
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources: [../../base, ../../redis]',
      'components: [../../components/networkpolicy, ../../components/networkpolicy-external-redis]',
      'patches:',
      `  - target: { kind: NetworkPolicy, name: ${NAME} }`,
      '    patch: |-',
      `      - { op: replace, path: /spec/egress/0/to/0/ipBlock/cidr, value: ${CIDR} }`,
      '',
    ].join('\n'),
  );
  example = kustomize(EXAMPLE);
  uncommented = exampleUncommented();
}, 180_000);

describe('deploy/components/networkpolicy-external-redis', () => {
  it('lets the bot and worker pods reach the range an overlay sets, on 6379 and 6380 only', () => {
    const policy = named(patched, NAME);
    expect(policy.spec.podSelector).toEqual({ matchLabels: APP_PODS });
    expect(policy.spec.policyTypes).toEqual(['Egress']);
    expect(policy.spec.ingress).toBeUndefined();
    expect(policy.spec.egress).toEqual([
      {
        to: [{ ipBlock: { cidr: CIDR } }],
        ports: [
          { port: 6379, protocol: 'TCP' },
          { port: 6380, protocol: 'TCP' },
        ],
      },
    ]);
  });

  it('selects the pods of both roles and not Redis', () => {
    const selector = named(withIt, NAME).spec.podSelector.matchLabels as Record<string, string>;
    const podLabels = (name: string) =>
      (withIt.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as Loose).spec.template.metadata.labels;
    const selects = (labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(selects(podLabels('flink-chatops-bot'))).toBe(true);
    expect(selects(podLabels('flink-chatops-worker'))).toBe(true);
    const redis: Loose = withIt.find((o) => o.kind === 'StatefulSet');
    expect(selects(redis.spec.template.metadata.labels)).toBe(false);
  });

  it('adds that one NetworkPolicy and changes nothing else', () => {
    expect(withIt.map(key).filter((k) => !withoutIt.map(key).includes(k))).toEqual([
      `NetworkPolicy/flink-chatops/${NAME}`,
    ]);
    expect(withIt.filter((o) => o.metadata.name !== NAME)).toEqual(withoutIt);
  });
});

describe(`${EXAMPLE} and the external Redis`, () => {
  it('renders by default without it: the in-cluster Redis only, no address range', () => {
    expect(named(example, NAME)).toBeUndefined();
    expect(JSON.stringify(policies(example))).not.toContain('ipBlock');
    expect(
      policies(example)
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(
      policies(withoutIt)
        .map((p) => p.metadata.name)
        .sort(),
    );
  });

  it('offers it as a commented option that, uncommented, allows the range it names', () => {
    const policy = named(uncommented, NAME);
    expect(policy.spec.egress[0].to).toEqual([{ ipBlock: { cidr: CIDR } }]);
    expect(policy.spec.egress[0].ports.map((p: Loose) => p.port)).toEqual([6379, 6380]);
    expect(uncommented.filter((o) => o.metadata.name !== NAME)).toEqual(example);
  });
});
