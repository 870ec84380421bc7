// The sandbox page: its state from the server's event stream, the channel and thread views, navigation and clicks;
// it wires the sidebar, the cluster panel and the composers to them.
import { api } from './api.js';
import { ALL_CLUSTERS, renderCluster, renderClusterTabs } from './cluster.js';
import { wireComposer } from './composer.js';
import { DMS, dmChannelOf, renderDms } from './dms.js';
import { applyMessageEvent } from './events.js';
import { HOME, renderHome } from './home.js';
import { emptyNote, itemsOf, messageNode, renderList } from './messages.js';
import { renderSidebar } from './sidebar.js';

const $ = (id) => document.getElementById(id);
/** `clusterShown`: the cluster panel's selector: one cluster's name, or ALL_CLUSTERS. */
const S = {
  data: null,
  me: sessionStorage.getItem('sandbox-user') ?? 'U0ALICE',
  channel: 'C0DATAPLATFORM',
  thread: null,
  highlight: null,
  unread: {},
  clusterShown: sessionStorage.getItem('sandbox-cluster') ?? ALL_CLUSTERS,
};

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
    return renderDms($, { d, me: S.me, items: itemsOf(S, dm), build });
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
  renderList(list, itemsOf(S, S.channel), (it) =>
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
  renderList($('thread-messages'), itemsOf(S, shown, S.thread), (it) =>
    messageNode(it.m, viewFor(shown, { ephemeral: it.ephemeral, highlight: it.m.ts === S.highlight })),
  );
}

/** What the sidebar's links do. */
const NAV = { onChannel: switchChannel, onUser: switchUser };

function showCluster(value) {
  S.clusterShown = value;
  sessionStorage.setItem('sandbox-cluster', value);
  renderClusterPanel();
}

function renderClusterPanel() {
  const names = S.data.clusters ?? [];
  if (S.clusterShown !== ALL_CLUSTERS && !names.includes(S.clusterShown)) S.clusterShown = ALL_CLUSTERS;
  renderClusterTabs($, { names, shown: S.clusterShown, onShow: showCluster });
  renderCluster($('cluster-rows'), S.data.cluster, {
    knobs: S.data.knobs,
    shown: S.clusterShown === ALL_CLUSTERS ? undefined : S.clusterShown,
    releases: S.data.releases,
    onKnob: (row, knob, on) =>
      void api('/api/knob', {
        ...(row.cluster ? { cluster: row.cluster } : {}),
        namespace: row.namespace,
        name: row.name,
        knob,
        on,
      }),
    gitops: S.data.gitops,
    onGitops: (row, controller) =>
      void api('/api/gitops', {
        ...(row.cluster ? { cluster: row.cluster } : {}),
        kind: row.kind,
        namespace: row.namespace,
        name: row.name,
        controller,
      }),
  });
}

function renderAll() {
  renderSidebar($, S, NAV);
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
    renderSidebar($, S, NAV);
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
