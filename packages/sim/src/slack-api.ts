// The simulated Slack Web API and Socket Mode (tests and the sandbox): the public entry point of slack/.
export { startSimSlack } from './slack/server.js';
export { dmChannelId } from './slack/state.js';
export { BLOCK_KIT_LIMITS, validateBlocks, blocksCharCount, type BlocksVerdict } from './slack/blockkit-limits.js';
export { DEFAULT_RATE_LIMITS } from './slack/ratelimit.js';
export { SIM_METHODS, type SimMethod } from './slack/methods.js';
export { MAX_TEXT_CHARS } from './slack/content.js';
export { mentionsIn, mentionsInText, type SimMention } from './slack/mentions.js';
export type {
  CallFault,
  MessageEventKind,
  RecordedCall,
  RecordedResponse,
  ResponseUrlContext,
  SimChannel,
  SimEphemeral,
  SimEventTarget,
  SimHomeView,
  SimFaults,
  SimMessage,
  SimMessageEvent,
  SimReaction,
  SimSlack,
  SimSlackEvent,
  SimSlackEvents,
  SimSlackOptions,
  SimSocketAck,
  SimSocketDelivery,
  SimSocketEnvelopeType,
  SimSocketEvent,
  SimSocketFailure,
  SimSocketMode,
  SocketDisconnectReason,
  SimUser,
  SimUsergroup,
  SlackMetadata,
} from './slack/types.js';
