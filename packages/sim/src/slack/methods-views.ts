// views.publish: a person's Home tab, validated as Slack validates views (Block Kit, 100 blocks, 250 kB), kept per user.
import { randomBytes } from 'node:crypto';
import { type Args, str } from './args.js';
import { withBlockIds } from './block-ids.js';
import { validateBlocks } from './blockkit-limits.js';
import { fail } from './content.js';
import type { Handler } from './methods-chat.js';
import type { SimHomeView } from './types.js';

/** The whole view as JSON (as Slack takes it in views.open / views.publish). */
const MAX_VIEW_BYTES = 250_000;
const VIEW_KEYS = ['type', 'blocks', 'private_metadata', 'callback_id', 'external_id'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(messages: string[]): ReturnType<Handler> {
  return fail('invalid_arguments', { response_metadata: { messages: messages.map((m) => `[ERROR] ${m}`) } });
}

/** What is wrong with a Home view, in Slack's words, or an empty list. */
function viewProblems(view: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (view.type !== 'home') problems.push('must be a valid enum value [json-pointer:/view/type]');
  for (const key of Object.keys(view))
    if (!VIEW_KEYS.includes(key)) problems.push(`invalid additional property: ${key} [json-pointer:/view]`);
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000) {
    problems.push('must be less than 3001 characters [json-pointer:/view/private_metadata]');
  }
  const verdict = validateBlocks(view.blocks, 'view');
  if (!verdict.ok)
    problems.push(
      ...(verdict.errors ?? [`${verdict.error} [json-pointer:/view/blocks]`]).map((e) =>
        e.replace('[json-pointer:/blocks', '[json-pointer:/view/blocks'),
      ),
    );
  if (JSON.stringify(view).length > MAX_VIEW_BYTES)
    problems.push(`the view is larger than ${MAX_VIEW_BYTES} bytes [json-pointer:/view]`);
  return problems;
}

function readView(args: Args): Record<string, unknown> | undefined {
  const view = args.view;
  return isObj(view) ? view : undefined;
}

export const viewsPublish: Handler = (args, { ws }) => {
  const user = str(args, 'user_id');
  if (user === undefined || !ws.users.has(user)) return fail('user_not_found');
  const view = readView(args);
  if (view === undefined) return invalid(['missing required field: view [json-pointer:/view]']);
  const problems = viewProblems(view);
  if (problems.length > 0) return invalid(problems);
  const previous = ws.homes.get(user);
  const hash = str(args, 'hash');
  if (hash !== undefined && previous !== undefined && hash !== previous.hash) return fail('hash_conflict');
  const published: SimHomeView = {
    id: previous?.id ?? `V${randomBytes(5).toString('hex').toUpperCase()}`,
    user,
    view: structuredClone({ ...view, blocks: withBlockIds(view.blocks as unknown[]) }) as SimHomeView['view'],
    hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`,
    publishedAt: Date.now(),
  };
  ws.homes.set(user, published);
  return {
    ok: true,
    view: {
      id: published.id,
      team_id: ws.bot.teamId,
      app_id: ws.bot.appId,
      bot_id: ws.bot.botId,
      hash: published.hash,
      ...published.view,
    },
  };
};
