// The app's direct messages to the person acting (its Messages tab, read-only): the sidebar entry and the view.
// They render from their Block Kit like channel messages; their buttons go to the bot as the same signed clicks.
import { el } from './dom.js';
import { emptyNote, renderList } from './messages.js';

/** The DM view's place in the sidebar (`data-channel`); the channel it shows depends on who is acting. */
export const DMS = 'DMS';

/** The id of the app's DM with `user` (`D…`), as the simulated Slack opens it. */
export const dmChannelOf = (d, user) => d.dmChannels?.[user] ?? `D${user.slice(1)}`;

/** The sidebar's "Direct messages": the app's DM with the person acting, with its unread count. */
export function renderDmLink(container, { d, me, active, unread, onOpen }) {
  container.replaceChildren();
  const b = el('button', `channel-link${active ? ' active' : ''}${unread ? ' unread' : ''}`);
  b.type = 'button';
  b.dataset.channel = DMS;
  b.dataset.dm = dmChannelOf(d, me);
  b.title = `Direct messages from ${d.bot.name} to you`;
  b.append(el('span', 'hash', '●'), el('span', '', d.bot.name));
  const count = (d.messages[dmChannelOf(d, me)] ?? []).length;
  if (unread) b.append(el('span', 'badge', String(unread)));
  else if (count > 0) b.append(el('span', 'dm-count', String(count)));
  b.addEventListener('click', onOpen);
  container.append(b);
}

/** The DM view. `items`: its messages and the person's ephemerals there, oldest first; `build(item)`: one node. */
export function renderDms($, { d, me, items, build }) {
  const name = d.users.find((u) => u.id === me)?.name ?? me;
  $('channel-name').textContent = `● ${d.bot.name}`;
  $('channel-topic').textContent =
    `Direct messages from the app to ${name} (${dmChannelOf(d, me)}), read-only; act as another person to see theirs.`;
  $('composer').hidden = true;
  const list = $('messages');
  renderList(list, items, build);
  emptyNote(
    list,
    `No direct messages from ${d.bot.name} to ${name} yet. Approvers get one when an operation waits for them.`,
  );
}
