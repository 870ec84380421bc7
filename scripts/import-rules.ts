// The import rule (docs/development.md#layout-and-conventions): the layer tables of the
// bot's src/ and of packages/sim/src, and the roots `npm run lint` checks. The checker is in import-rules/.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AreaRule, type Layers, WHOLE_ROOT, areaIn } from './import-rules/areas.js';
import type { Root } from './import-rules/check.js';

export { type AreaRule, type Layers, describeRule } from './import-rules/areas.js';
export {
  type CheckResult,
  type ImportEdge,
  type Problem,
  type ProblemKind,
  type Root,
  checkImports,
} from './import-rules/check.js';
export { findCycles } from './import-rules/cycles.js';
export { type FoundImport, type ImportKind, importsOf, scan } from './import-rules/scan.js';

/*
 * Who may import whom in src/, by area: a folder or a file under src/, named without `.ts`; a module belongs to
 * the longest area that contains it, and may always import its own area (import-rules/areas.ts).
 *
 * The arrows of docs/development.md#layout-and-conventions ("may be imported by"): domain → config, log → adapters →
 * app → {worker, notifier, slack} → roles → cli. Adapters implement app ports, so they may name the port types and the
 * views (erased at run time, so the run-time graph still points one way), never an app service. index is the bot's
 * public entry for the tools beside it (packages/sim); nothing in src/ imports it.
 */

/**
 * Inside the domain, model → kit → kinds → engines, folder by folder (docs/development.md#layout-and-conventions): each
 * imports only the ones before it, types included, since a type names the same coupling a value does.
 */
const DOMAIN_ORDER = ['domain/model', 'domain/kit', 'domain/kinds', 'domain/engines'] as const;
const DOMAIN = [...DOMAIN_ORDER];
const UTIL = ['config', 'log', 'concurrency'];
const ADAPTERS = ['store', 'kube', 'queue', 'http', 'slack-client'];
/** The app's port interfaces (app/ports.ts or app/ports/) and views: what adapters and renderers may name. */
const APP_FACES = ['app/ports', 'app/views'];
const APP = [...DOMAIN, ...UTIL, ...ADAPTERS, 'app', ...APP_FACES];
const BELOW_ROLES = [...APP, 'worker', 'notifier', 'audit', 'slack', 'slack/blocks'];

/** Pure: only the domain, zod and node:crypto (for hashing); no clock, randomness, process or I/O. */
const pure = (may: readonly string[]): AreaRule => ({ may, packages: ['zod', 'node:crypto'], pure: true });
const ADAPTER: AreaRule = { may: [...DOMAIN, ...UTIL, ...ADAPTERS], types: APP_FACES };

export const LAYERS: Layers = {
  ...Object.fromEntries(DOMAIN_ORDER.map((area, i) => [area, pure(DOMAIN_ORDER.slice(0, i))])),
  config: { may: DOMAIN }, // leaf utilities, for every area but domain
  log: { may: [] },
  concurrency: { may: [] }, // single-flight calls and a limiter, for bursts (docs/operating.md#under-a-burst)
  'cli/args': { may: [] }, // the argument parser cli and the simulators share
  store: ADAPTER,
  kube: ADAPTER,
  queue: ADAPTER,
  http: ADAPTER,
  'slack-client': ADAPTER, // the WebClient factory the notifier, the Bolt app and the bot role share
  'app/ports': { may: [...DOMAIN, 'app/views'] }, // interfaces the services call out through
  'app/views': { may: DOMAIN }, // what answers show; slack/blocks renders them
  app: { may: APP },
  'slack/blocks': { may: [...DOMAIN, 'app/views'] },
  worker: { may: APP }, // the three runners are peers: none imports another
  notifier: { may: [...APP, 'slack/blocks'] },
  audit: { may: APP }, // the audit trail of a process and the webhook's deliverer (docs/audit.md)
  slack: { may: [...APP, 'slack/blocks'] },
  roles: { may: BELOW_ROLES },
  cli: { may: [...BELOW_ROLES, 'roles', 'cli/args'] },
  index: { may: [...BELOW_ROLES, 'roles', 'cli/args'] },
};

/** packages/sim/src has no inner layering; what it may reach of the bot is its root's `entries`. */
export const SIM_LAYERS: Layers = { [WHOLE_ROOT]: { may: [] } };

/** The area of a module of src/ (path relative to src/, `/`-separated). */
export function areaOf(path: string): string | undefined {
  return areaIn(LAYERS, path);
}

function packageNameAt(dir: string): string | undefined {
  const file = join(dir, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name : undefined;
}

/**
 * The roots of the repository at `repo`: the bot's src/, and packages/sim/src when it exists. The bot never
 * imports the simulators; the simulators import the bot only through src/index.ts, by relative path, so neither
 * names the other's package (nor the bot its own, which would step around its table).
 */
export function projectRoots(repo: string): Root[] {
  const src = join(repo, 'src');
  const simDir = join(repo, 'packages', 'sim');
  const bot = packageNameAt(repo) ?? 'flink-chatops';
  const sim = packageNameAt(simDir) ?? '@flink-chatops/sim';
  const roots: Root[] = [
    {
      dir: src,
      name: 'src',
      layers: LAYERS,
      refused: {
        [sim]: 'nothing in the bot imports the simulators (packages/sim)',
        [bot]: 'the bot imports itself by relative path',
      },
    },
  ];
  if (existsSync(join(simDir, 'src'))) {
    roots.push({
      dir: join(simDir, 'src'),
      name: 'packages/sim/src',
      layers: SIM_LAYERS,
      entries: { [join(src, 'index.ts')]: "the bot's public entry src/index.ts" },
      refused: { [bot]: 'import the bot through its public entry, by relative path to src/index.ts' },
    });
  }
  return roots;
}
