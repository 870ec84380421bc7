// The cluster panel: every simulated FlinkDeployment and FlinkSessionJob, live, with the failure knobs as toggles;
// with several simulated clusters, under a heading per cluster (and the selector may show one of them only).
import { el } from './dom.js';

const SHORT_KNOB = {
  'image-pull-failure': 'Image pull fails',
  'image-pull-recovers': 'Image pull recovers',
  'savepoint-failure': 'Savepoints fail',
  'stop-fails-once': 'Stop fails once',
  'task-failovers': 'Task failovers',
  'upgrade-failed': 'Upgrade failed',
  'slow-reconcile': 'Slow reconcile',
  'lose-response': 'Lose next API response',
  'fails-in-1-min': 'Fails in 1 min',
  'restarts-later': 'Restarts 3× later',
  'checkpoints-fail-later': 'Checkpoints fail later',
  'random-failovers': 'Random failovers',
};

/** Knobs about the JobManager pod: a session job has none of its own. */
const DEPLOYMENT_ONLY = new Set(['image-pull-failure', 'image-pull-recovers']);

const TONE = {
  STABLE: 'good',
  RUNNING: 'good',
  READY: 'good',
  DEPLOYED: 'good',
  SUSPENDED: 'muted',
  FINISHED: 'muted',
  UPGRADING: 'busy',
  DEPLOYING: 'busy',
  DEPLOYED_NOT_READY: 'busy',
  CREATED: 'busy',
  RECONCILING: 'busy',
  ROLLING_BACK: 'busy',
  CANCELLING: 'busy',
  RESTARTING: 'busy',
  FAILED: 'bad',
  ERROR: 'bad',
  ROLLED_BACK: 'bad',
  MISSING: 'bad',
  FAILING: 'bad',
};

function chip(label, value) {
  const c = el('span', `chip tone-${TONE[value] ?? 'plain'}`);
  c.append(el('span', 'chip-label', label), el('span', 'chip-value', value));
  return c;
}

function fact(dl, term, value) {
  if (value === undefined || value === '') return;
  dl.append(el('dt', '', term), el('dd', '', value));
}

function savepointText(sp) {
  if (!sp) return 'none';
  if (!sp.at) return sp.location;
  const d = new Date(sp.at);
  return `${sp.location} (${d.toLocaleTimeString()})`;
}

/** The GitOps switch: which simulated controller manages the resource (docs/sandbox.md#gitops-switches). */
function gitopsSwitch(row, view) {
  const wrap = el('label', `gitops${row.gitops ? ' gitops-on' : ''}`);
  const select = el('select', 'gitops-select');
  select.dataset.gitops = row.gitops?.controller ?? 'off';
  select.title = 'Put the resource under a simulated GitOps controller (its marks stay when switched off)';
  for (const choice of view.gitops ?? []) {
    const option = el('option', '', choice.label);
    option.value = choice.id;
    option.selected = choice.id === (row.gitops?.controller ?? 'off');
    select.append(option);
  }
  select.addEventListener('change', () => view.onGitops(row, select.value));
  wrap.append(el('span', 'gitops-label', 'GitOps'), select);
  return wrap;
}

function rowNode(row, view) {
  const node = el('div', 'resource');
  // As a target is written: cluster/namespace/name when the page shows several clusters.
  const target = `${row.cluster ? `${row.cluster}/` : ''}${row.namespace}/${row.name}`;
  node.dataset.target = target;
  node.dataset.kind = row.kind;
  if (row.cluster) node.dataset.cluster = row.cluster;
  const title = el('div', 'resource-title');
  title.append(
    el('span', 'kind-badge', row.kind === 'FlinkSessionJob' ? 'session job' : 'deployment'),
    el('span', 'resource-name', row.name),
  );
  if (row.generation !== undefined) {
    const gen = el(
      'span',
      'generation',
      `gen ${row.generation}${row.observedGeneration !== undefined ? ` · observed ${row.observedGeneration}` : ''}`,
    );
    title.append(gen);
  }
  node.append(title);
  const chips = el('div', 'chips');
  if (row.lifecycleState) chips.append(chip('lifecycle', row.lifecycleState));
  if (row.jobState) chips.append(chip('job', row.jobState));
  if (row.jobManager) chips.append(chip('JM', row.jobManager));
  if (row.reconciliationState) chips.append(chip('reconcile', row.reconciliationState));
  node.append(chips);
  const dl = el('dl', 'facts');
  fact(dl, 'image', row.image);
  fact(dl, 'session cluster', row.sessionCluster);
  fact(dl, 'parallelism', row.parallelism === undefined ? undefined : String(row.parallelism));
  fact(dl, 'upgrade mode', row.upgradeMode);
  fact(dl, 'desired', row.desiredState);
  fact(dl, 'last savepoint', savepointText(row.lastSavepoint));
  fact(dl, 'GitOps', row.gitops ? `${row.gitops.label} (${row.gitops.application})` : undefined);
  node.append(dl);
  if (row.error)
    node.append(el('div', 'resource-error', row.error.length > 300 ? `${row.error.slice(0, 300)}…` : row.error));
  const knobs = el('div', 'knobs');
  for (const knob of view.knobs) {
    if (DEPLOYMENT_ONLY.has(knob.id) && row.kind === 'FlinkSessionJob') continue;
    const on = row.knobs.includes(knob.id);
    const b = el('button', `knob${on ? ' knob-on' : ''}`, SHORT_KNOB[knob.id] ?? knob.id);
    b.type = 'button';
    b.title = `${knob.label}${on ? ' (on: click to turn off)' : ''}`;
    b.dataset.knob = knob.id;
    b.setAttribute('aria-pressed', String(on));
    b.addEventListener('click', () => view.onKnob(row, knob.id, !on));
    knobs.append(b);
  }
  if (view.onGitops) knobs.append(gitopsSwitch(row, view));
  node.append(knobs);
  return node;
}

function clusterHeading(name, release) {
  const h = el('h2', 'cluster-name');
  h.dataset.cluster = name;
  h.append(el('span', '', `cluster ${name}`), el('span', 'cluster-context', `kubeconfig context ${name}`));
  // The operator and its CRDs are upgraded separately, so both releases are named.
  if (release) h.append(el('span', 'cluster-release', `operator ${release.operator} · CRDs ${release.crd}`));
  return h;
}

/** Renders the panel (`view.shown`: only that cluster's rows); a row whose content changed flashes once. */
export function renderCluster(container, rows, view) {
  const previous = new Map(
    [...container.querySelectorAll('.resource')].map((n) => [
      `${n.dataset.kind}:${n.dataset.target}`,
      n.dataset.signature,
    ]),
  );
  container.replaceChildren();
  let cluster;
  let namespace;
  for (const row of rows) {
    if (view.shown !== undefined && row.cluster !== view.shown) continue;
    if (row.cluster !== undefined && row.cluster !== cluster) {
      cluster = row.cluster;
      namespace = undefined;
      container.append(clusterHeading(cluster, view.releases?.[cluster]));
    }
    if (row.namespace !== namespace) {
      namespace = row.namespace;
      container.append(el('h3', 'namespace', namespace));
    }
    const node = rowNode(row, view);
    const signature = JSON.stringify(row);
    node.dataset.signature = signature;
    const before = previous.get(`${row.kind}:${node.dataset.target}`);
    if (before !== undefined && before !== signature) node.classList.add('changed');
    container.append(node);
  }
}

/** The selector's value for every cluster (`shown` below is it or one cluster's name). */
export const ALL_CLUSTERS = '';

/** The selector above the panel: every cluster, or one (shown only when there are several); `onShow(value)`. */
export function renderClusterTabs($, { names, shown, onShow }) {
  const tabs = $('cluster-tabs');
  tabs.hidden = names.length < 2;
  $('cluster-title').textContent = names.length > 1 ? 'Simulated clusters' : 'Simulated cluster';
  tabs.replaceChildren();
  if (names.length < 2) return;
  for (const [value, label] of [[ALL_CLUSTERS, 'All'], ...names.map((n) => [n, n])]) {
    const b = el('button', `cluster-tab${shown === value ? ' active' : ''}`, label);
    b.type = 'button';
    b.dataset.clusterTab = value === ALL_CLUSTERS ? '*' : value;
    b.setAttribute('aria-pressed', String(shown === value));
    b.title =
      value === ALL_CLUSTERS
        ? 'Show every simulated cluster'
        : `Show only cluster ${value} (kubeconfig context ${value})`;
    b.addEventListener('click', () => onShow(value));
    tabs.append(b);
  }
}
