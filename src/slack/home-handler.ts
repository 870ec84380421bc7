// App Home (docs/lifecycle.md#app-home): `app_home_opened` and the Refresh button each publish the viewer's Home with
// one views.publish.
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { HomeService } from '../app/home.js';
import type { Logger } from '../log.js';
import { HOME_REFRESH_ACTION, renderHome } from './blocks/home.js';

export interface HomeDeps {
  home: HomeService;
  command: string;
  logger: Logger;
  now: () => number;
}

/** Builds and publishes `user`'s Home; never throws (a fault is logged: the tab keeps its last view). */
export async function publishHome(deps: HomeDeps, client: webApi.WebClient, user: string): Promise<void> {
  try {
    const view = await deps.home.build(user);
    const home = renderHome(view, { now: deps.now(), command: deps.command });
    await client.views.publish({
      user_id: user,
      view: { type: 'home', blocks: home.blocks as unknown as webApi.KnownBlock[] },
    });
  } catch (error) {
    deps.logger.error({ err: error, user }, 'could not publish App Home');
  }
}

export function registerHomeHandlers(app: App, deps: HomeDeps): void {
  // Bolt acknowledges events before the listener runs, so the 3 s answer never waits for Redis or Slack.
  app.event('app_home_opened', async ({ event, client, context }) => {
    // A timeout retry comes while the first delivery is still publishing: one open, one views.publish.
    if (event.tab !== 'home' || context.retryReason === 'http_timeout') return;
    await publishHome(deps, client, event.user);
  });
  app.action<BlockAction<ButtonAction>>(HOME_REFRESH_ACTION, async ({ ack, body, client }) => {
    await ack();
    await publishHome(deps, client, body.user.id);
  });
}
