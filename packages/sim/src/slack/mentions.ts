// What Slack makes of a message's markup: the mentions that notify someone and the links it shows. Slack parses
// `<@U…>`, `<!channel>`/`<!here>`/`<!everyone>`, `<!subteam^S…>`, `<#C…>` and `<url|label>` in mrkdwn text and in a
// message's `text`; unless a text object is `verbatim`, it also links bare `scheme://…` and `www.…` URLs and reads
// `@channel`, `@here`, `@everyone` as broadcasts. Entities (`&lt;`) and plain_text objects are only text.

export type SimMention =
  | { kind: 'user'; id: string }
  | { kind: 'broadcast'; name: string }
  | { kind: 'usergroup'; id: string }
  | { kind: 'channel'; id: string }
  | { kind: 'link'; url: string };

const TOKEN = /<([@#!])([^<>|\s]+)(?:\|[^<>]*)?>|<([A-Za-z][A-Za-z0-9+.-]*:[^<>|\s]+)(?:\|[^<>]*)?>/g;
const BARE_URL = /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>]+|(?<![\w.-])www\.[^\s<>]+/g;
const BARE_BROADCAST = /(?<![\w.])@(channel|here|everyone)\b/g;

function tokens(text: string): SimMention[] {
  const out: SimMention[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const [, sigil, body, url] = m;
    if (url !== undefined) out.push({ kind: 'link', url });
    else if (sigil === '@') out.push({ kind: 'user', id: body as string });
    else if (sigil === '#') out.push({ kind: 'channel', id: body as string });
    else if (body?.startsWith('subteam^')) out.push({ kind: 'usergroup', id: body.slice('subteam^'.length) });
    else if (body === 'channel' || body === 'here' || body === 'everyone') out.push({ kind: 'broadcast', name: body });
  }
  return out;
}

/** The mentions and links Slack finds in one mrkdwn text. */
export function mentionsInText(text: string, verbatim = false): SimMention[] {
  const out = tokens(text);
  if (verbatim) return out;
  const bare = text.replace(TOKEN, ' ');
  for (const m of bare.matchAll(BARE_URL)) out.push({ kind: 'link', url: m[0] });
  for (const m of bare.matchAll(BARE_BROADCAST)) out.push({ kind: 'broadcast', name: m[1] as string });
  return out;
}

/** Every mrkdwn text object in `blocks` (section text and fields, context elements), with its `verbatim`. */
function mrkdwnTexts(value: unknown, out: { text: string; verbatim: boolean }[] = []): typeof out {
  if (Array.isArray(value)) for (const v of value) mrkdwnTexts(v, out);
  else if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push({ text: o.text, verbatim: o.verbatim === true });
    else for (const v of Object.values(o)) mrkdwnTexts(v, out);
  }
  return out;
}

/** The mentions and links of a posted message (its `text`, its blocks' and attachments' mrkdwn), as Slack finds them. */
export function mentionsIn(message: { text?: string; blocks?: unknown; attachments?: unknown }): SimMention[] {
  const texts = [...mrkdwnTexts(message.blocks), ...mrkdwnTexts(message.attachments)];
  if (typeof message.text === 'string') texts.unshift({ text: message.text, verbatim: false });
  return texts.flatMap((t) => mentionsInText(t.text, t.verbatim));
}
