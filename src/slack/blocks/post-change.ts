// The post-change watch in Slack (docs/lifecycle.md#after-completed): the REGRESSED and HEALTHY notes in words, the
// card's line about them, and the Undo button that files a normal `undo <op id>` as whoever clicks it.
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import { UNDOABLE_KINDS } from '../../domain/kinds/index.js';
import { healthyText, isHealthy, isRegression, regressionText } from '../../domain/kit/evidence/regression.js';
import { button, escapeText, section, type Block } from './text.js';

export { isHealthy, isRegression };

/** The Undo button's action id; its value is the operation to undo. */
export const UNDO_ACTION_ID = 'flink_ops_undo';

const capital = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** "Regressed after the change: 3 restarts in 4 min (…)" / "Healthy for 10 min after the change"; else undefined. */
export function postChangeText(entry: HistoryEntry): string | undefined {
  if (isRegression(entry)) return escapeText(capital(regressionText(entry.detail)));
  if (isHealthy(entry)) return escapeText(capital(healthyText(entry.detail)));
  return undefined;
}

/** The thread's line for a post-change note, with its emoji. */
export function postChangeReply(entry: HistoryEntry): string | undefined {
  const text = postChangeText(entry);
  if (text === undefined) return undefined;
  return `${isRegression(entry) ? ':chart_with_downwards_trend:' : ':white_check_mark:'} ${text}`;
}

/** An Undo button for a completed operation that regressed, when its kind can be undone at all. */
export function undoActions(record: OperationRecord): Block | undefined {
  if (record.state !== 'COMPLETED' || !(UNDOABLE_KINDS as readonly string[]).includes(record.kind)) return undefined;
  if (!record.history.some(isRegression)) return undefined;
  return { type: 'actions', elements: [button('Undo', UNDO_ACTION_ID, record.id, 'danger')] };
}

/** The card's line: the regression, or the quiet end of the watch; undefined while it runs or without one. */
export function postChangeSection(record: OperationRecord): Block | undefined {
  const entry = record.history.find((e) => isRegression(e) || isHealthy(e));
  const line = entry === undefined ? undefined : postChangeReply(entry);
  return line === undefined ? undefined : section(`*After the change*\n${line}`);
}
