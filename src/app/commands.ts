// `lock` and `unlock` (docs/policy.md#freezes): manual freezes, who may set and lift them, and the line in each
// affected thread.
import { UNKNOWN_TEAM } from '../domain/engines/audit/operation-events.js';
import { isTerminal } from '../domain/model/lifecycle.js';
import { canLock, canUnlock, findNamespace, unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import { approverGroups } from './groups.js';
import { joinWords } from '../domain/kit/policy/schedule.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import { forOperation } from '../log.js';
import { readLive } from './assess.js';
import type { BotDeps } from './context.js';

export type CommandOutcome = { ok: true; message: string } | { ok: false; message: string };

/** A Slack user and the workspace they typed in (the audit event's `actor`). */
export interface WorkspaceUser {
  user: string;
  team?: string;
  enterprise?: string;
}

export class FreezeCommands {
  constructor(private readonly deps: BotDeps) {}

  /**
   * Anyone who may request operations in the namespace; the target must exist (a typo would freeze nothing). `forMs`
   * (`--for`): it ends by itself that long from now (docs/policy.md#freezes).
   */
  async lock(
    target: Target,
    reason: string,
    user: string,
    who?: WorkspaceUser,
    forMs?: number,
  ): Promise<CommandOutcome> {
    const state = await this.deps.policy.current();
    if (!state.ok) return { ok: false, message: state.message };
    const shown = formatTarget(target);
    if (!findNamespace(state.policy, target.namespace, target.cluster))
      return { ok: false, message: unmanagedMessage(state.policy, target.namespace, target.cluster) };
    const membership = this.deps.membership.for(state.policy, state.hash);
    if (!(await canLock(state.policy, target.namespace, user, membership, target.cluster))) {
      return {
        ok: false,
        message: `you may not lock ${shown}: only those who may request operations in ${target.namespace} can`,
      };
    }
    const live = await readLive(target, this.deps.clusters.kube(target));
    if (!live.ok) return { ok: false, message: live.refusal };
    const at = this.deps.now();
    const until = forMs === undefined ? undefined : at + forMs;
    const result = await this.deps.freezes.freeze(target, { by: user, reason, at, ...(until ? { until } : {}) });
    if (!result.ok) {
      const { by, reason: why } = result.existing;
      return { ok: false, message: `${shown} is already frozen by <@${by}>: ${why}` };
    }
    const ends = until === undefined ? '' : ` (until ${new Date(until).toISOString()})`;
    await this.audit('frozen', target, who ?? { user }, {
      reason,
      ...(until === undefined ? {} : { until: new Date(until).toISOString() }),
    });
    const notified = await this.tellThreads(target, user, 'lock', `${reason}${ends}`);
    this.deps.logger.info({ target: shown, user, notified, until }, 'target frozen');
    const end =
      until === undefined ? 'until `unlock`' : `until ${new Date(until).toISOString()} (or \`unlock\` before then)`;
    return { ok: true, message: `${shown} is frozen: every operation on it is denied ${end}.${threads(notified)}` };
  }

  /** The one who froze it, or anyone in a group that approves operations in the namespace. */
  async unlock(target: Target, user: string, who?: WorkspaceUser): Promise<CommandOutcome> {
    const shown = formatTarget(target);
    const freeze = await this.deps.freezes.get(target);
    if (!freeze) return { ok: false, message: `${shown} is not frozen` };
    const state = await this.deps.policy.current();
    // Whoever froze it can always lift it, even while the policy file is missing or broken.
    if (!state.ok && user !== freeze.by) return { ok: false, message: state.message };
    const allowed =
      !state.ok ||
      (await canUnlock(
        state.policy,
        target.namespace,
        user,
        freeze.by,
        this.deps.membership.for(state.policy, state.hash),
        target.cluster,
      ));
    if (!allowed) {
      const groups = state.ok ? approverGroups(state.policy, target.namespace, undefined, target.cluster) : [];
      const who =
        groups.length === 0
          ? `<@${freeze.by}>, who froze it`
          : `<@${freeze.by}>, who froze it, or a member of ${joinWords(groups)}`;
      return { ok: false, message: `you may not unlock ${shown}: only ${who} can` };
    }
    const result = await this.deps.freezes.unfreeze(target, user);
    if (!result.ok) return { ok: false, message: `${shown} is not frozen` };
    await this.audit('unfrozen', target, who ?? { user }, {
      reason: result.was.reason,
      frozenBy: result.was.by,
    });
    const notified = await this.tellThreads(
      target,
      user,
      'unlock',
      `it was frozen by <@${result.was.by}>: ${result.was.reason}`,
    );
    this.deps.logger.info({ target: shown, user, notified }, 'target unfrozen');
    return { ok: true, message: `${shown} is no longer frozen.${threads(notified)}` };
  }

  /** The freeze as an audit event, after it was stored (docs/audit.md#the-events). */
  private async audit(
    action: 'frozen' | 'unfrozen',
    target: Target,
    who: WorkspaceUser,
    decision: Record<string, string>,
  ): Promise<void> {
    await this.deps.audit?.recordQuietly({
      actor: {
        user: who.user,
        team: who.team ?? UNKNOWN_TEAM,
        ...(who.enterprise ? { enterprise: who.enterprise } : {}),
      },
      action,
      decision: { ...decision, target: formatTarget(target), cluster: target.cluster ?? 'default' },
    });
  }

  /** A `command` history entry on every operation of the target still in flight, so its thread gets the line. */
  private async tellThreads(target: Target, user: string, name: 'lock' | 'unlock', reason: string): Promise<number> {
    const records = await this.deps.store.recentForTarget(target, 100);
    let told = 0;
    for (const record of records.filter((r) => !isTerminal(r.state))) {
      const result = await this.deps.store.apply(record.id, (current) =>
        isTerminal(current.state)
          ? { refuse: 'finished meanwhile' }
          : { entries: [{ type: 'command', name, actor: user, detail: { reason, target: formatTarget(target) } }] },
      );
      if (result.ok) told++;
      else
        forOperation(this.deps.logger, record.id).debug(
          { reason: result.reason },
          `no ${name} line for this operation`,
        );
    }
    return told;
  }
}

function threads(count: number): string {
  return count === 0
    ? ''
    : ` ${count} operation${count === 1 ? '' : 's'} in flight on it got a line in ${count === 1 ? 'its thread' : 'their threads'}.`;
}
