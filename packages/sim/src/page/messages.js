// Messages as a Slack client shows them: author, time, Block Kit or mrkdwn, replies, ephemerals only for their user.
import { renderBlocks, renderMrkdwn } from './blocks.js';
import { el } from './dom.js';

const pad = (n) => String(n).padStart(2, '0');

export function clock(ts) {
  const d = new Date(Number(ts) * 1000);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const COLORS = ['#e8912d', '#2bac76', '#1264a3', '#cd2553', '#6f42c1', '#0b7a75'];

function avatar(name, isBot) {
  const a = el('div', `avatar${isBot ? ' avatar-bot' : ''}`, isBot ? '⚙' : (name[0] ?? '?').toUpperCase());
  if (!isBot) a.style.background = COLORS[[...name].reduce((h, c) => h + c.charCodeAt(0), 0) % COLORS.length];
  a.setAttribute('aria-hidden', 'true');
  return a;
}

/**
 * One message or ephemeral. view: { ctx (for blocks), userName(id), isBotMessage, ephemeral, showReplies,
 * onOpenThread(ts), onReply(ts), highlight }.
 */
export function messageNode(m, view) {
  const isBot = view.ephemeral || Boolean(m.bot_id);
  const author = view.ephemeral ? view.botName : isBot ? (m.bot_profile?.name ?? view.botName) : view.userName(m.user);
  const node = el(
    'div',
    `message${view.ephemeral ? ' ephemeral' : ''}${isBot ? ' from-bot' : ''}${view.highlight ? ' highlight' : ''}`,
  );
  node.dataset.ts = m.ts;
  node.append(avatar(author, isBot));
  const body = el('div', 'message-body');
  const meta = el('div', 'meta');
  meta.append(el('span', 'author', author));
  if (isBot) meta.append(el('span', 'app-badge', 'APP'));
  meta.append(el('span', 'time', clock(m.ts)));
  if (m.edited) meta.append(el('span', 'edited', '(edited)'));
  body.append(meta);
  if (view.ephemeral) {
    const only = el('div', 'only-you', '👁 Only visible to you');
    if (m.command) only.append(el('code', 'typed-command', m.command));
    body.append(only);
  }
  const content = el('div', 'content');
  if (Array.isArray(m.blocks) && m.blocks.length > 0)
    content.append(renderBlocks(m.blocks, { ...view.ctx, message: m }));
  else content.append(renderMrkdwn(m.text ?? '', view.ctx));
  body.append(content);
  if (view.showReplies && (m.reply_count ?? 0) > 0) {
    const replies = el('button', 'replies-link', `${m.reply_count} ${m.reply_count === 1 ? 'reply' : 'replies'}`);
    replies.type = 'button';
    replies.addEventListener('click', () => view.onOpenThread(m.ts));
    const line = el('div', 'replies-line');
    line.append(replies);
    if (m.latest_reply) line.append(el('span', 'last-reply', `Last reply ${clock(m.latest_reply)}`));
    body.append(line);
  }
  node.append(body);
  if (view.onReply && !view.ephemeral) {
    const reply = el('button', 'reply-action', '💬');
    reply.type = 'button';
    reply.title = 'Reply in thread';
    reply.setAttribute('aria-label', 'Reply in thread');
    reply.addEventListener('click', () => view.onReply(m.ts));
    node.append(reply);
  }
  return node;
}

function myEphemerals(S, channel, threadTs) {
  return S.data.ephemerals.filter(
    (e) => e.user === S.me && e.channel === channel && (threadTs ? e.thread_ts === threadTs : !e.thread_ts),
  );
}

/** A list item; its signature changes whenever the node would (the person acting, the highlight, the message). */
function item(S, m, ephemeral) {
  return {
    key: `${ephemeral ? 'e' : 'm'}:${m.ts}`,
    signature: `${S.me}|${S.highlight}|${JSON.stringify(m)}`,
    m,
    ephemeral,
  };
}

/** A channel's (or DM's) messages with the person's ephemerals there, oldest first; in one thread with `threadTs`. */
export function itemsOf(S, channel, threadTs) {
  const d = S.data;
  const messages = threadTs
    ? [...(d.messages[channel] ?? []).filter((m) => m.ts === threadTs), ...(d.threads[channel]?.[threadTs] ?? [])]
    : (d.messages[channel] ?? []);
  const items = [
    ...messages.map((m) => item(S, m, false)),
    ...myEphemerals(S, channel, threadTs).map((e) => item(S, e, true)),
  ];
  return items.sort((a, b) => Number(a.m.ts) - Number(b.m.ts));
}

/**
 * Re-renders a list keyed by ts, reusing nodes whose content did not change (no flicker, buttons stay put),
 * and keeps the view at the bottom when it was there.
 */
export function renderList(container, items, build) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  const existing = new Map([...container.children].map((c) => [c.dataset.key, c]));
  const keep = new Set();
  let previous = null;
  for (const item of items) {
    const key = item.key;
    const signature = item.signature;
    let node = existing.get(key);
    if (!node || node.dataset.signature !== signature) {
      const fresh = build(item);
      fresh.dataset.key = key;
      fresh.dataset.signature = signature;
      if (node) node.replaceWith(fresh);
      node = fresh;
    }
    keep.add(key);
    const expectedNext = previous ? previous.nextSibling : container.firstChild;
    if (expectedNext !== node) container.insertBefore(node, expectedNext);
    previous = node;
  }
  for (const [key, node] of existing) if (!keep.has(key)) node.remove();
  if (atBottom) container.scrollTop = container.scrollHeight;
}

/** The day separators and empty-channel note are left out on purpose: the sandbox lives for one session. */
export function emptyNote(container, text) {
  if (container.children.length === 0) container.append(el('div', 'empty-note', text));
}
