// The /flink command language (docs/commands.md#command-reference) as one table: input → exact result, or refusal
// message + suggestion.
import { describe, expect, it } from 'vitest';
import { parseCommand, usageLine, type ParseContext } from '../../../../../src/domain/engines/language/parse.js';
import type { Command, ParseResult, Query } from '../../../../../src/domain/engines/language/requests.js';
import type { OperationIntent } from '../../../../../src/domain/kinds/index.js';
import type { Target } from '../../../../../src/domain/model/target.js';

const NS: ParseContext = { defaultNamespace: 'analytics' };
const NONE: ParseContext = {};

const dep = (namespace: string, name: string): Target => ({ kind: 'FlinkDeployment', namespace, name });
const sj = (namespace: string, name: string): Target => ({ kind: 'FlinkSessionJob', namespace, name });
const X = dep('prod', 'x');

type IntentInput = {
  [K in OperationIntent['kind']]: Omit<Extract<OperationIntent, { kind: K }>, 'incidentChannels'> & {
    incidentChannels?: string[];
  };
}[OperationIntent['kind']];
type QueryInput = {
  [K in Query['kind']]: Omit<Extract<Query, { kind: K }>, 'public'> & { public?: boolean };
}[Query['kind']];

const I = (intent: IntentInput): ParseResult => ({
  type: 'intent',
  intent: { incidentChannels: [], ...intent } as OperationIntent,
});
const Q = (query: QueryInput): ParseResult => ({ type: 'query', query: { public: false, ...query } as Query });
const C = (command: Command): ParseResult => ({ type: 'command', command });

type Row =
  | { text: string; ctx?: ParseContext; want: ParseResult }
  | { text: string; ctx?: ParseContext; reply: RegExp; suggestion?: string };

const ok = (text: string, want: ParseResult, ctx: ParseContext = NONE): Row => ({ text, ctx, want });
const no = (text: string, reply: RegExp, suggestion?: string, ctx: ParseContext = NONE): Row => ({
  text,
  ctx,
  reply,
  suggestion,
});

const HEX64 = 'ab'.repeat(32);

const rows: Row[] = [
  // empty input and help
  ok('', Q({ kind: 'help' })),
  ok('  \t\n ', Q({ kind: 'help' })),
  ok('\u00a0\u200b', Q({ kind: 'help' })),
  ok('help', Q({ kind: 'help' })),
  ok('HELP Scale', Q({ kind: 'help', verb: 'scale' })),
  ok('help scale --public', Q({ kind: 'help', verb: 'scale', public: true })),
  ok('scale --help', Q({ kind: 'help', verb: 'scale' })),
  ok('--help', Q({ kind: 'help' })),
  no('help sacle', /unknown command "sacle"; did you mean `scale`\?/, 'scale'),
  no('help frobnicate', /unknown command "frobnicate"; the commands are help, status, list/),
  ok('/flink status prod/x', Q({ kind: 'status', target: X })),
  // status and targets
  ok('status prod/clickstream', Q({ kind: 'status', target: dep('prod', 'clickstream') })),
  ok('status clickstream', Q({ kind: 'status', target: dep('analytics', 'clickstream') }), NS),
  no(
    'status clickstream',
    /"clickstream" has no namespace and this channel has no default; write namespace\/clickstream/,
  ),
  ok('Status   prod/clickstream \t --public', Q({ kind: 'status', target: dep('prod', 'clickstream'), public: true })),
  ok('status --public prod/clickstream', Q({ kind: 'status', target: dep('prod', 'clickstream'), public: true })),
  ok('status sessionjob:prod/sessionizer', Q({ kind: 'status', target: sj('prod', 'sessionizer') })),
  ok('status SessionJob:sessionizer', Q({ kind: 'status', target: sj('analytics', 'sessionizer') }), NS),
  ok('status job.v2-eu', Q({ kind: 'status', target: dep('analytics', 'job.v2-eu') }), NS),
  ok(
    'status <http://clickstream.prod|clickstream.prod>',
    Q({ kind: 'status', target: dep('analytics', 'clickstream.prod') }),
    NS,
  ),
  no('status', /status needs <target>/),
  no('status Prod/clickstream', /namespace "Prod" has uppercase letters.*try "prod"/),
  no(
    'status prod/ClickStream',
    /"ClickStream" has uppercase letters; Kubernetes names are lowercase \(try "clickstream"\)/,
  ),
  no('status prod/click_stream', /"click_stream" has "_"; Kubernetes names use "-" \(try "click-stream"\)/),
  no('status my_ns/x', /namespace "my_ns" has "_"/),
  ok(`status prod/${'a'.repeat(253)}`, Q({ kind: 'status', target: dep('prod', 'a'.repeat(253)) })),
  no(`status prod/${'a'.repeat(254)}`, /the name is 254 characters long; Kubernetes allows at most 253/),
  ok(`status ${'n'.repeat(63)}/x`, Q({ kind: 'status', target: dep('n'.repeat(63), 'x') })),
  no(`status ${'n'.repeat(64)}/x`, /the namespace is 64 characters long; Kubernetes allows at most 63/),
  ok('status eu/b/c', Q({ kind: 'status', target: { cluster: 'eu', ...dep('b', 'c') } })),
  no('status a/b/c/d', /more than two "\/"; write namespace\/name or cluster\/namespace\/name/),
  no('status EU/b/c', /cluster "EU" is not a valid cluster name/),
  no(
    `status ${'x/'.repeat(5000)}`,
    /the target is 10000 characters long; names have at most 253 characters and namespaces 63/,
  ),
  no('status <#C0123ABCD|general>', /"<#C0123ABCD\|general>" is a Slack mention, not a target/),
  no('status prod/-x', /"-x" is not a valid Kubernetes name/),
  no('status prod/x --public=yes', /--public takes no value; write just --public/),
  no('status prod/x --public true', /--public takes no value/),
  no('status prod/x extra', /unexpected "extra": status takes <target>/),
  no('status prod/x --publc', /unknown option "--publc" for status; did you mean --public\?/, '--public'),
  // list
  ok('list', Q({ kind: 'list' })),
  ok('list analytics', Q({ kind: 'list', namespace: 'analytics' })),
  ok('LIST --public', Q({ kind: 'list', public: true })),
  no('list Analytics', /namespace "Analytics" has uppercase letters/),
  // ops
  ok('ops', Q({ kind: 'ops', limit: 10 })),
  ok('ops prod/x --limit 5', Q({ kind: 'ops', target: X, limit: 5 })),
  ok('ops --limit=25 prod/x', Q({ kind: 'ops', target: X, limit: 25 })),
  ok('ops --limit 5 --limit 5', Q({ kind: 'ops', limit: 5 })),
  no('ops --limit 0', /--limit must be a whole number from 1 to 100; got "0"/),
  no('ops --limit 101', /--limit must be a whole number from 1 to 100; got "101"/),
  no('ops --limit', /--limit needs a value: --limit <n>/),
  no('ops --limit 5 --limit 6', /--limit was given 2 times with different values \("5", "6"\); give it once/),
  no('ops --limt 5', /did you mean --limit\?/, '--limit'),
  // op
  ok('op op-7f3c2a9b', Q({ kind: 'op', opId: 'op-7f3c2a9b' })),
  ok('op OP-7F3C2A9B --public', Q({ kind: 'op', opId: 'op-7f3c2a9b', public: true })),
  no('op op-12345', /"op-12345" is not an op id; ids look like op-7f3c2a9b/),
  no('op op-abcdefghijklm', /is not an op id/),
  no('op', /op needs <op id>/),
  // explain
  ok(
    'explain scale prod/x 12',
    Q({ kind: 'explain', intent: { kind: 'scale', target: X, parallelism: 12, incidentChannels: [] } }),
  ),
  ok(
    'explain --public upgrade clickstream --image ghcr.io/acme/app:1.2 --reason "try it"',
    Q({
      kind: 'explain',
      public: true,
      intent: {
        kind: 'upgrade',
        target: dep('analytics', 'clickstream'),
        image: 'ghcr.io/acme/app:1.2',
        reason: 'try it',
        incidentChannels: [],
      },
    }),
    NS,
  ),
  ok(
    'explain restore prod/x --from s3://b/sp-1 --allow-non-restored-state --public',
    Q({
      kind: 'explain',
      public: true,
      intent: { kind: 'restore', target: X, from: 's3://b/sp-1', allowNonRestoredState: true, incidentChannels: [] },
    }),
  ),
  no('explain', /explain needs the operation command to explain/),
  no('explain status prod/x', /explain works on operation commands \(suspend, resume, .*\); `status` is a query/),
  no('explain lock prod/x --reason x', /`lock` is a command/),
  no('explain sacle prod/x 3', /unknown operation "sacle"; did you mean `scale`\?/, 'scale'),
  no('explain scale prod/x 0', /parallelism must be a whole number from 1 to 32768; got "0"/),
  // locks
  ok('locks', Q({ kind: 'locks' })),
  ok('locks --public', Q({ kind: 'locks', public: true })),
  no('locks prod/x', /unexpected "prod\/x": locks takes no arguments/),
  // savepoints and exceptions
  ok('savepoints prod/x', Q({ kind: 'savepoints', target: X, limit: 10 })),
  ok(
    'savepoints x --limit 3 --public',
    Q({ kind: 'savepoints', target: dep('analytics', 'x'), limit: 3, public: true }),
    NS,
  ),
  ok('SAVEPOINTS sessionjob:prod/sj --limit=100', Q({ kind: 'savepoints', target: sj('prod', 'sj'), limit: 100 })),
  ok('/flink savepoints prod/x', Q({ kind: 'savepoints', target: X, limit: 10 })),
  no('savepoints', /savepoints needs <target>/),
  no('savepoints prod/x --limit 0', /--limit must be a whole number from 1 to 100; got "0"/),
  no('savepoints prod/x --limit 1e2', /--limit must be a whole number from 1 to 100/),
  no('savepoints prod/x --from s3://b/sp', /--from is not an option of savepoints; it belongs to restore/),
  no('savepoints prod/x extra', /unexpected "extra": savepoints takes <target>/),
  no('savepoints ../etc', /namespace "\.\." is not valid/),
  no('snapshots prod/x', /unknown command "snapshots"; did you mean `savepoints`\?/, 'savepoints'),
  no('savepoint prod/x --limit 3', /--limit is not an option of savepoint; it belongs to ops, savepoints, exceptions/),
  ok('exceptions prod/x', Q({ kind: 'exceptions', target: X, limit: 10 })),
  ok('exceptions prod/x --public --limit 25', Q({ kind: 'exceptions', target: X, limit: 25, public: true })),
  no('exceptions', /exceptions needs <target>/),
  no('exceptions prod/x --limit 101', /--limit must be a whole number from 1 to 100; got "101"/),
  no('exceptions prod/x --limit 5 --limit 6', /--limit was given 2 times with different values/),
  no('exceptions prod/x --publc', /did you mean --public\?/, '--public'),
  no('exceptions <#C0123ABCD|general>', /is a Slack mention, not a target/),
  no('errors prod/x', /unknown command "errors"; did you mean `exceptions`\?/, 'exceptions'),
  no('exeptions prod/x', /did you mean `exceptions`\?/, 'exceptions'),
  // suspend
  ok('suspend prod/x', I({ kind: 'suspend', target: X })),
  ok('suspend prod/x --mode savepoint', I({ kind: 'suspend', target: X, mode: 'savepoint' })),
  ok('suspend --mode=last-state prod/x', I({ kind: 'suspend', target: X, mode: 'last-state' })),
  ok('suspend prod/x --mode STATELESS', I({ kind: 'suspend', target: X, mode: 'stateless' })),
  ok('suspend prod/x --mode savepoint --mode savepoint', I({ kind: 'suspend', target: X, mode: 'savepoint' })),
  no(
    'suspend prod/x --mode savepont',
    /--mode must be one of savepoint, last-state, stateless; got "savepont"; did you mean savepoint\?/,
    'savepoint',
  ),
  no('suspend prod/x --mode last_state', /did you mean last-state\?/, 'last-state'),
  no(
    'suspend prod/x --mode savepoint --mode stateless',
    /--mode was given 2 times with different values \("savepoint", "stateless"\)/,
  ),
  no(
    'suspend',
    /suspend needs <target>.*\nUsage: `\/flink suspend <target> \[--mode savepoint\|last-state\|stateless\]/s,
  ),
  no('stop prod/x', /unknown command "stop"; did you mean `suspend`\?/, 'suspend'),
  // resume and --incident
  ok(
    'resume prod/x --reason "backfill done" --incident <#C0123ABCD|inc-4711>',
    I({ kind: 'resume', target: X, reason: 'backfill done', incidentChannels: ['C0123ABCD'] }),
  ),
  ok(
    'resume prod/x --incident <#C1111111|a> --incident=<#C2222222> --incident <#C1111111|a>',
    I({ kind: 'resume', target: X, incidentChannels: ['C1111111', 'C2222222'] }),
  ),
  ok('resume prod/x --incident C0123ABCDE', I({ kind: 'resume', target: X, incidentChannels: ['C0123ABCDE'] })),
  no('resume prod/x --incident @bob', /--incident takes a Slack channel.*"@bob" is not a channel/),
  no('resume prod/x --incident <@U123|bob>', /"<@U123\|bob>" is a person, not a channel/),
  no('resume prod/x --incident=<!subteam^S123|@leads>', /is a user group, not a channel/),
  no('resume prod/x --incident #incidents', /"#incidents" arrived as plain text, not as a channel link/),
  no('resume prod/x --incident', /--incident needs a value: --incident <#channel>/),
  no('resmue prod/x', /did you mean `resume`\?/, 'resume'),
  // restart, quoting, entities, mentions in free text
  ok('restart prod/x', I({ kind: 'restart', target: X })),
  ok('RESTART prod/x', I({ kind: 'restart', target: X })),
  ok(
    'restart prod/x --reason "paging <@U123> and <!subteam^S456|@leads>"',
    I({ kind: 'restart', target: X, reason: 'paging <@U123> and <!subteam^S456|@leads>' }),
  ),
  ok(
    'restart prod/x --reason "ask <@U1|o\'neil> first"',
    I({ kind: 'restart', target: X, reason: "ask <@U1|o'neil> first" }),
  ),
  ok('restart prod/x --reason “typographic quotes”', I({ kind: 'restart', target: X, reason: 'typographic quotes' })),
  ok('restart prod/x --reason ‘single curly’', I({ kind: 'restart', target: X, reason: 'single curly' })),
  ok("restart prod/x --reason 'it's done'", I({ kind: 'restart', target: X, reason: "it's done" })),
  ok('restart prod/x --reason=“a b”', I({ kind: 'restart', target: X, reason: 'a b' })),
  ok('restart\tprod/x\u00a0\u00a0--reason   "x  y"  ', I({ kind: 'restart', target: X, reason: 'x  y' })),
  ok('restart prod/x --reason "a &lt;b&gt; &amp; c"', I({ kind: 'restart', target: X, reason: 'a <b> & c' })),
  ok('restart prod/x --reason "🔥 hot מבחן"', I({ kind: 'restart', target: X, reason: '🔥 hot מבחן' })),
  ok(
    'restart prod/x —reason "em dash from autocorrect"',
    I({ kind: 'restart', target: X, reason: 'em dash from autocorrect' }),
  ),
  ok('restart prod/x --reason oom --reason oom', I({ kind: 'restart', target: X, reason: 'oom' })),
  no('restart prod/x --reason "unterminated', /unterminated quote: the " before "unterminated" is never closed/),
  no('restart prod/x --reason “never closed', /unterminated quote/),
  no(
    'restart prod/x --reason deploy freeze',
    /--reason takes one word unless quoted; write `--reason "deploy freeze"`/,
  ),
  no('restart prod/x --reason ""', /--reason needs some text/),
  no('restart prod/x --reason a --reason b', /--reason was given 2 times with different values/),
  no(`restart prod/x --reason "${'r'.repeat(1001)}"`, /--reason is 1001 characters long; keep it under 1000/),
  no('restart prod/x --reason', /--reason needs a value/),
  no('restart prod/x --force', /unknown option "--force" for restart; its options are --reason, --incident/),
  no('restart prod/x -reason', /unexpected "-reason".*options start with two dashes/),
  no('restart', /restart needs <target>/),
  // scale and numbers
  ok('scale prod/x 8', I({ kind: 'scale', target: X, parallelism: 8 })),
  ok('scale prod/x 1', I({ kind: 'scale', target: X, parallelism: 1 })),
  ok('scale prod/x 32768', I({ kind: 'scale', target: X, parallelism: 32768 })),
  ok('scale --reason "backlog" prod/x 4', I({ kind: 'scale', target: X, parallelism: 4, reason: 'backlog' })),
  ok('scale sessionjob:prod/x 2', I({ kind: 'scale', target: sj('prod', 'x'), parallelism: 2 })),
  no('scale prod/x 0', /parallelism must be a whole number from 1 to 32768; got "0"/),
  no('scale prod/x 100000', /from 1 to 32768; got "100000"/),
  no('scale prod/x 3.5', /from 1 to 32768; got "3.5"/),
  no('scale prod/x -1', /from 1 to 32768; got "-1"/),
  no('scale prod/x 1e3', /from 1 to 32768; got "1e3"/),
  no('scale prod/x eight', /from 1 to 32768; got "eight"/),
  no('scale 8 prod/x', /from 1 to 32768; got "prod\/x"/, undefined, NS),
  no('scale prod/x', /scale needs <parallelism>/),
  no('scale prod/x 4 5', /unexpected "5": scale takes <target> <parallelism>/),
  no('scale prod/x 4 --image ghcr.io/a/b:1', /--image is not an option of scale; it belongs to upgrade/),
  no(
    'sacle prod/x 4',
    /^unknown command "sacle"; did you mean `scale`\?\nUsage: `\/flink scale <target> <parallelism>/,
    'scale',
  ),
  // upgrade and image references
  ok(
    'upgrade prod/x --image registry.example.com/team/app:1.4.2',
    I({ kind: 'upgrade', target: X, image: 'registry.example.com/team/app:1.4.2' }),
  ),
  ok('upgrade prod/x --image=localhost:5000/app', I({ kind: 'upgrade', target: X, image: 'localhost:5000/app' })),
  ok(
    `upgrade prod/x --image ghcr.io/acme/app@sha256:${HEX64}`,
    I({ kind: 'upgrade', target: X, image: `ghcr.io/acme/app@sha256:${HEX64}` }),
  ),
  ok(
    'upgrade --mode stateless --image flink:1.20 prod/x',
    I({ kind: 'upgrade', target: X, image: 'flink:1.20', mode: 'stateless' }),
  ),
  ok(
    'upgrade prod/x --image <http://ghcr.io/acme/app:1.2|ghcr.io/acme/app:1.2>',
    I({ kind: 'upgrade', target: X, image: 'ghcr.io/acme/app:1.2' }),
  ),
  ok('upgrade sessionjob:prod/x --image app:1', I({ kind: 'upgrade', target: sj('prod', 'x'), image: 'app:1' })),
  no('upgrade prod/x --image "app:1.2 rm -rf /"', /image "app:1.2 rm -rf \/" contains a space/),
  no('upgrade prod/x --image app:1.2;rm', /contains ";", which no image reference has/),
  no('upgrade prod/x --image=$(whoami)', /contains "\$"/),
  no('upgrade prod/x --image `id`', /contains "`"/),
  no('upgrade prod/x --image https://ghcr.io/acme/app:1', /image references have no scheme: drop "https:\/\/"/),
  no(
    'upgrade prod/x --image ghcr.io/Acme/App:1',
    /"ghcr.io\/Acme\/App:1" is not an image reference \(repository names are lowercase\)/,
  ),
  no('upgrade prod/x --image ghcr.io/acme/app:', /is not an image reference; expected registry\/repository\[:tag\]/),
  no(`upgrade prod/x --image app@sha256:${'a'.repeat(40)}`, /a sha256 digest has 64 hex digits/),
  no('upgrade prod/x', /upgrade needs --image <image>/),
  no('upgrade prod/x --imag app:1', /did you mean --image\?/, '--image'),
  // savepoint
  ok('savepoint prod/x', I({ kind: 'savepoint', target: X })),
  ok(
    'savepoint sessionjob:prod/job --incident <#C0123ABCD>',
    I({ kind: 'savepoint', target: sj('prod', 'job'), incidentChannels: ['C0123ABCD'] }),
  ),
  no('savepoint prod/x --mode savepoint', /--mode is not an option of savepoint; it belongs to suspend, upgrade/),
  // restore and URIs
  ok(
    'restore prod/x --from s3://bucket/savepoints/sp-1',
    I({ kind: 'restore', target: X, from: 's3://bucket/savepoints/sp-1', allowNonRestoredState: false }),
  ),
  ok(
    'restore prod/x --from=file:///flink/sp-1 --allow-non-restored-state',
    I({ kind: 'restore', target: X, from: 'file:///flink/sp-1', allowNonRestoredState: true }),
  ),
  ok(
    'restore --allow-non-restored-state --from abfss://c@acct.dfs.core.windows.net/sp/1 prod/x',
    I({ kind: 'restore', target: X, from: 'abfss://c@acct.dfs.core.windows.net/sp/1', allowNonRestoredState: true }),
  ),
  ok(
    'restore prod/x --from hdfs://nn:8020/flink/sp-9',
    I({ kind: 'restore', target: X, from: 'hdfs://nn:8020/flink/sp-9', allowNonRestoredState: false }),
  ),
  no('restore prod/x --from /tmp/sp', /"\/tmp\/sp" has no scheme; write the whole URI/),
  no(
    'restore prod/x --from s3://bucket',
    /"s3:\/\/bucket" is missing the path: give the savepoint directory, e.g. s3:\/\/bucket\/savepoints/,
  ),
  no('restore prod/x --from s3://bucket/', /is missing the path/),
  no('restore prod/x --from s3:/bucket/sp', /needs "\/\/" after the scheme/),
  no('restore prod/x --from "s3://b/my sp"', /contains a space, which a savepoint URI cannot have/),
  no('restore prod/x', /restore needs --from <uri>/),
  no('restore prod/x --from s3://b/sp --allow-non-restored-state=true', /--allow-non-restored-state takes no value/),
  no('restore prod/x --from s3://b/sp-1 --from s3://b/sp-2', /--from was given 2 times with different values/),
  // resources: Flink memory sizes, normalised to a whole number in the largest exact unit; cpu in cores
  ok('resources prod/x --tm-memory 4g', I({ kind: 'resources', target: X, taskManagerMemory: '4g' })),
  ok('resources prod/x --tm-memory 2048m', I({ kind: 'resources', target: X, taskManagerMemory: '2g' })),
  ok(
    'resources prod/x --tm-memory 6144MB --jm-memory 1.5gb',
    I({ kind: 'resources', target: X, taskManagerMemory: '6g', jobManagerMemory: '1536m' }),
  ),
  ok('resources prod/x --tm-memory "1.5 GB"', I({ kind: 'resources', target: X, taskManagerMemory: '1536m' })),
  ok('resources prod/x --tm-memory 1073741824', I({ kind: 'resources', target: X, taskManagerMemory: '1g' })),
  ok('resources prod/x --tm-memory 1000000b', I({ kind: 'resources', target: X, taskManagerMemory: '1000000b' })),
  ok(
    'resources prod/x --jm-memory 512Kb --jm-cpu 0.5',
    I({ kind: 'resources', target: X, jobManagerMemory: '512k', jobManagerCpu: 0.5 }),
  ),
  ok(
    'resources prod/x --tm-cpu 2 --tm-memory=1t',
    I({ kind: 'resources', target: X, taskManagerCpu: 2, taskManagerMemory: '1t' }),
  ),
  ok(
    'resources clickstream --tm-cpu 1.25 --reason "OOM loop"',
    I({ kind: 'resources', target: dep('analytics', 'clickstream'), taskManagerCpu: 1.25, reason: 'OOM loop' }),
    NS,
  ),
  no('resources prod/x', /resources needs at least one of --tm-memory, --tm-cpu, --jm-memory, --jm-cpu/),
  no('resources prod/x --tm-memory 4 gigs', /unexpected "gigs": resources takes <target>/),
  no('resources prod/x --tm-memory 4zb', /--tm-memory "4zb" has an unknown unit "zb"; e\.g\. 2048m, 4g, 1\.5gb/),
  no('resources prod/x --tm-memory 4Gi', /unknown unit "Gi" \(a Kubernetes unit: write 4g, not 4Gi\)/),
  no('resources prod/x --tm-memory -4g', /not a memory size \(it must be positive\)/),
  no('resources prod/x --tm-memory 0m', /must be more than 0/),
  no('resources prod/x --tm-memory 1.3b', /is not a whole number of bytes/),
  no('resources prod/x --tm-memory lots', /"lots" is not a memory size/),
  no('resources prod/x --tm-cpu 500m', /--tm-cpu "500m" is not a CPU amount \(write cores: 0\.5 for 500m\)/),
  no('resources prod/x --tm-cpu 0', /--tm-cpu "0" is not a CPU amount/),
  no('resources prod/x --tm-cpu 2 --tm-cpu 3', /--tm-cpu was given 2 times with different values/),
  no(
    'resources prod/x --memory 4g',
    /unknown option "--memory" for resources; its options are --tm-memory, --tm-cpu, --jm-memory, --jm-cpu/,
  ),
  no('scale prod/x 4 --tm-memory 4g', /--tm-memory is not an option of scale; it belongs to resources/),
  // config: a sub-verb, then key=value (set) or key (unset) entries
  ok(
    'config prod/x set execution.checkpointing.interval=30s',
    I({
      kind: 'config',
      target: X,
      action: 'set',
      entries: [{ key: 'execution.checkpointing.interval', value: '30s' }],
    }),
  ),
  ok(
    'config prod/x SET restart-strategy.type=fixed-delay "restart-strategy.fixed-delay.delay=10 s" --reason flaky',
    I({
      kind: 'config',
      target: X,
      action: 'set',
      entries: [
        { key: 'restart-strategy.type', value: 'fixed-delay' },
        { key: 'restart-strategy.fixed-delay.delay', value: '10 s' },
      ],
      reason: 'flaky',
    }),
  ),
  ok(
    'config prod/x unset execution.checkpointing.interval state.backend.type',
    I({
      kind: 'config',
      target: X,
      action: 'unset',
      entries: [{ key: 'execution.checkpointing.interval' }, { key: 'state.backend.type' }],
    }),
  ),
  ok(
    'config prod/x set job.autoscaler.enabled=true',
    I({ kind: 'config', target: X, action: 'set', entries: [{ key: 'job.autoscaler.enabled', value: 'true' }] }),
  ),
  no('config prod/x', /config needs set\|unset/),
  no('config prod/x set', /config needs <key>\[=<value>\]…/),
  no('config prod/x put a.b=1', /config takes set or unset; got "put"; did you mean set\?/, 'set'),
  no('config prod/x remove a.b', /did you mean unset\?/, 'unset'),
  no(
    'config prod/x set a.b',
    /config set takes key=value; "a\.b" has no "=" \(to remove it: config <target> unset a\.b\)/,
  ),
  no('config prod/x unset a.b=1', /config unset takes only keys; write a\.b, not a\.b=…/),
  no('config prod/x set =30s', /an entry has no key before "="/),
  no('config prod/x set "my key=1"', /the key "my key" contains a space; configuration keys have none/),
  no('config prod/x set a.b=', /a\.b= has no value; to remove a key use `config <target> unset a\.b`/),
  no('config prod/x set env.java.opts=-Dx=y', /the value of env\.java\.opts contains "="/),
  no('config prod/x set a..b=1', /"a\.\.b" is not a Flink configuration key/),
  no('config prod/x set a.b=1 a.b=2', /a\.b is given more than once/),
  no(
    `config prod/x set ${Array.from({ length: 500 }, (_, i) => `k${i}=v`).join(' ')}`,
    /config takes at most 50 of <key>\[=<value>\]… in one command; got 500/,
  ),
  no('config prod/x set a.b=1 --reason too long', /--reason takes one word unless quoted; write `--reason "too long"`/),
  ok(
    'explain config prod/x unset a.b --public',
    Q({
      kind: 'explain',
      intent: { kind: 'config', target: X, action: 'unset', entries: [{ key: 'a.b' }], incidentChannels: [] },
      public: true,
    }),
  ),
  no('explain config prod/x set a.b', /config set takes key=value/),
  no('config prod/x set a.b=1 --image r/i:1', /--image is not an option of config; it belongs to upgrade/),
  // scale --reset-autoscaler (the autoscaler's overrides are cleared with the new parallelism)
  ok('scale prod/x 6 --reset-autoscaler', I({ kind: 'scale', target: X, parallelism: 6, resetAutoscaler: true })),
  ok(
    'scale --reset-autoscaler prod/x 6 --reason "pin it"',
    I({ kind: 'scale', target: X, parallelism: 6, resetAutoscaler: true, reason: 'pin it' }),
  ),
  no('scale prod/x 6 --reset-autoscaler=yes', /--reset-autoscaler takes no value; write just --reset-autoscaler/),
  no(
    'scale prod/x 6 --reset-autoscaller',
    /unknown option "--reset-autoscaller" for scale; did you mean --reset-autoscaler\?/,
    '--reset-autoscaler',
  ),
  no('restart prod/x --reset-autoscaler', /--reset-autoscaler is not an option of restart; it belongs to scale/),
  // two-word verbs: `gitops resume` is the verb gitops-resume
  ok('gitops resume prod/x', I({ kind: 'gitops-resume', target: X })),
  ok('GitOps RESUME prod/x --reason committed', I({ kind: 'gitops-resume', target: X, reason: 'committed' })),
  ok('gitops-resume prod/x', I({ kind: 'gitops-resume', target: X })),
  ok('/flink gitops resume prod/x', I({ kind: 'gitops-resume', target: X })),
  no('gitops resume', /^gitops resume needs <target>\nUsage: `\/flink gitops resume <target> \[--reason/),
  no(
    'gitops suspend prod/x',
    /^unknown gitops command "suspend"; use `gitops resume <target>`\nUsage: `\/flink gitops resume/,
  ),
  no('gitops', /^gitops needs a command; use `gitops resume <target>`/),
  no('gitops --reason x', /^gitops needs a command; use `gitops resume <target>`/),
  no(
    'gitops resume prod/x --mode savepoint',
    /--mode is not an option of gitops resume; it belongs to suspend, upgrade/,
  ),
  no('gitops resume prod/x extra', /unexpected "extra": gitops resume takes <target>/),
  ok('gitops --help', Q({ kind: 'help', verb: 'gitops' })),
  ok('gitops resume prod/x --help', Q({ kind: 'help', verb: 'gitops-resume' })),
  ok('help gitops', Q({ kind: 'help', verb: 'gitops' })),
  ok('help gitops resume', Q({ kind: 'help', verb: 'gitops-resume' })),
  ok('help gitops-resume', Q({ kind: 'help', verb: 'gitops-resume' })),
  ok(
    'explain gitops resume prod/x --public',
    Q({ kind: 'explain', public: true, intent: { kind: 'gitops-resume', target: X, incidentChannels: [] } }),
  ),
  no(
    'explain gitops prod/x',
    /^unknown gitops command "prod\/x"; use `gitops resume <target>`\nUsage: `\/flink explain/,
  ),
  no('status gitops resume', /unexpected "resume": status takes <target>/),
  no('gitop resume prod/x', /unknown command "gitop"; did you mean `gitops resume`\?/, 'gitops-resume'),
  // undo
  ok('undo op-7f3c2a9b --reason "leaks memory"', I({ kind: 'undo', opId: 'op-7f3c2a9b', reason: 'leaks memory' })),
  no('undo prod/x', /"prod\/x" is not an op id/),
  no('undo', /undo needs <op id>/),
  no('rollback op-7f3c2a9b', /did you mean `undo`\?/, 'undo'),
  // commands
  ok('cancel op-7f3c2a9b', C({ kind: 'cancel', opId: 'op-7f3c2a9b' })),
  no(
    'cancel op-7f3c2a9b --reason x',
    /--reason is not an option of cancel; it belongs to suspend, resume, restart and others/,
  ),
  ok('lock prod/x --reason "quarter-end close"', C({ kind: 'lock', target: X, reason: 'quarter-end close' })),
  ok(
    'lock --reason freeze clickstream',
    C({ kind: 'lock', target: dep('analytics', 'clickstream'), reason: 'freeze' }),
    NS,
  ),
  no('lock prod/x', /lock needs --reason "…"/),
  ok('unlock prod/x', C({ kind: 'unlock', target: X })),
  no('unlock prod/x --public', /--public is not an option of unlock/),
  no('lcok prod/x', /did you mean `lock`\?/, 'lock'),
  // unknown verbs and odd starts
  no('frobnicate x', /unknown command "frobnicate"; the commands are help, status/),
  no('--public status x', /start with a command word/),
  no('<@U123> status x', /unknown command "<@U123>"/),
  no('restar prod/x', /did you mean `restart`\?/, 'restart'),
];

describe('parseCommand', () => {
  it('has a table of at least 90 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(90);
  });

  it.each(rows.map((row) => [row.text.length > 70 ? `${row.text.slice(0, 70)}…` : row.text, row] as const))(
    '%s',
    (_name, row) => {
      const result = parseCommand(row.text, row.ctx ?? NONE);
      if ('want' in row) {
        expect(result).toStrictEqual(row.want);
        return;
      }
      expect(result.type).toBe('reply');
      if (result.type !== 'reply') return;
      expect(result.message).toMatch(row.reply);
      expect(result.suggestion).toBe(row.suggestion);
      // Every refusal shows the correct usage.
      expect(result.message).toMatch(/\nUsage: `\/flink [^`]+`$/);
    },
  );

  it('uses the configured command name in usage lines', () => {
    const result = parseCommand('scale prod/x', { command: '/ops' });
    expect(result).toMatchObject({
      type: 'reply',
      message: expect.stringContaining(`Usage: \`${usageLine('scale', '/ops')}\``),
    });
    expect(usageLine('scale', '/ops')).toBe(
      '/ops scale <target> <parallelism> [--reset-autoscaler] [--reason "…"] [--incident <#channel>]… [--at <time>] [--window <window>] [--break-glass]',
    );
    expect(parseCommand('/ops locks', { command: '/ops' })).toStrictEqual(Q({ kind: 'locks' }));
  });
});
