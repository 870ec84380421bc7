// The bot's services on the in-memory store twins, for the unit tier: BotDeps with a clock the test moves, a fake
// cluster at the Kubernetes boundary, and recording fakes of the queue and card-poster ports.
import { randomBytes } from 'node:crypto';
import { ApprovalService } from '../../src/app/approvals.js';
import { BreakGlassReviews } from '../../src/app/break-glass.js';
import { MembershipSource, type BotDeps } from '../../src/app/context.js';
import { OperationService } from '../../src/app/operations.js';
import { staticPolicy } from '../../src/app/policy-source.js';
import type { CardPoster, Enqueuer, PostOutcome } from '../../src/app/ports/index.js';
import { OperationIntentSchema, type OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import { validatePolicy } from '../../src/domain/engines/policy/validate.js';
import type { Policy } from '../../src/domain/engines/policy/schema.js';
import { createLogger } from '../../src/log.js';
import { memoryStores, type MemoryStores } from '../../src/store/memory/index.js';
import { FakeCluster } from './fake-cluster.js';
import { flinkDeployment } from './fixtures.js';

export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const LEAD = 'U0LEAD';
export const LEAD2 = 'U0LEAD2';
export const OPS = 'C0OPS';
/** Wednesday 2026-11-25 10:00 UTC: no time-window rule is in force. */
export const WEDNESDAY = Date.parse('2026-11-25T10:00:00Z');
export const PROD: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };
export const DEV: Target = { kind: 'FlinkDeployment', namespace: 'streaming-dev', name: 'orders-enricher' };

/** Production needs a lead (or break-glass by on-call); development needs nobody. */
export const UNIT_POLICY = {
  version: 1,
  groups: { leads: { users: [LEAD, LEAD2] }, oncall: { users: [ALICE] } },
  namespaces: [{ name: 'streaming-prod', environment: 'production' }, { name: 'streaming-dev' }],
  rules: [
    { name: 'prod-needs-a-lead', when: { namespaces: ['streaming-prod'] }, require: { approvals: 1, from: ['leads'] } },
  ],
  approval: { ttl: '30m', allowSelfApproval: false },
  breakGlass: { groups: ['oncall'], environments: ['production'], reviewWithin: '1h' },
};

export function unitPolicy(raw: Record<string, unknown> = UNIT_POLICY): Policy {
  const valid = validatePolicy(raw);
  if (!valid.ok) throw new Error(valid.errors.join('\n'));
  return valid.policy;
}

export function intent(raw: Record<string, unknown>): OperationIntent {
  return OperationIntentSchema.parse({ incidentChannels: [], ...raw });
}

export interface MemoryBot {
  deps: BotDeps;
  stores: MemoryStores;
  cluster: FakeCluster;
  /** Moves the clock every store and service reads. */
  advance(ms: number): void;
  now(): number;
  enqueued: { opId: string; revision: number; cluster?: string | undefined; runAt?: number }[];
  cards: OperationRecord[];
  /** What the next card post answers (default: posted). */
  nextCard: PostOutcome | undefined;
  operations: OperationService;
  approvals: ApprovalService;
  reviews: BreakGlassReviews;
}

export function memoryBot(opts: { policy?: Policy; now?: number } = {}): MemoryBot {
  let clock = opts.now ?? WEDNESDAY;
  const now = () => clock;
  const stores = memoryStores({ now });
  const cluster = new FakeCluster();
  cluster.put(flinkDeployment({ namespace: PROD.namespace }));
  cluster.put(flinkDeployment({ namespace: DEV.namespace }));
  const enqueued: MemoryBot['enqueued'] = [];
  const cards: OperationRecord[] = [];
  const enqueuer: Enqueuer = {
    enqueue: async (opId, revision, target) => void enqueued.push({ opId, revision, cluster: target.cluster }),
    enqueueAt: async (opId, revision, target, runAt) =>
      void enqueued.push({ opId, revision, cluster: target.cluster, runAt }),
  };
  const bot = { nextCard: undefined as PostOutcome | undefined };
  const poster: CardPoster = {
    postCard: async (record) => {
      cards.push(record);
      const outcome = bot.nextCard ?? { ok: true as const, ts: `1700000000.${String(cards.length).padStart(6, '0')}` };
      bot.nextCard = undefined;
      return outcome;
    },
  };
  const deps: BotDeps = {
    store: stores.store,
    freezes: stores.freezes,
    leases: stores.leases,
    clusters: { names: ['default'], kube: () => cluster, rest: () => undefined },
    policy: staticPolicy(opts.policy ?? unitPolicy()),
    membership: new MembershipSource(async () => [], now),
    enqueuer,
    cards: poster,
    logger: createLogger('silent'),
    now,
    random: (size) => randomBytes(size),
    breakGlass: stores.breakGlass,
  };
  return Object.assign(bot, {
    deps,
    stores,
    cluster,
    advance: (ms: number) => void (clock += ms),
    now,
    enqueued,
    cards,
    operations: new OperationService(deps, 'flink-chatops'),
    approvals: new ApprovalService(deps),
    reviews: new BreakGlassReviews({
      store: stores.store,
      index: stores.breakGlass,
      policy: deps.policy,
      membership: deps.membership,
      logger: deps.logger,
    }),
  });
}

/** A request that must be recorded; its record as decided. */
export async function recorded(
  bot: MemoryBot,
  raw: Record<string, unknown>,
  requester = ALICE,
): Promise<OperationRecord> {
  const outcome = await bot.operations.request({ intent: intent(raw), requester, channel: OPS });
  if (outcome.type !== 'recorded')
    throw new Error(
      `not recorded: ${outcome.type === 'refused' || outcome.type === 'cancelled' ? outcome.message : ''}`,
    );
  return outcome.record;
}

/** The digest prefix an approval card's buttons carry. */
export function digestOf(record: OperationRecord): string {
  return (record.plan?.digest ?? '').slice(0, 16);
}
