// The page's state kept current from the server's `message` events: posts, edits, deletions, ephemerals, unread counts.

const byTs = (a, b) => Number(a.ts) - Number(b.ts);
export const isReply = (m) => m.thread_ts !== undefined && m.thread_ts !== m.ts && m.subtype !== 'thread_broadcast';

function upsert(list, message) {
  const i = list.findIndex((m) => m.ts === message.ts);
  if (i >= 0) list[i] = message;
  else list.push(message);
  list.sort(byTs);
}

/** Shown, shown again in its place (a response_url's replace_original), or deleted (delete_original). */
function applyEphemeral(S, event, viewing) {
  const d = S.data;
  const e = event.ephemeral;
  const same = (x) => x.ts === e.ts && x.user === e.user && x.channel === e.channel;
  const i = d.ephemerals.findIndex(same);
  if (event.kind === 'ephemeral_deleted') {
    if (i >= 0) d.ephemerals.splice(i, 1);
    return;
  }
  if (i >= 0) {
    d.ephemerals[i] = e;
    return;
  }
  d.ephemerals.push(e);
  d.ephemerals.sort(byTs);
  if (e.user === S.me && event.channel !== viewing) S.unread[event.channel] = (S.unread[event.channel] ?? 0) + 1;
}

/** One event into `S.data`; `viewing`: the channel (or DM) shown, where nothing counts as unread. */
export function applyMessageEvent(S, event, viewing) {
  const d = S.data;
  const { channel } = event;
  if (event.kind === 'ephemeral' || event.kind === 'ephemeral_deleted') return applyEphemeral(S, event, viewing);
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
  if (event.kind === 'posted' && channel !== viewing && !isReply(m)) S.unread[channel] = (S.unread[channel] ?? 0) + 1;
}
