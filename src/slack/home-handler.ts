// App Home (docs/lifecycle.md#app-home): `app_home_opened` and the Refresh button each publish the viewer's Home with
// one views.publish, coalesced per person under a burst (home-publisher.ts). Who may open it is the edge's question
// (edge-guard.ts), asked before any handler here runs.
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { HomeService } from '../app/home.js';
import type { Logger } from '../log.js';
import { HOME_REFRESH_ACTION, renderHome } from './blocks/home.js';
import type { HomePublisher } from './home-publisher.js';

export interface HomeDeps {
  home: HomeService;
  command: string;
  logger: Logger;
  now: () => number;
  /** Coalesces each person's publishes (docs/lifecycle.md#app-home); absent: every request publishes. */
  homes?: Pick<HomePublisher, 'request'>;
}

/** Publishes `user`'s Home, with the next coalesced publish when one is under way; never throws. */
export function publishHome(deps: HomeDeps, client: webApi.WebClient, user: string): Promise<void> {
  return deps.homes ? deps.homes.request(client, user) : publishHomeNow(deps, client, user);
}

/** Builds and publishes `user`'s Home; never throws (a fault is logged: the tab keeps its last view). */
export async function publishHomeNow(deps: HomeDeps, client: webApi.WebClient, user: string): Promise<void> {
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
