// The vocabulary of values in the command language: how a value is written, explained and checked (ValueSpec),
// the value kinds several verbs share, and the helpers kinds use to check their own values. Each refusal says what
// is wrong and what would be right.
import { OP_ID_PATTERN } from './intent-base.js';
import { MODE, UPGRADE_MODES } from '../../model/upgrade-mode.js';
import { namespaceProblem, parseTarget } from '../../model/target.js';
import { nearest } from './suggest.js';
import { unwrapLinks } from './tokenize.js';
import { WINDOW_NAME, parseAt } from '../schedule/run-at.js';

export interface Env {
  ctx: { defaultNamespace?: string };
  /** The slash command, for messages. */
  command: string;
}

export type ValueCheck = { ok: true; value: unknown } | { ok: false; message: string; suggestion?: string };

/**
 * One kind of value: how usage lines write it, what help says about it, a sample, and its check. A kind module
 * declares the values only it takes beside its verb; the ones several verbs take are VALUE_KINDS below.
 */
export interface ValueSpec {
  /** `<parallelism>`, `savepoint|last-state|stateless`; empty for a switch. */
  readonly placeholder: string;
  readonly description: string;
  /** A value the check accepts, for commands built from the table (help.test.ts builds one per flag). */
  readonly example: string;
  /** `label` names the argument or flag in messages (`parallelism`, `--image`). */
  check(text: string, env: Env, label: string): ValueCheck;
}

/** User text quoted for a message: JSON-escaped (control characters stay visible) and clipped. */
export function show(text: string, max = 60): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > max ? `${chars.slice(0, max).join('')}…` : text);
}

export const okValue = (value: unknown): ValueCheck => ({ ok: true, value });
export const badValue = (message: string, suggestion?: string): ValueCheck =>
  suggestion === undefined ? { ok: false, message } : { ok: false, message, suggestion };

/** A check from a `problem` function (undefined: fine) on the text with Slack's link markup removed. */
export function checkedBy(problem: (text: string) => string | undefined): (text: string) => ValueCheck {
  return (text) => {
    const value = unwrapLinks(text);
    const found = problem(value);
    return found === undefined ? okValue(value) : badValue(found);
  };
}

export const MAX_REASON = 1000;
const MAX_URI = 2048;
/** `sessionjob:` + a 63-character namespace + `/` + a 253-character name; longer cannot be valid. */
const MAX_TARGET = 11 + 63 + 1 + 63 + 1 + 253;

export function wholeNumber(text: string, min: number, max: number, label: string): ValueCheck {
  if (/^[0-9]{1,12}$/.test(text)) {
    const n = Number(text);
    if (n >= min && n <= max) return okValue(n);
  }
  return badValue(`${label} must be a whole number from ${min} to ${max}; got ${show(text)}`);
}

export function describeChar(c: string): string {
  if (c === ' ') return 'a space';
  if (/\s/.test(c)) return 'whitespace';
  if (/[\p{Cc}\p{Cf}]/u.test(c)) return `a control character (${JSON.stringify(c)})`;
  return `"${c}"`;
}

const URI = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;
const URI_EXAMPLE = 's3://bucket/savepoints/savepoint-1a2b3c';

export function uriProblem(uri: string): string | undefined {
  if (uri.length === 0) return `--from needs the savepoint's URI, e.g. ${URI_EXAMPLE}`;
  if (uri.length > MAX_URI) return `the URI is ${uri.length} characters long; at most ${MAX_URI}`;
  const bad = /[\s\p{Cc}\p{Cf}"<>\\^`{|}]/u.exec(uri);
  if (bad) return `${show(uri)} contains ${describeChar(bad[0])}, which a savepoint URI cannot have`;
  const m = URI.exec(uri);
  if (!m) {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(uri)) return `${show(uri)} needs "//" after the scheme, e.g. ${URI_EXAMPLE}`;
    return `${show(uri)} has no scheme; write the whole URI, e.g. ${URI_EXAMPLE} or file:///flink/savepoints/savepoint-1a2b3c`;
  }
  const [, scheme = '', authority = '', rest = ''] = m;
  const path = rest.split(/[?#]/, 1)[0] ?? '';
  if (!/[^/]/.test(path)) {
    const example = `${scheme}://${authority || 'bucket'}/savepoints/savepoint-1a2b3c`;
    return `${show(uri)} is missing the path: give the savepoint directory, e.g. ${example}`;
  }
  return undefined;
}

const CHANNEL_MENTION = /^<#([A-Z0-9]{2,})(?:\|[^<>]*)?>$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{8,}$/;

function channel(text: string, label: string): ValueCheck {
  const m = CHANNEL_MENTION.exec(text);
  if (m) return okValue(m[1]);
  if (CHANNEL_ID.test(text)) return okValue(text);
  const hint = /^<@/.test(text)
    ? `${show(text)} is a person, not a channel`
    : /^<!subteam\^/.test(text)
      ? `${show(text)} is a user group, not a channel`
      : /^#/.test(text)
        ? `${show(text)} arrived as plain text, not as a channel link; pick the channel from the list Slack opens when you type #`
        : `${show(text)} is not a channel`;
  return badValue(`${label} takes a Slack channel, like #inc-4711 picked from Slack's list: ${hint}`);
}

function reason(text: string, label: string): ValueCheck {
  const trimmed = text.trim();
  if (trimmed.length === 0) return badValue(`${label} needs some text, e.g. ${label} "why this is needed"`);
  if (trimmed.length > MAX_REASON)
    return badValue(`${label} is ${trimmed.length} characters long; keep it under ${MAX_REASON}`);
  return okValue(trimmed);
}

function upgradeMode(text: string, label: string): ValueCheck {
  const mode = text.toLowerCase();
  if ((UPGRADE_MODES as readonly string[]).includes(mode)) return okValue(mode);
  const suggestion = nearest(mode, UPGRADE_MODES);
  const guess = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
  return badValue(`${label} must be one of ${UPGRADE_MODES.join(', ')}; got ${show(text)}${guess}`, suggestion);
}

function opId(text: string, label: string): ValueCheck {
  // Ids are lowercase by construction, so a shouted OP-7F3C2A9B can only mean the lowercase one.
  const id = text.toLowerCase();
  if (OP_ID_PATTERN.test(id)) return okValue(id);
  return badValue(
    `${show(text)} is not an ${label}; ids look like op-7f3c2a9b ("op-" and 6–12 lowercase letters or digits, shown on the card and by \`ops\`)`,
  );
}

function target(text: string, env: Env): ValueCheck {
  const written = unwrapLinks(text);
  if (/^<[@#!]/.test(written))
    return badValue(`${show(written)} is a Slack mention, not a target; write namespace/name`);
  if (written.length > MAX_TARGET) {
    return badValue(
      `the target is ${written.length} characters long; names have at most 253 characters and namespaces 63`,
    );
  }
  const t = parseTarget(written, env.ctx.defaultNamespace);
  return t.ok ? okValue(t.value) : badValue(t.message);
}

/** The values several verbs take; a value only one kind takes is declared in that kind's module. */
export const VALUE_KINDS = {
  target: {
    placeholder: '<target>',
    description:
      "`name`, `namespace/name` or `cluster/namespace/name` (with several clusters), prefixed `sessionjob:` for a FlinkSessionJob; a bare name uses the channel's default namespace, a target without a cluster the channel's default cluster",
    example: 'analytics/clickstream',
    check: target,
  },
  namespace: {
    placeholder: '<namespace>',
    description: 'a Kubernetes namespace',
    example: 'analytics',
    check: checkedBy(namespaceProblem),
  },
  opId: {
    placeholder: '<op id>',
    description: '`op-` followed by 6–12 lowercase letters or digits, as shown on the card',
    example: 'op-7f3c2a9b',
    check: (text, _env, label) => opId(text, label),
  },
  limit: {
    placeholder: '<n>',
    description: 'a whole number from 1 to 100 (default 10)',
    example: '5',
    check: (text, _env, label) => wholeNumber(text, 1, 100, label),
  },
  mode: {
    placeholder: UPGRADE_MODES.join('|'),
    description: `the upgrade mode: \`${MODE.savepoint}\` (take one first), \`${MODE.lastState}\` (resume from HA metadata), \`${MODE.stateless}\` (drop state)`,
    example: MODE.savepoint,
    check: (text, _env, label) => upgradeMode(text, label),
  },
  text: {
    placeholder: '"…"',
    description: 'free text; quote it when it has spaces ("…", \'…\', “…” all work)',
    example: '"why not"',
    check: (text, _env, label) => reason(text, label),
  },
  channel: {
    placeholder: '<#channel>',
    description: 'a Slack channel: type # and pick it from the list',
    example: '<#C0123ABCD|inc>',
    check: (text, _env, label) => channel(text, label),
  },
  // The explained command is bound by the parser itself (parse.ts parseExplain), never through this check.
  command: {
    placeholder: '<operation command…>',
    description: 'a whole operation command, exactly as you would run it',
    example: 'scale analytics/clickstream 4',
    check: (text) => okValue(text),
  },
  time: {
    placeholder: '<time>',
    description:
      "RFC 3339 with an offset (`2026-12-02T02:00:00+01:00`), or `HH:MM [<IANA zone>]` meaning the next such time (zone default: the policy's `timezone`, else UTC); at most 7 days ahead",
    example: '02:00',
    check: (text) => {
      const at = parseAt(text);
      return at.ok ? okValue(at.value) : badValue(at.message);
    },
  },
  window: {
    placeholder: '<window>',
    description: "the name of an execution window in the policy's `windows`",
    example: 'nightly',
    check: (text, _env, label) =>
      WINDOW_NAME.test(text)
        ? okValue(text)
        : badValue(`${label} takes the name of a window in the policy's \`windows\`; got ${show(text)}`),
  },
  switch: { placeholder: '', description: 'takes no value', example: '', check: () => okValue(true) },
} satisfies Record<string, ValueSpec>;
