// The sandbox page: state from the server's event stream, the channel, thread and cluster views, the composer.
import { renderCluster } from './cluster.js';
import { wireComposer } from './composer.js';
import { el } from './dom.js';
import { DMS, dmChannelOf, renderDmLink, renderDms } from './dms.js';
import { applyMessageEvent } from './events.js';
import { HOME, renderHome } from './home.js';
import { emptyNote, messageNode, renderList } from './messages.js';

const $ = (id) => document.getElementById(id);
/** `clusterShown`: the cluster panel's selector: one cluster's name, or ALL_CLUSTERS. */
const ALL_CLUSTERS = '';
const S = {
  data: null,
  me: sessionStorage.getItem('sandbox-user') ?? 'U0ALICE',
  channel: 'C0DATAPLATFORM',
  thread: null,
  highlight: null,
  unread: {},
  clusterShown: sessionStorage.getItem('sandbox-cluster') ?? ALL_CLUSTERS,
};

// ---- server calls ----

async function api(path, body) {
  try {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    if (!res.ok || answer.ok === false) toast(answer.error ?? `HTTP ${res.status}`);
    return answer;
  } catch (error) {
    toast(`The sandbox did not answer: ${error.message}`);
    return { ok: false };
  }
}

function toast(text) {
  const t = el('div', 'toast', text);
  $('toasts').append(t);
  setTimeout(() => t.remove(), 6000);
}

/** The channel shown: a channel's id, or the app's DM with the person acting (Home has none). */
const viewing = () => (S.channel === DMS ? dmChannelOf(S.data, S.me) : S.channel);

// ---- rendering ----

function ctxFor(channel) {
  const d = S.data;
  return {
    userName: (id) => d.users.find((u) => u.id === id)?.name ?? (id === d.bot.userId ? d.bot.name : id),
    channelName: (id) => d.channels.find((c) => c.id === id)?.name ?? id,
    groupHandle: (id) => d.usergroups.find((g) => g.id === id)?.handle ?? id,
    onAction: (element, block, button) => click(channel, element, block, button),
    onLink: (anchor, href) => {
      const url = new URL(href, location.href);
      if (url.origin === location.origin && url.pathname.startsWith('/archives/')) {
        anchor.addEventListener('click', (e) => {
          e.preventDefault();
          openPermalink(url);
        });
      } else {
        anchor.target = '_blank';
        anchor.rel = 'noopener noreferrer';
      }
    },
  };
}

function viewFor(channel, extra) {
  const ctx = ctxFor(channel);
  return { ctx, userName: ctx.userName, botName: S.data.bot.name, onOpenThread: openThread, ...extra };
}

function myEphemerals(channel, threadTs) {
  return S.data.ephemerals.filter(
    (e) => e.user === S.me && e.channel === channel && (threadTs ? e.thread_ts === threadTs : !e.thread_ts),
  );
}

function item(m, ephemeral) {
  return {
    key: `${ephemeral ? 'e' : 'm'}:${m.ts}`,
    signature: `${S.me}|${S.highlight}|${JSON.stringify(m)}`,
    m,
    ephemeral,
  };
}

/** A channel's (or DM's) messages with the person's ephemerals there, oldest first; in one thread with `threadTs`. */
function itemsOf(channel, threadTs) {
  const d = S.data;
  const messages = threadTs
    ? [...(d.messages[channel] ?? []).filter((m) => m.ts === threadTs), ...(d.threads[channel]?.[threadTs] ?? [])]
    : (d.messages[channel] ?? []);
  const items = [...messages.map((m) => item(m, false)), ...myEphemerals(channel, threadTs).map((e) => item(e, true))];
  return items.sort((a, b) => Number(a.m.ts) - Number(b.m.ts));
}

function renderChannel() {
  const d = S.data;
  if (S.channel === HOME) return renderHome($, d, S.me, { ...ctxFor(HOME), onAction: homeClick });
  if (S.channel === DMS) {
    const dm = viewing();
    const build = (it) =>
      messageNode(
        it.m,
        viewFor(dm, { ephemeral: it.ephemeral, showReplies: true, highlight: it.m.ts === S.highlight }),
      );
    return renderDms($, { d, me: S.me, items: itemsOf(dm), build });
  }
  $('composer').hidden = false;
  const channel = d.channels.find((c) => c.id === S.channel);
  $('channel-name').textContent = `# ${channel.name}`;
  const defaults = [
    channel.defaultNamespace ? `bare targets mean namespace ${channel.defaultNamespace}` : '',
    channel.defaultCluster ? `targets without a cluster mean cluster ${channel.defaultCluster}` : '',
  ].filter(Boolean);
  $('channel-topic').textContent = [channel.topic, ...defaults].join(' · ');
  $('composer-input').placeholder = `Message #${channel.name} — type ${d.command} help`;
  const list = $('messages');
  renderList(list, itemsOf(S.channel), (it) =>
    messageNode(
      it.m,
      viewFor(S.channel, {
        ephemeral: it.ephemeral,
        showReplies: true,
        onReply: openThread,
        highlight: it.m.ts === S.highlight,
      }),
    ),
  );
  emptyNote(list, `This is the very beginning of #${channel.name}. Try: ${d.command} scale orders 3`);
}

function renderThread() {
  const panel = $('thread');
  if (!S.thread) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const d = S.data;
  const shown = viewing();
  const channel = d.channels.find((c) => c.id === shown);
  $('thread-channel').textContent = channel ? `# ${channel.name}` : `● ${d.bot.name}`;
  $('thread-composer').hidden = !channel;
  const replies = d.threads[shown]?.[S.thread] ?? [];
  $('thread-count').textContent = `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`;
  renderList($('thread-messages'), itemsOf(shown, S.thread), (it) =>
    messageNode(it.m, viewFor(shown, { ephemeral: it.ephemeral, highlight: it.m.ts === S.highlight })),
  );
}

function renderSidebar() {
  const d = S.data;
  const channels = $('channels');
  channels.replaceChildren();
  for (const c of d.channels) {
    const b = el('button', `channel-link${c.id === S.channel ? ' active' : ''}${S.unread[c.id] ? ' unread' : ''}`);
    b.type = 'button';
    b.dataset.channel = c.id;
    b.append(el('span', 'hash', '#'), el('span', '', c.name));
    if (S.unread[c.id]) b.append(el('span', 'badge', String(S.unread[c.id])));
    b.addEventListener('click', () => switchChannel(c.id));
    channels.append(b);
  }
  const apps = $('apps');
  apps.replaceChildren();
  const home = el('button', `channel-link${S.channel === HOME ? ' active' : ''}`);
  home.type = 'button';
  home.dataset.channel = HOME;
  home.append(el('span', 'hash', '⌂'), el('span', '', `${d.bot.name} Home`));
  home.addEventListener('click', () => switchChannel(HOME));
  apps.append(home);
  const dm = dmChannelOf(d, S.me);
  renderDmLink($('dms'), {
    d,
    me: S.me,
    active: S.channel === DMS,
    unread: S.unread[dm],
    onOpen: () => switchChannel(DMS),
  });
  const users = $('users');
  users.replaceChildren();
  for (const u of d.users) {
    const b = el('button', `user-link${u.id === S.me ? ' active' : ''}`);
    b.type = 'button';
    b.dataset.user = u.id;
    b.setAttribute('aria-pressed', String(u.id === S.me));
    b.title = `${u.realName}: ${u.title}`;
    const groups = u.groups.length > 0 ? u.groups.join(', ') : 'no policy group';
    b.append(el('span', 'user-name', u.name), el('span', 'user-groups', groups));
    b.addEventListener('click', () => switchUser(u.id));
    users.append(b);
  }
  const me = d.users.find((u) => u.id === S.me);
  $('me').textContent = me ? `You are ${me.name} (${me.title})` : '';
  $('policy-file').textContent = d.policyFile.split('/').slice(-2).join('/');
  $('policy-file').title = d.policyFile;
}

/** The selector above the cluster panel: every cluster, or one (shown only when there are several). */
function renderClusterTabs() {
  const names = S.data.clusters ?? [];
  const tabs = $('cluster-tabs');
  tabs.hidden = names.length < 2;
  $('cluster-title').textContent = names.length > 1 ? 'Simulated clusters' : 'Simulated cluster';
  if (S.clusterShown !== ALL_CLUSTERS && !names.includes(S.clusterShown)) S.clusterShown = ALL_CLUSTERS;
  tabs.replaceChildren();
  if (names.length < 2) return;
  for (const [value, label] of [[ALL_CLUSTERS, 'All'], ...names.map((n) => [n, n])]) {
    const b = el('button', `cluster-tab${S.clusterShown === value ? ' active' : ''}`, label);
    b.type = 'button';
    b.dataset.clusterTab = value === ALL_CLUSTERS ? '*' : value;
    b.setAttribute('aria-pressed', String(S.clusterShown === value));
    b.title =
      value === ALL_CLUSTERS
        ? 'Show every simulated cluster'
        : `Show only cluster ${value} (kubeconfig context ${value})`;
    b.addEventListener('click', () => {
      S.clusterShown = value;
      sessionStorage.setItem('sandbox-cluster', value);
      renderClusterPanel();
    });
    tabs.append(b);
  }
}

function renderClusterPanel() {
  renderClusterTabs();
  renderCluster($('cluster-rows'), S.data.cluster, {
    knobs: S.data.knobs,
    shown: S.clusterShown === ALL_CLUSTERS ? undefined : S.clusterShown,
    onKnob: (row, knob, on) =>
      void api('/api/knob', {
        ...(row.cluster ? { cluster: row.cluster } : {}),
        namespace: row.namespace,
        name: row.name,
        knob,
        on,
      }),
  });
}

function renderAll() {
  renderSidebar();
  renderChannel();
  renderThread();
  renderClusterPanel();
}

// ---- navigation and actions ----

function switchChannel(id) {
  S.channel = id;
  S.thread = null;
  S.unread[viewing()] = 0;
  renderAll();
  if (id === HOME) void api('/api/home', { user: S.me });
  else $('composer-input').focus();
}

function switchUser(id) {
  S.me = id;
  sessionStorage.setItem('sandbox-user', id);
  if (S.channel === DMS) S.thread = null;
  S.unread[viewing()] = 0;
  renderAll();
  if (S.channel === HOME) void api('/api/home', { user: S.me });
}

function openThread(ts) {
  S.thread = ts;
  renderThread();
  $('thread-input').focus();
}

function openPermalink(url) {
  const [, , channel, p] = url.pathname.split('/');
  const digits = p.slice(1);
  const ts = `${digits.slice(0, -6)}.${digits.slice(-6)}`;
  navigate(channel, url.searchParams.get('thread_ts') ?? ts, ts);
}

function navigate(channel, thread, highlight) {
  if (S.data.channels.some((c) => c.id === channel)) S.channel = channel;
  else if (channel === dmChannelOf(S.data, S.me)) S.channel = DMS;
  S.unread[viewing()] = 0;
  const top = S.data.messages[viewing()] ?? [];
  S.thread = top.some((m) => m.ts === thread && (m.reply_count ?? 0) > 0) ? thread : null;
  S.highlight = highlight;
  renderAll();
  document.querySelector(`[data-ts="${CSS.escape(highlight)}"]`)?.scrollIntoView({ block: 'center' });
}

async function click(channel, element, block, button) {
  const message = button.closest('.message');
  button.disabled = true;
  try {
    await api('/api/action', {
      user: S.me,
      channel,
      messageTs: message?.dataset.ts,
      threadTs: S.thread ?? undefined,
      actionId: element.action_id,
      value: element.value ?? '',
      blockId: block.block_id ?? '',
    });
  } finally {
    button.disabled = false;
  }
}

async function homeClick(element, block, button) {
  button.disabled = true;
  try {
    await api('/api/home-action', {
      user: S.me,
      actionId: element.action_id,
      value: element.value ?? '',
      blockId: block.block_id ?? '',
    });
  } finally {
    button.disabled = false;
  }
}

// ---- start ----

function connect() {
  const source = new EventSource('/events');
  source.addEventListener('state', (e) => {
    S.data = JSON.parse(e.data);
    if (!S.data.users.some((u) => u.id === S.me)) S.me = S.data.users[0].id;
    document.body.classList.add('ready');
    $('status').textContent = '';
    const [channel, thread, highlight] = location.hash.slice(1).split('/').map(decodeURIComponent);
    if (channel) navigate(channel, thread, highlight ?? thread);
    else renderAll();
  });
  source.addEventListener('message', (e) => {
    if (!S.data) return;
    applyMessageEvent(S, JSON.parse(e.data), viewing());
    renderSidebar();
    renderChannel();
    renderThread();
  });
  source.addEventListener('home', (e) => {
    if (!S.data) return;
    const { user, view } = JSON.parse(e.data);
    S.data.homes[user] = { ...(S.data.homes[user] ?? { dms: [] }), view };
    if (S.channel === HOME && user === S.me) renderChannel();
  });
  source.addEventListener('cluster', (e) => {
    if (!S.data) return;
    S.data.cluster = JSON.parse(e.data);
    renderClusterPanel();
  });
  source.addEventListener('error', () => {
    $('status').textContent = 'Reconnecting to the sandbox…';
  });
}

const sendTyped = (text, threadTs) =>
  api('/api/command', { user: S.me, channel: viewing(), text, ...(threadTs ? { threadTs } : {}) });
wireComposer({
  form: $('composer'),
  input: $('composer-input'),
  hints: $('composer-hint'),
  usage: () => S.data,
  threadOf: () => undefined,
  send: sendTyped,
});
wireComposer({
  form: $('thread-composer'),
  input: $('thread-input'),
  hints: $('thread-hint'),
  usage: () => S.data,
  threadOf: () => S.thread,
  send: sendTyped,
});
$('thread-close').addEventListener('click', () => {
  S.thread = null;
  renderThread();
});
connect();
