// The Web API methods the simulator answers, by name.
import type { Handler } from './methods-chat.js';
import { deleteMessage, getPermalink, postEphemeral, postMessage, reactionsAdd, update } from './methods-chat.js';
import { conversationsOpen } from './methods-im.js';
import { viewsPublish } from './methods-views.js';
import {
  authTest,
  conversationsInfo,
  conversationsMembers,
  history,
  replies,
  usergroupUsers,
  usersInfo,
} from './methods-read.js';

export type { Handler, MethodContext } from './methods-chat.js';

export const METHODS = {
  'auth.test': authTest,
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.delete': deleteMessage,
  'chat.postEphemeral': postEphemeral,
  'chat.getPermalink': getPermalink,
  'conversations.replies': replies,
  'conversations.history': history,
  'conversations.info': conversationsInfo,
  'conversations.members': conversationsMembers,
  'conversations.open': conversationsOpen,
  'users.info': usersInfo,
  'usergroups.users.list': usergroupUsers,
  'reactions.add': reactionsAdd,
  'views.publish': viewsPublish,
} as const satisfies Record<string, Handler>;

export type SimMethod = keyof typeof METHODS;

export const SIM_METHODS = Object.keys(METHODS) as SimMethod[];

export function isSimMethod(name: string): name is SimMethod {
  return Object.hasOwn(METHODS, name);
}
