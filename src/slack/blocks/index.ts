// The Block Kit renderers: pure functions from records and views to Slack messages, always within Slack's limits.
export { ACTION_IDS, approvalBlockId, digestPrefixFromBlockId, renderCard } from './card.js';
export {
  ALERT_ACTION_IDS,
  alertButtonValue,
  renderAlert,
  renderAlertDigest,
  type AlertAction,
  type AlertView,
} from './alert.js';
export { renderIncidentDigest } from './digest.js';
export { renderExceptions, renderSavepoints } from './history.js';
export { enforceLimits, SLACK_LIMITS, TOTAL_BUDGET } from './limits.js';
export { renderLogs } from './logs.js';
export { LIST_ACTION_IDS, listButtonValue, readListValue, type ListButton } from './list-page.js';
export { nextStep } from './next.js';
export { renderOp } from './op.js';
export {
  renderExplain,
  renderHelp,
  renderList,
  renderLocks,
  renderNotice,
  renderOps,
  renderRefusal,
  renderStatus,
} from './queries.js';
export { escapeKeepMentions, escapeText, slackDate, stateNameCount } from './text.js';
export { amendedEntry, carriedBy, renderThreadReply, threadReplyWanted } from './thread.js';
export type { RenderContext, SlackMessage } from './message.js';
