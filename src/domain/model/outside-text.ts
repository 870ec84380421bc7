// Text written outside the bot — Flink exception messages, Kubernetes Event messages, status.error, log lines,
// resource names and annotations — is data when the bot shows it in Slack (docs/operating.md#outside-text): it can
// neither mention anyone nor link anywhere. Pure; the Slack renderers escape `&`, `<`, `>` on top of it.

/** U+2060 WORD JOINER: invisible, and no mention, link or URL Slack recognises runs across it. */
export const JOINER = '\u2060';

/** `<@…`, `<#…`, `<!…` and `<scheme:…`: how Slack writes a mention, a channel, a broadcast or a link. */
const CONTROL = /<(?=[@#!]|[A-Za-z][A-Za-z0-9+.-]{0,31}:)/g;
/** What Slack turns into a link (`https://…`, `www.…`) or a broadcast (`@channel`) by itself, unless verbatim. */
const AUTO_LINK = /:(?=\/\/)|(?<![\w.-])www(?=\.)|(?<![\w.])@(?=(?:channel|here|everyone)\b)/gi;

/**
 * `text` with a word joiner inside every sequence Slack would turn into a mention or a link: `<@U1>`, `<!channel>`,
 * `<!subteam^S1>`, `<https://x|y>`, bare `https://…` and `www.…`, `@channel`/`@here`/`@everyone`. Everything else
 * is left as it was; linear in the text's length (two passes, lookarounds of fixed width).
 */
export function outsideText(text: string): string {
  return text.replace(CONTROL, `<${JOINER}`).replace(AUTO_LINK, (m) => `${m}${JOINER}`);
}
