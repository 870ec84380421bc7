// The sidebar: channels with their unread counts, the app's Home and DM, the people one can act as, the policy file.
import { DMS, dmChannelOf, renderDmLink } from './dms.js';
import { el } from './dom.js';
import { HOME } from './home.js';

function channelLinks(container, S, onChannel) {
  container.replaceChildren();
  for (const c of S.data.channels) {
    const b = el('button', `channel-link${c.id === S.channel ? ' active' : ''}${S.unread[c.id] ? ' unread' : ''}`);
    b.type = 'button';
    b.dataset.channel = c.id;
    b.append(el('span', 'hash', '#'), el('span', '', c.name));
    if (S.unread[c.id]) b.append(el('span', 'badge', String(S.unread[c.id])));
    b.addEventListener('click', () => onChannel(c.id));
    container.append(b);
  }
}

function homeLink(container, S, onChannel) {
  container.replaceChildren();
  const home = el('button', `channel-link${S.channel === HOME ? ' active' : ''}`);
  home.type = 'button';
  home.dataset.channel = HOME;
  home.append(el('span', 'hash', '⌂'), el('span', '', `${S.data.bot.name} Home`));
  home.addEventListener('click', () => onChannel(HOME));
  container.append(home);
}

function userLinks(container, S, onUser) {
  container.replaceChildren();
  for (const u of S.data.users) {
    const b = el('button', `user-link${u.id === S.me ? ' active' : ''}`);
    b.type = 'button';
    b.dataset.user = u.id;
    b.setAttribute('aria-pressed', String(u.id === S.me));
    b.title = `${u.realName}: ${u.title}`;
    const groups = u.groups.length > 0 ? u.groups.join(', ') : 'no policy group';
    b.append(el('span', 'user-name', u.name), el('span', 'user-groups', groups));
    b.addEventListener('click', () => onUser(u.id));
    container.append(b);
  }
}

/** `S`: the page's state, read only; `onChannel(id)`: a channel, HOME or DMS chosen; `onUser(id)`: act as that person. */
export function renderSidebar($, S, { onChannel, onUser }) {
  const d = S.data;
  channelLinks($('channels'), S, onChannel);
  homeLink($('apps'), S, onChannel);
  const dm = dmChannelOf(d, S.me);
  renderDmLink($('dms'), {
    d,
    me: S.me,
    active: S.channel === DMS,
    unread: S.unread[dm],
    onOpen: () => onChannel(DMS),
  });
  userLinks($('users'), S, onUser);
  const me = d.users.find((u) => u.id === S.me);
  $('me').textContent = me ? `You are ${me.name} (${me.title})` : '';
  $('policy-file').textContent = d.policyFile.split('/').slice(-2).join('/');
  $('policy-file').title = d.policyFile;
}
