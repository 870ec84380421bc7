// The app's Home tab (docs/lifecycle.md#app-home), shown where a channel would be: the view the app published for the
// person acting.
import { renderBlocks } from './blocks.js';
import { el } from './dom.js';

/** The Home tab's place in the sidebar (`data-channel`). */
export const HOME = 'HOME';

/** `ctx`: the Block Kit context, its onAction sending the click as a Home (view) click. */
export function renderHome($, d, me, ctx) {
  $('channel-name').textContent = `⌂ ${d.bot.name} — Home`;
  $('channel-topic').textContent =
    'The app publishes this view for you each time you open it (app_home_opened → views.publish).';
  $('composer').hidden = true;
  const list = $('messages');
  list.replaceChildren();
  const view = d.homes?.[me]?.view;
  const home = el('div', 'home-view');
  home.append(
    view
      ? renderBlocks(view.blocks, ctx)
      : el('div', 'empty', 'Opening Home… (the app has not published a view for you yet)'),
  );
  list.append(home);
}
