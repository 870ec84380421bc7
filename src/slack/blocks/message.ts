// The renderers' own types: the Slack message they produce and the context they render in.

/** A Slack message as sent: fallback text (always carries the op id when about one) and blocks. */
export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

export interface RenderContext {
  /** ms; for ages and expiry. */
  now: number;
  /** The slash command, e.g. `/flink`, for usage hints. */
  command: string;
}
