// Block Kit and mrkdwn as Slack renders them, built only with DOM nodes and textContent (never innerHTML).
import { el } from './dom.js';

const EMOJI = {
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  warning: '⚠️',
  x: '❌',
  no_entry_sign: '🚫',
  no_entry: '⛔',
  lock: '🔒',
  unlock: '🔓',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  wastebasket: '🗑️',
  thumbsup: '👍',
  '+1': '👍',
  rocket: '🚀',
  repeat: '🔁',
  memo: '📝',
  mag: '🔍',
  leftwards_arrow_with_hook: '↩️',
  double_vertical_bar: '⏸️',
  arrows_counterclockwise: '🔄',
  arrow_right: '➡️',
  information_source: 'ℹ️',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  fire: '🔥',
  tada: '🎉',
  eyes: '👀',
  floppy_disk: '💾',
  camera: '📷',
  stopwatch: '⏱️',
  bell: '🔔',
  construction: '🚧',
  question: '❓',
  heavy_plus_sign: '➕',
  heavy_minus_sign: '➖',
  bulb: '💡',
  link: '🔗',
  scroll: '📜',
  rotating_light: '🚨',
  rewind: '⏪',
  calendar: '📆',
  date: '📅',
  arrow_double_up: '⏫',
  arrow_double_down: '⏬',
  raising_hand: '🙋',
  envelope: '✉️',
  chart_with_downwards_trend: '📉',
  chart_with_upwards_trend: '📈',
  alarm_clock: '⏰',
  clock1: '🕐',
  pause_button: '⏸️',
  heavy_multiplication_x: '✖️',
  speech_balloon: '💬',
  bar_chart: '📊',
  gear: '⚙️',
  wrench: '🔧',
  package: '📦',
  pushpin: '📌',
  point_right: '👉',
  ok: '🆗',
  white_circle: '⚪',
  large_blue_circle: '🔵',
  black_circle: '⚫',
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const pad = (n) => String(n).padStart(2, '0');

function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] || 'th';
  return `${n}${s}`;
}

function sameDay(a, b) {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** `<!date^ts^format|fallback>` in the reader's time zone, with Slack's tokens. */
export function formatSlackDate(seconds, format, now = new Date()) {
  const d = new Date(seconds * 1000);
  const yesterday = new Date(now.getTime() - 86_400_000);
  const tomorrow = new Date(now.getTime() + 86_400_000);
  const relative = sameDay(d, now)
    ? 'today'
    : sameDay(d, yesterday)
      ? 'yesterday'
      : sameDay(d, tomorrow)
        ? 'tomorrow'
        : undefined;
  const month = MONTHS[d.getMonth()];
  const tokens = {
    date_num: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    date: `${month} ${ordinal(d.getDate())}, ${d.getFullYear()}`,
    date_short: `${month.slice(0, 3)} ${d.getDate()}, ${d.getFullYear()}`,
    date_long: `${['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][d.getDay()]}, ${month} ${ordinal(d.getDate())}, ${d.getFullYear()}`,
    time: `${pad(d.getHours())}:${pad(d.getMinutes())}`,
    time_secs: `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
  };
  tokens.date_pretty = relative ?? tokens.date;
  tokens.date_short_pretty = relative ?? tokens.date_short;
  tokens.date_long_pretty = relative ?? tokens.date_long;
  return format.replace(/\{([a-z_]+)\}/g, (all, name) => tokens[name] ?? all);
}

function decodeEntities(text) {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

function safeHref(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : undefined;
}

/** `<…>`: a mention, a channel, a user group, a date, a special mention, or a link. */
function renderAngle(inner, ctx) {
  const [target, label] = splitOnce(inner, '|');
  if (target.startsWith('@')) return el('span', 'mention', `@${label || ctx.userName(target.slice(1))}`);
  if (target.startsWith('#'))
    return el('span', 'mention channel-mention', `#${label || ctx.channelName(target.slice(1))}`);
  if (target.startsWith('!subteam^')) return el('span', 'mention', label || `@${ctx.groupHandle(target.slice(9))}`);
  if (target.startsWith('!date^')) {
    const [, seconds, format = '{date_short_pretty}'] = target.split('^');
    const node = el(
      'span',
      'slack-date',
      Number.isFinite(Number(seconds)) ? formatSlackDate(Number(seconds), format) : label,
    );
    node.title = label || '';
    return node;
  }
  if (target.startsWith('!')) return el('span', 'mention', `@${target.slice(1).split('^')[0]}`);
  const href = safeHref(decodeEntities(target));
  if (!href) return document.createTextNode(decodeEntities(label || target));
  const a = el('a', 'link', decodeEntities(label || target));
  a.href = href;
  ctx.onLink?.(a, href);
  return a;
}

function splitOnce(text, sep) {
  const i = text.indexOf(sep);
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
}

const CODE = '`[^`\\n]+`';
const ANGLE = '<[^<>\\n]+>';

/**
 * `*bold*`, `_italics_`, `~strike~`: a non-word character (or the start) before the opening mark and after the closing
 * one, as in Slack. A `<…>` or `` `…` `` inside is one piece, so `_by <!date^…^{date_short}|…>_` stays one italic.
 */
function styled(mark) {
  const m = `\\${mark}`;
  return `(?<![\\w${m}])${m}(?:${ANGLE}|${CODE}|[^${m}\\n<])+?${m}(?![\\w${m}])`;
}

const INLINE = new RegExp(
  `(${CODE})|(${ANGLE})|(${styled('*')})|(${styled('_')})|(${styled('~')})|(:[a-z0-9_+-]+:)`,
  'g',
);

function appendInline(parent, text, ctx) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(decodeEntities(text.slice(last, m.index)));
    const token = m[0];
    if (m[1]) parent.append(el('code', 'inline-code', decodeEntities(token.slice(1, -1))));
    else if (m[2]) parent.append(renderAngle(token.slice(1, -1), ctx));
    else if (m[3] || m[4] || m[5]) {
      const node = el(m[3] ? 'b' : m[4] ? 'i' : 's');
      appendInline(node, token.slice(1, -1), ctx);
      parent.append(node);
    } else {
      const name = token.slice(1, -1);
      parent.append(EMOJI[name] ? el('span', 'emoji', EMOJI[name]) : document.createTextNode(token));
      if (EMOJI[name]) parent.lastChild.title = token;
    }
    last = m.index + token.length;
  }
  if (last < text.length) parent.append(decodeEntities(text.slice(last)));
}

/** mrkdwn → a fragment: ``` blocks, > quotes, line breaks, then inline formatting per line. */
export function renderMrkdwn(text, ctx) {
  const fragment = document.createDocumentFragment();
  const parts = String(text ?? '').split('```');
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      fragment.append(el('pre', 'code-block', decodeEntities(part.replace(/^\n/, ''))));
      return;
    }
    const lines = part.split('\n');
    lines.forEach((line, j) => {
      // A quote starts with `>`, sent as it is or escaped (`&gt;`), as Slack reads both.
      if (/^(&gt;|>)/.test(line)) {
        const quote = el('span', 'quote');
        appendInline(quote, line.replace(/^(&gt;|>)\s?/, ''), ctx);
        fragment.append(quote);
      } else {
        appendInline(fragment, line, ctx);
        if (j < lines.length - 1) fragment.append(el('br'));
      }
    });
  });
  return fragment;
}

function textObject(obj, ctx) {
  if (!obj) return document.createDocumentFragment();
  if (obj.type === 'mrkdwn') return renderMrkdwn(obj.text, ctx);
  // plain_text: only emoji shortcodes turn into pictures (unless emoji is false); everything else stays literal.
  const span = el('span');
  const raw = String(obj.text ?? '');
  if (obj.emoji === false) {
    span.textContent = raw;
    return span;
  }
  let last = 0;
  for (const m of raw.matchAll(/:([a-z0-9_+-]+):/g)) {
    span.append(raw.slice(last, m.index), EMOJI[m[1]] ?? m[0]);
    last = m.index + m[0].length;
  }
  span.append(raw.slice(last));
  return span;
}

function button(element, block, ctx) {
  const b = el('button', `bk-button${element.style ? ` bk-${element.style}` : ''}`);
  b.type = 'button';
  b.append(textObject(element.text, ctx));
  b.dataset.actionId = element.action_id ?? '';
  b.dataset.blockId = block.block_id ?? '';
  if (element.url && safeHref(element.url)) b.dataset.url = element.url;
  b.addEventListener('click', () => ctx.onAction?.(element, block, b));
  return b;
}

function element(elem, block, ctx) {
  switch (elem.type) {
    case 'button':
      return button(elem, block, ctx);
    case 'mrkdwn':
    case 'plain_text': {
      const span = el('span', 'bk-context-text');
      span.append(textObject(elem, ctx));
      return span;
    }
    case 'image': {
      const span = el('span', 'bk-unsupported', `[image: ${elem.alt_text ?? ''}]`);
      return span;
    }
    default:
      return el('span', 'bk-unsupported', `[${elem.type}]`);
  }
}

const RENDERERS = {
  header(block, ctx) {
    const h = el('div', 'bk-header');
    h.append(textObject(block.text, ctx));
    return h;
  },
  section(block, ctx) {
    const s = el('div', 'bk-section');
    if (block.text) {
      const t = el('div', 'bk-text');
      t.append(textObject(block.text, ctx));
      s.append(t);
    }
    if (Array.isArray(block.fields)) {
      const grid = el('div', 'bk-fields');
      for (const f of block.fields) {
        const cell = el('div', 'bk-field');
        cell.append(textObject(f, ctx));
        grid.append(cell);
      }
      s.append(grid);
    }
    if (block.accessory) {
      s.classList.add('bk-has-accessory');
      s.append(element(block.accessory, block, ctx));
    }
    return s;
  },
  context(block, ctx) {
    const c = el('div', 'bk-context');
    for (const e of block.elements ?? []) c.append(element(e, block, ctx));
    return c;
  },
  divider() {
    return el('hr', 'bk-divider');
  },
  actions(block, ctx) {
    const a = el('div', 'bk-actions');
    for (const e of block.elements ?? []) a.append(element(e, block, ctx));
    return a;
  },
};

/**
 * Blocks → one element. ctx: userName(id), channelName(id), groupHandle(id), onAction(element, block, button),
 * onLink(anchor, href).
 */
export function renderBlocks(blocks, ctx) {
  const root = el('div', 'bk-blocks');
  for (const block of blocks ?? []) {
    const render = RENDERERS[block.type];
    const node = render ? render(block, ctx) : el('div', 'bk-unsupported', `[unsupported block: ${block.type}]`);
    if (block.block_id) node.dataset.blockId = block.block_id;
    root.append(node);
  }
  return root;
}
