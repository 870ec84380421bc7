// Fuzzing the parser: 100,000 seeded random inputs never throw, and every non-reply passes its zod schema.
import { describe, expect, it } from 'vitest';
import { parseCommand, type ParseContext } from '../../../../../src/domain/engines/language/parse.js';
import { VERB_NAMES, FLAG_OWNERS } from '../../../../../src/domain/engines/language/verbs.js';
import { CommandSchema, QuerySchema, type ParseResult } from '../../../../../src/domain/engines/language/requests.js';
import { OperationIntentSchema } from '../../../../../src/domain/kinds/index.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_f11c);
const COUNT = 100_000;

/** mulberry32: tiny, fast and good enough to explore inputs; the seed makes any failure reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)] as T;

/** Code point ranges: controls, Latin, RTL (Hebrew, Arabic, bidi overrides), quotes, spaces, emoji, astral, lone surrogates. */
const RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f],
  [0x20, 0x7e],
  [0x7f, 0x9f],
  [0xa0, 0xff],
  [0x0591, 0x05f4],
  [0x0600, 0x06ff],
  [0x200b, 0x202e],
  [0x2013, 0x201e],
  [0x2060, 0x2069],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
  [0xd800, 0xdfff],
  [0x1f300, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x10000, 0x10ffff],
];

function randomChars(r: Rand, length: number, ranges: ReadonlyArray<readonly [number, number]> = RANGES): string {
  let s = '';
  for (let i = 0; i < length; i++) {
    const [lo, hi] = pick(r, ranges);
    s += String.fromCodePoint(lo + int(r, hi - lo + 1));
  }
  return s;
}

const FLAGS = [...FLAG_OWNERS.keys(), 'help', 'bogus', ''];
const PIECES = [
  ...VERB_NAMES,
  'gitops',
  'SCALE',
  'sacle',
  '/flink',
  'prod/x',
  'x',
  'sessionjob:ns/job',
  'a/b/c',
  'Prod/X',
  'my_job',
  'op-7f3c2a9b',
  'OP-ABC123',
  '0',
  '1',
  '8',
  '32768',
  '100000',
  '3.5',
  '-1',
  '1e3',
  'eight',
  'savepoint',
  'last-state',
  'stateless',
  'ghcr.io/acme/app:1.2',
  'app;rm',
  's3://b/sp',
  's3://b',
  '/tmp/sp',
  'file:///x',
  '"',
  "'",
  '“',
  '”',
  '‘',
  '’',
  '„',
  '"quoted words"',
  '“curly words”',
  "'it's'",
  '=',
  '==',
  '<#C0123ABCD|inc>',
  '<#C1>',
  '<@U123>',
  '<@U1|bob>',
  '<!subteam^S1|@leads>',
  '<!here>',
  '<http://a.io/b|a.io/b>',
  '<',
  '>',
  '<#',
  '<@U1',
  '&lt;',
  '&gt;',
  '&amp;',
  '&amp',
  '—',
  '–',
  '-',
  '--',
  // resources and config
  'set',
  'unset',
  'SET',
  'a.b=1',
  'execution.checkpointing.interval=30s',
  'kubernetes.operator.x=1',
  '=30s',
  'k=',
  'a=b=c',
  '"my key=1"',
  '4g',
  '2048m',
  '1.5gb',
  '"1.5 GB"',
  '4Gi',
  '500m',
  '0.5',
  '1.3b',
  '1e9',
  '99999999999999999t',
];
const SIZES = [
  '4g',
  '2048m',
  '1.5gb',
  '1 g',
  '4Gi',
  '0m',
  '-1g',
  '1.3b',
  '512',
  '9t',
  '1025t',
  'lots',
  '0.5',
  '2',
  '500m',
  '1e3',
  '',
];
const ENTRIES = [
  'a.b=1',
  'a.b',
  'execution.checkpointing.interval=30s',
  '=x',
  'k=',
  'a=b=c',
  '"sp ace=1"',
  'a..b=1',
  'x=“q”',
  'K.V=v',
  'ü=1',
];

/** Commands in the resources / config grammar: the parser must get past the verb to reach their checks. */
function structured(r: Rand): string {
  if (r() < 0.5) {
    const flags = Array.from(
      { length: int(r, 5) },
      () => `--${pick(r, ['tm-memory', 'tm-cpu', 'jm-memory', 'jm-cpu'])} ${pick(r, SIZES)}`,
    );
    return `resources prod/x ${flags.join(' ')}`;
  }
  const n = r() < 0.02 ? 40 + int(r, 500) : int(r, 6);
  const entries = Array.from({ length: n }, () => (r() < 0.7 ? `k${int(r, 8)}.v=${int(r, 9)}` : pick(r, ENTRIES)));
  return `config prod/x ${pick(r, ['set', 'unset', 'SET', 'put', ''])} ${entries.join(' ')}`;
}
const LIMITS = ['1', '10', '100', '0', '101', '-1', '5.5', 'ten', '', '1e2', '"3"'];
const TARGETS = [
  'prod/x',
  'x',
  'sessionjob:ns/job',
  'a/b/c',
  'Prod/X',
  '<#C0123ABCD|inc>',
  '"quoted words"',
  '../etc',
  'x'.repeat(300),
];

/** savepoints / exceptions with hostile targets and limits: the query grammar of the history verbs. */
function historyQuery(r: Rand): string {
  const flags = Array.from({ length: int(r, 4) }, () =>
    pick(r, ['--limit', '--public', '--limit=', '--from', '--lmit']),
  );
  const parts = [
    pick(r, ['savepoints', 'exceptions', 'SAVEPOINTS', 'snapshots', 'errors']),
    pick(r, TARGETS),
    ...flags.map((f) => (f.startsWith('--limit') ? `${f} ${pick(r, LIMITS)}` : f)),
  ];
  return parts.join(' ');
}
const SEPARATORS = [' ', ' ', ' ', '  ', '\t', '\n', '\u00a0', '\u200b', '\u3000', '', '='];

function mix(r: Rand): string {
  const parts: string[] = [];
  const n = 1 + int(r, 12);
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.55) parts.push(pick(r, PIECES));
    else if (roll < 0.8) parts.push(`--${pick(r, FLAGS)}${r() < 0.2 ? `=${pick(r, PIECES)}` : ''}`);
    else parts.push(randomChars(r, 1 + int(r, 8)));
    parts.push(pick(r, SEPARATORS));
  }
  return parts.join('');
}

function input(r: Rand, i: number): string {
  if (i % 2000 === 0) return randomChars(r, 10_000);
  if (i % 2000 === 1)
    return Array.from({ length: 1200 }, () => mix(r))
      .join(' ')
      .slice(0, 10_240);
  if (i % 2000 === 2) return pick(r, ['<', '"', '<@', '&', '--', '“', 'a']).repeat(10_000);
  const roll = r();
  if (roll < 0.1) return structured(r);
  if (roll < 0.25) return randomChars(r, int(r, 60), [[0x00, 0x7f]]);
  if (roll < 0.45) return randomChars(r, int(r, 60));
  return mix(r);
}

/** Returns a description of what is wrong with `result`, or undefined. */
function problem(result: ParseResult): string | undefined {
  switch (result.type) {
    case 'intent':
      return OperationIntentSchema.safeParse(result.intent).error?.message;
    case 'query':
      return QuerySchema.safeParse(result.query).error?.message;
    case 'command':
      return CommandSchema.safeParse(result.command).error?.message;
    case 'reply':
      if (typeof result.message !== 'string' || !result.message.includes('\nUsage: `')) return 'a reply without usage';
      if (result.suggestion !== undefined && result.suggestion.length === 0) return 'an empty suggestion';
      return undefined;
  }
}

describe('parseCommand fuzz', () => {
  it(`never throws and returns only valid results for ${COUNT} random inputs (seed ${SEED})`, () => {
    const r = prng(SEED);
    const contexts: ParseContext[] = [
      {},
      { defaultNamespace: 'analytics' },
      { defaultNamespace: 'Bad_NS' },
      { command: '/ops' },
    ];
    const counts: Record<ParseResult['type'], number> = { intent: 0, query: 0, command: 0, reply: 0 };
    const kinds = new Set<string>();
    for (let i = 0; i < COUNT; i++) {
      const text = input(r, i);
      const ctx = pick(r, contexts);
      let result: ParseResult;
      try {
        result = parseCommand(text, ctx);
      } catch (error) {
        throw new Error(`input #${i} (seed ${SEED}) threw: ${JSON.stringify(text.slice(0, 300))}`, { cause: error });
      }
      const wrong = problem(result);
      if (wrong !== undefined) {
        expect.fail(
          `input #${i} (seed ${SEED}) ${JSON.stringify(text.slice(0, 300))} → ${JSON.stringify(result)}: ${wrong}`,
        );
      }
      counts[result.type]++;
      if (result.type === 'intent') kinds.add(result.intent.kind);
    }
    expect([...kinds]).toEqual(expect.arrayContaining(['resources', 'config']));
    // The generator must reach past the tokenizer: every kind of result shows up.
    for (const type of Object.keys(counts) as ParseResult['type'][]) expect(counts[type], type).toBeGreaterThan(0);
  }, 60_000);
});

describe('parseCommand fuzz: savepoints and exceptions', () => {
  it('hostile targets, limits and flags never throw and yield valid queries or replies with usage', () => {
    const r = prng(SEED + 1);
    const kinds = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const text = historyQuery(r);
      const result = parseCommand(text, pick(r, [{}, { defaultNamespace: 'analytics' }]));
      const wrong = problem(result);
      if (wrong !== undefined)
        expect.fail(`${JSON.stringify(text.slice(0, 300))} → ${JSON.stringify(result)}: ${wrong}`);
      if (result.type === 'query') kinds.add(result.query.kind);
    }
    expect([...kinds].sort()).toEqual(['exceptions', 'savepoints']);
  });
});
