// What a posted or edited message may carry: text, blocks, attachments, metadata, with Slack's error for each fault.
import { type Args, str } from './args.js';
import { validateBlocks } from './blockkit-limits.js';
import { withBlockIds } from './block-ids.js';
import type { SlackMetadata } from './types.js';

export type SlackBody = { ok: boolean } & Record<string, unknown>;

/** Slack truncates longer text on display; the API refuses it. */
export const MAX_TEXT_CHARS = 40_000;

export function fail(error: string, extra: Record<string, unknown> = {}): SlackBody {
  return { ok: false, error, ...extra };
}

export interface Content {
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: SlackMetadata;
}

export type ContentResult = { ok: true; content: Content } | { ok: false; body: SlackBody };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Blocks as Slack checks them, for chat.* methods and response_url bodies alike. */
export function checkBlocks(blocks: unknown): { ok: true } | { ok: false; body: SlackBody } {
  const verdict = validateBlocks(blocks);
  if (verdict.ok) return verdict;
  const extra =
    verdict.errors === undefined
      ? {}
      : { errors: verdict.errors, response_metadata: { messages: verdict.errors.map((e) => `[ERROR] ${e}`) } };
  return { ok: false, body: fail(verdict.error, extra) };
}

function checkMetadata(value: unknown): SlackBody | SlackMetadata {
  if (!isObj(value)) return fail('invalid_metadata_format');
  const { event_type: type, event_payload: payload } = value;
  if (
    typeof type !== 'string' ||
    type === '' ||
    !isObj(payload) ||
    Object.keys(value).some((k) => !['event_type', 'event_payload'].includes(k))
  ) {
    return fail('invalid_metadata_schema', {
      response_metadata: { messages: ['[ERROR] metadata needs a string event_type and an object event_payload'] },
    });
  }
  return { event_type: type, event_payload: payload };
}

/** `requireContent`: postMessage and update need text, blocks or attachments (else no_text). */
export function readContent(args: Args, requireContent: boolean): ContentResult {
  const content: Content = {};
  const text = str(args, 'text');
  if (text !== undefined) {
    if (text.length > MAX_TEXT_CHARS) return { ok: false, body: fail('msg_too_long') };
    content.text = text;
  }
  if (args.blocks !== undefined) {
    const checked = checkBlocks(args.blocks);
    if (!checked.ok) return checked;
    content.blocks = withBlockIds(args.blocks as unknown[]);
  }
  if (args.attachments !== undefined) {
    if (!Array.isArray(args.attachments)) return { ok: false, body: fail('invalid_attachments') };
    content.attachments = args.attachments;
  }
  if (args.metadata !== undefined) {
    const metadata = checkMetadata(args.metadata);
    if ('ok' in metadata) return { ok: false, body: metadata };
    content.metadata = metadata;
  }
  const empty =
    content.text === undefined && (content.blocks ?? []).length === 0 && (content.attachments ?? []).length === 0;
  if (requireContent && empty) return { ok: false, body: fail('no_text') };
  return { ok: true, content };
}
