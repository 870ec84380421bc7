// Block Kit validation as Slack applies it to messages: limits, required fields, errors with json-pointers.

export const BLOCK_KIT_LIMITS = {
  blocksPerMessage: 50,
  /** Modals and Home tabs. */
  blocksPerView: 100,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  markdownText: 12_000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  imageUrl: 3000,
  altText: 2000,
  blockId: 255,
  actionId: 255,
  /** msg_blocks_too_long: Slack reports it at ~13.2k characters summed over a message's blocks (bolt-js#2509). */
  totalChars: 13_200,
} as const;

export type BlocksVerdict =
  | { ok: true }
  | { ok: false; error: 'invalid_blocks' | 'invalid_blocks_format' | 'msg_blocks_too_long'; errors?: string[] };

type Obj = Record<string, unknown>;

const L = BLOCK_KIT_LIMITS;
const BLOCK_KEYS: Record<string, readonly string[]> = {
  header: ['text'],
  section: ['text', 'fields', 'accessory', 'expand'],
  divider: [],
  context: ['elements'],
  actions: ['elements'],
  markdown: ['text'],
  rich_text: ['elements'],
  image: ['image_url', 'slack_file', 'alt_text', 'title'],
};
const TEXT_KEYS = ['type', 'text', 'emoji', 'verbatim'];
const BUTTON_KEYS = ['type', 'text', 'action_id', 'url', 'value', 'style', 'confirm', 'accessibility_label'];
const INTERACTIVE_ELEMENTS = new Set([
  'button',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
  'overflow',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'checkboxes',
  'radio_buttons',
  'workflow_button',
]);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly errors: string[] = [];
  private readonly blockIds = new Set<string>();
  markdownChars = 0;

  fail(message: string, pointer: string): void {
    this.errors.push(`${message} [json-pointer:${pointer}]`);
  }

  maxLen(value: string, max: number, pointer: string): void {
    if (value.length > max) this.fail(`must be less than ${max + 1} characters`, pointer);
  }

  maxItems(list: unknown[], max: number, pointer: string): void {
    if (list.length > max) this.fail(`no more than ${max} items allowed`, pointer);
  }

  onlyKeys(o: Obj, allowed: readonly string[], pointer: string): void {
    for (const key of Object.keys(o)) {
      if (!allowed.includes(key)) this.fail(`invalid additional property: ${key}`, pointer);
    }
  }

  /** A composition text object; `types` limits which of plain_text / mrkdwn may appear. */
  text(v: unknown, pointer: string, max: number, types: readonly string[] = ['plain_text', 'mrkdwn']): void {
    if (!isObj(v)) return this.fail('must provide an object', pointer);
    this.onlyKeys(v, TEXT_KEYS, pointer);
    if (typeof v.type !== 'string' || !types.includes(v.type))
      this.fail('must be a valid enum value', `${pointer}/type`);
    if (typeof v.text !== 'string') return this.fail('missing required field: text', pointer);
    if (v.text.length === 0) this.fail('must be more than 0 characters', `${pointer}/text`);
    this.maxLen(v.text, max, `${pointer}/text`);
  }

  id(v: unknown, max: number, pointer: string): void {
    if (v === undefined) return;
    if (typeof v !== 'string') return this.fail('must provide a string', pointer);
    if (v.length === 0) this.fail('must be more than 0 characters', pointer);
    this.maxLen(v, max, pointer);
  }

  block(b: unknown, pointer: string): void {
    if (!isObj(b)) return this.fail('must provide an object', pointer);
    if (typeof b.type !== 'string') return this.fail('missing required field: type', pointer);
    const keys = BLOCK_KEYS[b.type];
    if (keys === undefined) return this.fail(`unsupported block type: ${b.type}`, `${pointer}/type`);
    this.onlyKeys(b, ['type', 'block_id', ...keys], pointer);
    this.id(b.block_id, L.blockId, `${pointer}/block_id`);
    if (typeof b.block_id === 'string') {
      if (this.blockIds.has(b.block_id)) this.fail(`duplicate block_id: ${b.block_id}`, `${pointer}/block_id`);
      this.blockIds.add(b.block_id);
    }
    BLOCK_CHECKS[b.type as keyof typeof BLOCK_CHECKS](this, b, pointer);
  }

  list(b: Obj, key: string, max: number, pointer: string): unknown[] | undefined {
    const v = b[key];
    if (v === undefined) return void this.fail(`missing required field: ${key}`, pointer);
    if (!Array.isArray(v)) return void this.fail('must provide an array', `${pointer}/${key}`);
    if (v.length === 0) this.fail('must provide at least 1 item', `${pointer}/${key}`);
    this.maxItems(v, max, `${pointer}/${key}`);
    return v;
  }

  element(e: unknown, pointer: string, actionIds?: Set<string>): void {
    if (!isObj(e)) return this.fail('must provide an object', pointer);
    if (typeof e.type !== 'string' || (!INTERACTIVE_ELEMENTS.has(e.type) && e.type !== 'image')) {
      return this.fail(`unsupported element type: ${String(e.type)}`, `${pointer}/type`);
    }
    if (e.type === 'image') return this.image(e, pointer);
    this.id(e.action_id, L.actionId, `${pointer}/action_id`);
    if (typeof e.action_id === 'string' && actionIds !== undefined) {
      if (actionIds.has(e.action_id)) this.fail(`duplicate action_id: ${e.action_id}`, `${pointer}/action_id`);
      actionIds.add(e.action_id);
    }
    if (e.type !== 'button') return;
    this.onlyKeys(e, BUTTON_KEYS, pointer);
    if (e.text === undefined) this.fail('missing required field: text', pointer);
    else this.text(e.text, `${pointer}/text`, L.buttonText, ['plain_text']);
    if (e.value !== undefined) {
      if (typeof e.value !== 'string') this.fail('must provide a string', `${pointer}/value`);
      else this.maxLen(e.value, L.buttonValue, `${pointer}/value`);
    }
    if (typeof e.url === 'string') this.maxLen(e.url, L.buttonUrl, `${pointer}/url`);
    if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger') {
      this.fail('must be a valid enum value', `${pointer}/style`);
    }
  }

  image(e: Obj, pointer: string): void {
    if (typeof e.image_url !== 'string' && !isObj(e.slack_file))
      this.fail('missing required field: image_url', pointer);
    if (typeof e.image_url === 'string') this.maxLen(e.image_url, L.imageUrl, `${pointer}/image_url`);
    if (typeof e.alt_text !== 'string') this.fail('missing required field: alt_text', pointer);
    else this.maxLen(e.alt_text, L.altText, `${pointer}/alt_text`);
  }
}

const BLOCK_CHECKS = {
  header: (c: Checker, b: Obj, p: string) => {
    if (b.text === undefined) return c.fail('missing required field: text', p);
    c.text(b.text, `${p}/text`, L.headerText, ['plain_text']);
  },
  section: (c: Checker, b: Obj, p: string) => {
    if (b.text === undefined && b.fields === undefined) return c.fail('missing required field: text', p);
    if (b.text !== undefined) c.text(b.text, `${p}/text`, L.sectionText);
    if (b.fields !== undefined) {
      const fields = c.list(b, 'fields', L.sectionFields, p) ?? [];
      fields.forEach((f, i) => c.text(f, `${p}/fields/${i}`, L.sectionFieldText));
    }
    if (b.accessory !== undefined) c.element(b.accessory, `${p}/accessory`);
  },
  divider: () => undefined,
  context: (c: Checker, b: Obj, p: string) => {
    const elements = c.list(b, 'elements', L.contextElements, p) ?? [];
    elements.forEach((e, i) => {
      if (isObj(e) && e.type === 'image') c.image(e, `${p}/elements/${i}`);
      else c.text(e, `${p}/elements/${i}`, L.sectionText);
    });
  },
  actions: (c: Checker, b: Obj, p: string) => {
    const actionIds = new Set<string>();
    const elements = c.list(b, 'elements', L.actionsElements, p) ?? [];
    elements.forEach((e, i) => c.element(e, `${p}/elements/${i}`, actionIds));
  },
  markdown: (c: Checker, b: Obj, p: string) => {
    if (typeof b.text !== 'string') return c.fail('missing required field: text', p);
    if (b.text.length === 0) c.fail('must be more than 0 characters', `${p}/text`);
    c.maxLen(b.text, L.markdownText, `${p}/text`);
    c.markdownChars += b.text.length;
  },
  rich_text: (c: Checker, b: Obj, p: string) => {
    c.list(b, 'elements', Number.MAX_SAFE_INTEGER, p);
  },
  image: (c: Checker, b: Obj, p: string) => {
    c.image(b, p);
    if (b.title !== undefined) c.text(b.title, `${p}/title`, L.altText, ['plain_text']);
  },
} satisfies Record<keyof typeof BLOCK_KEYS, (c: Checker, b: Obj, p: string) => void>;

/** Every string leaf counts, as Slack counts block containers too, not only the visible text. */
export function blocksCharCount(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + blocksCharCount(x), 0);
  if (isObj(v)) return Object.values(v).reduce<number>((n, x) => n + blocksCharCount(x), 0);
  return 0;
}

/**
 * Validates a message's `blocks` (already JSON-decoded when it came as a string that parses); `surface: 'view'`
 * applies the limits of modals and Home tabs (100 blocks, no message character total).
 */
export function validateBlocks(blocks: unknown, surface: 'message' | 'view' = 'message'): BlocksVerdict {
  if (!Array.isArray(blocks)) return { ok: false, error: 'invalid_blocks_format' };
  const c = new Checker();
  c.maxItems(blocks, surface === 'view' ? L.blocksPerView : L.blocksPerMessage, '/blocks');
  blocks.forEach((b, i) => c.block(b, `/blocks/${i}`));
  if (c.markdownChars > L.markdownText) {
    c.fail(`cumulative markdown text must be less than ${L.markdownText + 1} characters`, '/blocks');
  }
  if (c.errors.length > 0) return { ok: false, error: 'invalid_blocks', errors: c.errors };
  if (surface === 'message' && blocksCharCount(blocks) > L.totalChars)
    return { ok: false, error: 'msg_blocks_too_long' };
  return { ok: true };
}
