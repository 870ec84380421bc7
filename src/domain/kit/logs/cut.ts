// How long one log line may be before anything reads it (docs/commands.md#reading-pod-logs): a line is cut to what the
// Slack answer shows at most before masking or a `logs.redact` pattern runs on it, so a megabyte-long line (a record
// quoted in an exception) costs no more than a short one.

/** Characters of one line that are masked and shown; the rest is dropped unread. */
export const MAX_LOG_LINE = 1_000;
/** Appended to a line that was cut. */
export const CUT_MARK = '… (cut)';

/** The line's first MAX_LOG_LINE characters, and whether anything was dropped. */
export function cutLine(line: string): { text: string; cut: boolean } {
  return line.length > MAX_LOG_LINE ? { text: line.slice(0, MAX_LOG_LINE), cut: true } : { text: line, cut: false };
}
