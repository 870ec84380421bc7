// response_url endpoints: 5 uses within 30 minutes each, replies ephemeral to the command's user unless in_channel.
import { randomBytes } from 'node:crypto';
import { withBlockIds } from './block-ids.js';
import { checkBlocks } from './content.js';
import type { Workspace } from './state.js';
import type { RecordedResponse, ResponseUrlContext, SimEphemeral } from './types.js';

interface Issued {
  context: ResponseUrlContext;
  issuedAt: number;
  uses: number;
  /** A replace_original or delete_original came before the command's ack was shown (it had nothing to act on yet). */
  originalGone?: boolean;
}

export interface ResponseReply {
  status: number;
  text: string;
  recorded: RecordedResponse;
}

export interface ResponseUrlOptions {
  ws: Workspace;
  now: () => number;
  maxUses: number;
  ttlMs: number;
}

type Body = Record<string, unknown>;

export class ResponseUrls {
  private readonly issued = new Map<string, Issued>();

  constructor(private readonly opts: ResponseUrlOptions) {}

  issue(id: string | undefined, context: ResponseUrlContext): string {
    const key = id ?? randomBytes(9).toString('base64url');
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(key))
      throw new Error(`response_url id must be 1-128 letters, digits, _ or - (got ${JSON.stringify(key)})`);
    this.issued.set(key, { context: { ...context }, issuedAt: this.opts.now(), uses: 0 });
    return key;
  }

  /** The context a url was issued with; undefined for an id never issued. */
  context(id: string): ResponseUrlContext | undefined {
    const entry = this.issued.get(id);
    return entry === undefined ? undefined : { ...entry.context };
  }

  /**
   * The command's ack as Slack shows it: an ephemeral to the person in the url's channel, the original its later posts
   * replace or delete. 'superseded' when a reply already replaced or deleted the original before the ack got here
   * (Slack shows the ack before any post to its url; only a test or the page can be that late); undefined for a url
   * without a channel and person.
   */
  showAck(
    id: string,
    ack: { text: string; blocks?: unknown[] },
    command?: string,
  ): SimEphemeral | 'superseded' | undefined {
    const entry = this.issued.get(id);
    const { channel, user } = entry?.context ?? {};
    if (entry === undefined || channel === undefined || user === undefined) return undefined;
    if (entry.originalGone === true) return 'superseded';
    const shown = this.opts.ws.addEphemeral({
      channel,
      user,
      text: ack.text,
      source: 'command',
      ...(ack.blocks === undefined ? {} : { blocks: ack.blocks }),
      ...(command === undefined ? {} : { command }),
    });
    entry.context.ephemeralTs = shown.ts;
    return shown;
  }

  /** An id never issued is accepted and registered at its first use, without a channel to land in. */
  receive(id: string, raw: string): ResponseReply {
    const entry = this.issued.get(id) ?? { context: {}, issuedAt: this.opts.now(), uses: 0 };
    this.issued.set(id, entry);
    entry.uses += 1;
    const at = this.opts.now();
    const body = parse(raw);
    const refuse = (status: number, error: string): ResponseReply => ({
      status,
      text: error,
      recorded: { id, at, status, body: body ?? raw, use: entry.uses, error, context: { ...entry.context } },
    });
    if (at - entry.issuedAt > this.opts.ttlMs) return refuse(404, 'expired_url');
    if (entry.uses > this.opts.maxUses) return refuse(404, 'used_url');
    if (body === undefined) return refuse(400, 'invalid_payload');
    if (body.blocks !== undefined && !checkBlocks(body.blocks).ok) return refuse(400, 'invalid_blocks');
    const hasContent = typeof body.text === 'string' || (Array.isArray(body.blocks) && body.blocks.length > 0);
    if (!hasContent && body.delete_original !== true) return refuse(400, 'no_text');
    const { ephemeralTs, messageTs } = entry.context;
    const onOriginal = body.delete_original === true || body.replace_original === true;
    if (onOriginal && ephemeralTs === undefined && messageTs === undefined && body.response_type !== 'in_channel')
      entry.originalGone = true;
    this.apply(entry.context, body);
    return {
      status: 200,
      text: 'ok',
      recorded: { id, at, status: 200, body, use: entry.uses, context: { ...entry.context } },
    };
  }

  private applyToAck(
    context: ResponseUrlContext,
    body: Body,
    content: { text: string; blocks: unknown[] | undefined },
  ): boolean {
    return applyToAckOf(this.opts.ws, context, body, content);
  }

  /** Makes the reply visible where Slack would show it. */
  private apply(context: ResponseUrlContext, body: Body): void {
    const { ws } = this.opts;
    const { channel, user, messageTs } = context;
    if (channel === undefined) return;
    const text = typeof body.text === 'string' ? body.text : '';
    const blocks = Array.isArray(body.blocks) ? withBlockIds(body.blocks as unknown[]) : undefined;
    if (this.applyToAck(context, body, { text, blocks })) return;
    const original = messageTs === undefined ? undefined : ws.find(channel, messageTs);
    if (body.delete_original === true) {
      if (original !== undefined) ws.remove(channel, original.ts);
      return;
    }
    if (body.replace_original === true && original !== undefined) {
      ws.update(channel, original.ts, { text, blocks: blocks ?? [] });
      return;
    }
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
    if (body.response_type === 'in_channel') {
      ws.post(channel, ws.bot.botUserId, { text, blocks, threadTs });
      return;
    }
    if (user === undefined) return;
    ws.addEphemeral({
      channel,
      user,
      text,
      source: 'response_url',
      ...(blocks === undefined ? {} : { blocks }),
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
    });
  }
}

/**
 * A slash command's own ephemeral (its ack's) is the original of its response_url, as in Slack: `delete_original`
 * removes it, `replace_original` shows the reply in its place. False when neither applies (or it is already gone).
 */
function applyToAckOf(
  ws: Workspace,
  context: ResponseUrlContext,
  body: Body,
  content: { text: string; blocks: unknown[] | undefined },
): boolean {
  const { channel, ephemeralTs } = context;
  if (channel === undefined || ephemeralTs === undefined || body.response_type === 'in_channel') return false;
  if (body.delete_original === true) {
    ws.removeEphemeral(channel, ephemeralTs);
    return true;
  }
  if (body.replace_original !== true) return false;
  return ws.replaceEphemeral(
    channel,
    ephemeralTs,
    content.blocks ? { text: content.text, blocks: content.blocks } : { text: content.text },
  );
}

function parse(raw: string): Body | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
  } catch {
    return undefined;
  }
}
