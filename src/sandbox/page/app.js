// The sandbox page: state from the server's event stream, the channel, thread and cluster views, the composer.
import { renderCluster } from './cluster.js';
import { wireComposer } from './composer.js';
import { renderBlocks } from './blocks.js';
import { emptyNote, messageNode, renderList } from './messages.js';

const $ = (id) => document.getElementById(id);
/** The app's Home tab, shown where a channel would be (SPEC §8). */
const HOME = 'HOME';
/** `clusterShown`: the cluster panel's selector: one cluster's name, or ALL_CLUSTERS. */
const ALL_CLUSTERS = '';
const S = { data: null, me: sessionStorage.getItem('sandbox-user') ?? 'U0ALICE', channel: 'C0DATAPLATFORM', thread: null, highlight: null, unread: {}, clusterShown: sessionStorage.getItem('sandbox-cluster') ?? ALL_CLUSTERS };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- server calls ----

async function api(path, body) {
  try {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
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

// ---- state updates from events ----

const byTs = (a, b) => Number(a.ts) - Number(b.ts);
const isReply = (m) => m.thread_ts !== undefined && m.thread_ts !== m.ts && m.subtype !== 'thread_broadcast';

function upsert(list, message) {
  const i = list.findIndex((m) => m.ts === message.ts);
  if (i >= 0) list[i] = message;
  else list.push(message);
  list.sort(byTs);
}

function applyMessageEvent(event) {
  const d = S.data;
  const { channel } = event;
  if (event.kind === 'ephemeral') {
    const e = event.ephemeral;
    if (!d.ephemerals.some((x) => x.ts === e.ts && x.user === e.user && x.channel === e.channel)) d.ephemerals.push(e);
    d.ephemerals.sort(byTs);
    if (e.user === S.me && channel !== S.channel) S.unread[channel] = (S.unread[channel] ?? 0) + 1;
    return;
  }
  const m = event.message;
  const top = (d.messages[channel] ??= []);
  const threads = (d.threads[channel] ??= {});
  if (event.kind === 'deleted') {
    d.messages[channel] = top.filter((x) => x.ts !== m.ts);
    for (const ts of Object.keys(threads)) threads[ts] = threads[ts].filter((x) => x.ts !== m.ts);
    return;
  }
  if (isReply(m)) {
    const replies = (threads[m.thread_ts] ??= []);
    upsert(replies, m);
    const parent = top.find((x) => x.ts === m.thread_ts);
    if (parent && event.kind === 'posted') {
      parent.reply_count = replies.length;
      parent.latest_reply = replies[replies.length - 1].ts;
    }
  } else {
    upsert(top, m);
  }
  if (event.kind === 'posted' && channel !== S.channel && !isReply(m)) S.unread[channel] = (S.unread[channel] ?? 0) + 1;
}

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
  return S.data.ephemerals.filter((e) => e.user === S.me && e.channel === channel && (threadTs ? e.thread_ts === threadTs : !e.thread_ts));
}

function item(m, ephemeral) {
  return { key: `${ephemeral ? 'e' : 'm'}:${m.ts}`, signature: `${S.me}|${S.highlight}|${JSON.stringify(m)}`, m, ephemeral };
}

function dmsOf(user) {
  return S.data.messages[`D${user.slice(1)}`] ?? S.data.homes?.[user]?.dms ?? [];
}

/** The Home tab the app published for the person at the keyboard, its buttons live, and the app's DMs to them. */
function renderHome() {
  const d = S.data;
  $('channel-name').textContent = `⌂ ${d.bot.name} — Home`;
  $('channel-topic').textContent = 'The app publishes this view for you each time you open it (app_home_opened → views.publish).';
  $('composer').hidden = true;
  const list = $('messages');
  list.replaceChildren();
  const view = d.homes?.[S.me]?.view;
  const ctx = { ...ctxFor(HOME), onAction: (element, block, button) => homeClick(element, block, button) };
  const home = el('div', 'home-view');
  home.append(view ? renderBlocks(view.blocks, ctx) : el('div', 'empty', 'Opening Home… (the app has not published a view for you yet)'));
  list.append(home);
  const dms = dmsOf(S.me);
  if (dms.length > 0) {
    list.append(el('div', 'sidebar-section', `Messages from ${d.bot.name}`));
    for (const m of dms) list.append(messageNode(m, viewFor(HOME, {})));
  }
}

function renderChannel() {
  const d = S.data;
  if (S.channel === HOME) return renderHome();
  $('composer').hidden = false;
  const channel = d.channels.find((c) => c.id === S.channel);
  $('channel-name').textContent = `# ${channel.name}`;
  const defaults = [
    channel.defaultNamespace ? `bare targets mean namespace ${channel.defaultNamespace}` : '',
    channel.defaultCluster ? `targets without a cluster mean cluster ${channel.defaultCluster}` : '',
  ].filter(Boolean);
  $('channel-topic').textContent = [channel.topic, ...defaults].join(' · ');
  $('composer-input').placeholder = `Message #${channel.name} — type ${d.command} help`;
  const items = [...(d.messages[S.channel] ?? []).map((m) => item(m, false)), ...myEphemerals(S.channel).map((e) => item(e, true))];
  items.sort((a, b) => Number(a.m.ts) - Number(b.m.ts));
  const list = $('messages');
  renderList(list, items, (it) =>
    messageNode(it.m, viewFor(S.channel, { ephemeral: it.ephemeral, showReplies: true, onReply: openThread, highlight: it.m.ts === S.highlight })),
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
  const parent = (d.messages[S.channel] ?? []).find((m) => m.ts === S.thread);
  $('thread-channel').textContent = `# ${d.channels.find((c) => c.id === S.channel).name}`;
  const replies = d.threads[S.channel]?.[S.thread] ?? [];
  const items = [...(parent ? [item(parent, false)] : []), ...replies.map((m) => item(m, false)), ...myEphemerals(S.channel, S.thread).map((e) => item(e, true))];
  items.sort((a, b) => Number(a.m.ts) - Number(b.m.ts));
  $('thread-count').textContent = `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`;
  renderList($('thread-messages'), items, (it) => messageNode(it.m, viewFor(S.channel, { ephemeral: it.ephemeral, highlight: it.m.ts === S.highlight })));
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
    b.title = value === ALL_CLUSTERS ? 'Show every simulated cluster' : `Show only cluster ${value} (kubeconfig context ${value})`;
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
    onKnob: (row, knob, on) => void api('/api/knob', { ...(row.cluster ? { cluster: row.cluster } : {}), namespace: row.namespace, name: row.name, knob, on }),
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
  S.unread[id] = 0;
  renderAll();
  if (id === HOME) void api('/api/home', { user: S.me });
  else $('composer-input').focus();
}

function switchUser(id) {
  S.me = id;
  sessionStorage.setItem('sandbox-user', id);
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
  S.unread[S.channel] = 0;
  const top = S.data.messages[S.channel] ?? [];
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
    await api('/api/home-action', { user: S.me, actionId: element.action_id, value: element.value ?? '', blockId: block.block_id ?? '' });
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
    applyMessageEvent(JSON.parse(e.data));
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

const sendTyped = (text, threadTs) => api('/api/command', { user: S.me, channel: S.channel, text, ...(threadTs ? { threadTs } : {}) });
wireComposer({ form: $('composer'), input: $('composer-input'), hints: $('composer-hint'), usage: () => S.data, threadOf: () => undefined, send: sendTyped });
wireComposer({ form: $('thread-composer'), input: $('thread-input'), hints: $('thread-hint'), usage: () => S.data, threadOf: () => S.thread, send: sendTyped });
$('thread-close').addEventListener('click', () => {
  S.thread = null;
  renderThread();
});
connect();
