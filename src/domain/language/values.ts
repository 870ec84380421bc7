// Checks for each kind of value in the command language (numbers, ids, image refs, URIs, channels…),
// each refusal saying what is wrong and what would be right.
import { MAX_PARALLELISM, MIN_PARALLELISM, OP_ID_PATTERN } from '../model/intent-base.js';
import { parseCpu, parseMemorySize } from '../model/memory-size.js';
import { UPGRADE_MODES } from '../model/upgrade-mode.js';
import { CONFIG_ACTIONS } from './verb-kit.js';
import { namespaceProblem, parseTarget } from '../model/target.js';
import { VERB_NAMES, VERB_SYNONYMS, isVerb, type ValueKind } from './verbs.js';
import { nearest } from './suggest.js';
import { unwrapLinks } from './tokenize.js';
import { WINDOW_NAME, parseAt } from '../schedule/run-at.js';

export interface Env {
  ctx: { defaultNamespace?: string };
  /** The slash command, for messages. */
  command: string;
}

export type ValueCheck = { ok: true; value: unknown } | { ok: false; message: string; suggestion?: string };

/** User text quoted for a message: JSON-escaped (control characters stay visible) and clipped. */
export function show(text: string, max = 60): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > max ? `${chars.slice(0, max).join('')}…` : text);
}

const ok = (value: unknown): ValueCheck => ({ ok: true, value });
const fail = (message: string, suggestion?: string): ValueCheck =>
  suggestion === undefined ? { ok: false, message } : { ok: false, message, suggestion };

export const MAX_REASON = 1000;
const MAX_IMAGE = 512;
const MAX_URI = 2048;
/** `sessionjob:` + a 63-character namespace + `/` + a 253-character name; longer cannot be valid. */
const MAX_TARGET = 11 + 63 + 1 + 63 + 1 + 253;

function wholeNumber(text: string, min: number, max: number, label: string): ValueCheck {
  if (/^[0-9]{1,12}$/.test(text)) {
    const n = Number(text);
    if (n >= min && n <= max) return ok(n);
  }
  return fail(`${label} must be a whole number from ${min} to ${max}; got ${show(text)}`);
}

// Docker's reference grammar (distribution/reference): [domain[:port]/]path[:tag][@digest].
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_PART}(?:\\.${DOMAIN_PART})*(?::[0-9]+)?`;
const PATH_PART = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const IMAGE_REF = new RegExp(`^(?:${DOMAIN}/)?${PATH_PART}(?:/${PATH_PART})*(?::${TAG})?(?:@${DIGEST})?$`);
const IMAGE_SHAPE = 'registry/repository[:tag][@sha256:<64 hex digits>], e.g. registry.example.com/team/app:1.4.2';
/** Shell metacharacters and quotes: no image reference has them, and they suggest a pasted command line. */
const SHELL_META = /[;|&$`<>(){}[\]\\!*?"'~]/;

function describeChar(c: string): string {
  if (c === ' ') return 'a space';
  if (/\s/.test(c)) return 'whitespace';
  if (/[\p{Cc}\p{Cf}]/u.test(c)) return `a control character (${JSON.stringify(c)})`;
  return `"${c}"`;
}

export function imageProblem(ref: string): string | undefined {
  if (ref.length === 0) return `--image needs an image reference: ${IMAGE_SHAPE}`;
  if (ref.length > MAX_IMAGE) return `the image reference is ${ref.length} characters long; at most ${MAX_IMAGE}`;
  const bad = /[\s\p{Cc}\p{Cf}]/u.exec(ref) ?? SHELL_META.exec(ref);
  if (bad) return `image ${show(ref)} contains ${describeChar(bad[0])}, which no image reference has; expected ${IMAGE_SHAPE}`;
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(ref);
  if (scheme) return `image references have no scheme: drop "${scheme[0]}" from ${show(ref)}`;
  if (!IMAGE_REF.test(ref)) {
    const lower = /[A-Z]/.test(ref.split('/').slice(1).join('/').split(/[:@]/)[0] ?? '') ? ' (repository names are lowercase)' : '';
    return `${show(ref)} is not an image reference${lower}; expected ${IMAGE_SHAPE}`;
  }
  const digest = /@sha256:([0-9a-fA-F]*)$/.exec(ref);
  if (digest && digest[1]?.length !== 64) return `a sha256 digest has 64 hex digits; ${show(ref)} has ${digest[1]?.length ?? 0}`;
  return undefined;
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
  if (m) return ok(m[1]);
  if (CHANNEL_ID.test(text)) return ok(text);
  const hint = /^<@/.test(text)
    ? `${show(text)} is a person, not a channel`
    : /^<!subteam\^/.test(text)
      ? `${show(text)} is a user group, not a channel`
      : /^#/.test(text)
        ? `${show(text)} arrived as plain text, not as a channel link; pick the channel from the list Slack opens when you type #`
        : `${show(text)} is not a channel`;
  return fail(`${label} takes a Slack channel, like #inc-4711 picked from Slack's list: ${hint}`);
}

function reason(text: string, label: string): ValueCheck {
  const trimmed = text.trim();
  if (trimmed.length === 0) return fail(`${label} needs some text, e.g. ${label} "why this is needed"`);
  if (trimmed.length > MAX_REASON) return fail(`${label} is ${trimmed.length} characters long; keep it under ${MAX_REASON}`);
  return ok(trimmed);
}

function upgradeMode(text: string, label: string): ValueCheck {
  const mode = text.toLowerCase();
  if ((UPGRADE_MODES as readonly string[]).includes(mode)) return ok(mode);
  const suggestion = nearest(mode, UPGRADE_MODES);
  const guess = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
  return fail(`${label} must be one of ${UPGRADE_MODES.join(', ')}; got ${show(text)}${guess}`, suggestion);
}

function opId(text: string, label: string): ValueCheck {
  // Ids are lowercase by construction, so a shouted OP-7F3C2A9B can only mean the lowercase one.
  const id = text.toLowerCase();
  if (OP_ID_PATTERN.test(id)) return ok(id);
  return fail(`${show(text)} is not an ${label}; ids look like op-7f3c2a9b ("op-" and 6–12 lowercase letters or digits, shown on the card and by \`ops\`)`);
}

function verbArg(text: string): ValueCheck {
  const verb = text.toLowerCase();
  if (isVerb(verb)) return ok(verb);
  const suggestion = nearest(verb, VERB_NAMES, VERB_SYNONYMS);
  if (suggestion !== undefined) return fail(`unknown command ${show(text)}; did you mean \`${suggestion}\`?`, suggestion);
  return fail(`unknown command ${show(text)}; the commands are ${VERB_NAMES.join(', ')}`);
}

function configAction(text: string): ValueCheck {
  const action = text.toLowerCase();
  if ((CONFIG_ACTIONS as readonly string[]).includes(action)) return ok(action);
  const suggestion = nearest(action, CONFIG_ACTIONS, { add: 'set', put: 'set', remove: 'unset', delete: 'unset', del: 'unset', rm: 'unset' });
  const guess = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
  return fail(`after the target, config takes set or unset; got ${show(text)}${guess}`, suggestion);
}

/** Flink keys: dot-separated words of letters, digits, `-` and `_` (`execution.checkpointing.interval`). */
const CONFIG_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
const MAX_CONFIG_KEY = 200;
const MAX_CONFIG_VALUE = 1000;

export function configKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'an entry has no key before "="; write key=value, e.g. execution.checkpointing.interval=30s';
  if (key.length > MAX_CONFIG_KEY) return `the key ${show(key)} is ${key.length} characters long; at most ${MAX_CONFIG_KEY}`;
  const bad = /[\s\p{Cc}\p{Cf}]/u.exec(key);
  if (bad) return `the key ${show(key)} contains ${describeChar(bad[0])}; configuration keys have none`;
  if (!CONFIG_KEY.test(key)) return `${show(key)} is not a Flink configuration key: words of letters, digits, "-" and "_" joined by dots`;
  return undefined;
}

function configValueProblem(key: string, value: string): string | undefined {
  if (value.trim().length === 0) return `${key}= has no value; to remove a key use \`config <target> unset ${key}\``;
  if (value.length > MAX_CONFIG_VALUE) return `the value of ${key} is ${value.length} characters long; at most ${MAX_CONFIG_VALUE}`;
  const bad = /[\p{Cc}\p{Cf}]/u.exec(value);
  if (bad) return `the value of ${key} contains ${describeChar(bad[0])}`;
  if (value.includes('=')) {
    return `the value of ${key} contains "=" (${show(value, 40)}): write one key=value per entry, separated by spaces; values with "=" cannot be set from chat`;
  }
  return undefined;
}

/** `key=value` → {key, value}; `key` → {key}; whether the sub-verb wants a value is the verb's own check. */
function configEntry(text: string): ValueCheck {
  const entry = unwrapLinks(text);
  const eq = entry.indexOf('=');
  const key = eq < 0 ? entry : entry.slice(0, eq);
  const keyProblem = configKeyProblem(key);
  if (keyProblem !== undefined) return fail(keyProblem);
  if (eq < 0) return ok({ key });
  const value = entry.slice(eq + 1).trim();
  const problem = configValueProblem(key, value);
  return problem === undefined ? ok({ key, value }) : fail(problem);
}

function memory(text: string, label: string): ValueCheck {
  const parsed = parseMemorySize(text, label);
  return parsed.ok ? ok(parsed.size.text) : fail(parsed.message);
}

function cpu(text: string, label: string): ValueCheck {
  const parsed = parseCpu(text, label);
  return parsed.ok ? ok(parsed.cpu) : fail(parsed.message);
}

type Checker = (text: string, env: Env, label: string) => ValueCheck;

const CHECKS = {
  target: (text, env) => {
    const written = unwrapLinks(text);
    if (/^<[@#!]/.test(written)) return fail(`${show(written)} is a Slack mention, not a target; write namespace/name`);
    if (written.length > MAX_TARGET) {
      return fail(`the target is ${written.length} characters long; names have at most 253 characters and namespaces 63`);
    }
    const t = parseTarget(written, env.ctx.defaultNamespace);
    return t.ok ? ok(t.value) : fail(t.message);
  },
  namespace: (text) => {
    const ns = unwrapLinks(text);
    const problem = namespaceProblem(ns);
    return problem === undefined ? ok(ns) : fail(problem);
  },
  verb: (text) => verbArg(text),
  opId: (text, _env, label) => opId(text, label),
  parallelism: (text, _env, label) => wholeNumber(text, MIN_PARALLELISM, MAX_PARALLELISM, label),
  limit: (text, _env, label) => wholeNumber(text, 1, 100, label),
  mode: (text, _env, label) => upgradeMode(text, label),
  image: (text) => {
    const ref = unwrapLinks(text);
    const problem = imageProblem(ref);
    return problem === undefined ? ok(ref) : fail(problem);
  },
  uri: (text) => {
    const uri = unwrapLinks(text);
    const problem = uriProblem(uri);
    return problem === undefined ? ok(uri) : fail(problem);
  },
  memory: (text, _env, label) => memory(text, label),
  cpu: (text, _env, label) => cpu(text, label),
  configAction: (text) => configAction(text),
  configEntry: (text) => configEntry(text),
  text: (text, _env, label) => reason(text, label),
  channel: (text, _env, label) => channel(text, label),
  time: (text) => {
    const at = parseAt(text);
    return at.ok ? ok(at.value) : fail(at.message);
  },
  window: (text, _env, label) =>
    WINDOW_NAME.test(text) ? ok(text) : fail(`${label} takes the name of a window in the policy's \`windows\`; got ${show(text)}`),
  // Switches and the explained command are bound by the parser itself, never through a check.
  command: (text) => ok(text),
  switch: () => ok(true),
} satisfies Record<ValueKind, Checker>;

export function checkValue(kind: ValueKind, text: string, env: Env, label: string): ValueCheck {
  return CHECKS[kind](text, env, label);
}
