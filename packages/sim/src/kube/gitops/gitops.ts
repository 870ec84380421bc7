// The simulated GitOps controllers of one cluster: which resource each manages, switching them on and off,
// commits to Git, and the counters tests await (docs/sandbox.md#gitops-switches).
import { z } from 'zod';
import type { Speed } from '../speed.js';
import type { KubeObject, SimStore } from '../store.js';
import { ARGOCD_DEFAULTS, type ArgoSettings } from './argocd.js';
import {
  ARGOCD_TRACKING,
  CONTROLLER_MANAGERS,
  declarablePath,
  defaultApplication,
  GITOPS_CONTROLLERS,
  GitCopy,
  type ActiveController,
  type Declared,
} from './git-copy.js';
import { ManagedTarget, type FluxSettings, type GitOpsResource, type GitOpsStats, type PassOutcome } from './target.js';

export { GITOPS_CONTROLLERS, CONTROLLER_MANAGERS, type GitOpsController, type ActiveController } from './git-copy.js';
export { type GitOpsStats, type PassOutcome } from './target.js';
export { FLUX_RECONCILE } from './flux.js';

/** Argo CD's self-heal delay and Flux's interval, in cluster time (scaled by the cluster's speed). */
export const SELF_HEAL_DELAY_MS = 5_000;
export const FLUX_INTERVAL_MS = 60_000;

const KINDS = { FlinkDeployment: 'flinkdeployments', FlinkSessionJob: 'flinksessionjobs' } as const;
export type GitOpsKind = keyof typeof KINDS;

const TARGET = {
  kind: z.enum(['FlinkDeployment', 'FlinkSessionJob']).optional(),
  namespace: z.string().min(1),
  name: z.string().min(1),
};
const MANAGE = z.strictObject({
  ...TARGET,
  controller: z.enum(GITOPS_CONTROLLERS),
  application: z.string().min(1).optional(),
  declared: z.array(z.array(z.string().min(1)).min(1)).optional(),
  selfHealDelayMs: z.number().int().positive().optional(),
  intervalMs: z.number().int().positive().optional(),
  tracking: z.enum(ARGOCD_TRACKING).optional(),
  serverSideApply: z.boolean().optional(),
  selfHeal: z.boolean().optional(),
  ignore: z.array(z.array(z.string().min(1)).min(1)).optional(),
  overrideManagers: z.array(z.string().min(1)).optional(),
});
const ONLY_FOR = {
  tracking: 'argocd',
  serverSideApply: 'argocd',
  selfHeal: 'argocd',
  ignore: 'flux',
  overrideManagers: 'flux',
} as const;
const TOOL_NAMES = { argocd: 'Argo CD', flux: 'Flux' } as const;

/** A FlinkDeployment or FlinkSessionJob; without `kind`, whichever of the two has that name. */
export interface GitOpsTarget {
  kind?: GitOpsKind;
  namespace: string;
  name: string;
}
export type ManageRequest = z.infer<typeof MANAGE>;

export const MANAGE_USAGE =
  '{"namespace":"…","name":"…","controller":"off|argocd|flux|helm", "kind"?:"FlinkDeployment|FlinkSessionJob", ' +
  '"application"?:"…", "declared"?:[["spec","job","parallelism"],…], "selfHealDelayMs"?:5000, "intervalMs"?:60000, ' +
  '"tracking"?:"annotation|label|annotation+label", "serverSideApply"?:false, "selfHeal"?:true, ' +
  '"ignore"?:[["spec","job","parallelism"],…], "overrideManagers"?:["flink-chatops"]}';

/** Bad input to the GitOps controls: `status` 400 (malformed) or 404 (no such resource, or not managed). */
export class GitOpsError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
  }
}

export interface GitOpsView {
  kind: GitOpsKind;
  namespace: string;
  name: string;
  controller: ActiveController;
  /** "Argo CD self-heal" ("Argo CD without self-heal"), "Flux", "Helm". */
  label: string;
  manager: string;
  /** The Argo CD Application, the Flux Kustomization (`<namespace>/<name>`) or the Helm release. */
  application: string;
  /** The Git copy: every declared field and its value in Git. */
  declared: Declared[];
  selfHealDelayMs?: number;
  intervalMs?: number;
  /** Argo CD: how it applies and tracks, and whether the object differs from Git now. */
  argocd?: ArgoSettings & { sync: 'Synced' | 'OutOfSync' };
  /** Flux: the `spec.ignore` paths and `--override-manager` names. */
  flux?: FluxSettings;
  stats: GitOpsStats;
  lastError?: string;
}
export type ManageResult = GitOpsView | { kind: GitOpsKind; namespace: string; name: string; controller: 'off' };

export type PassListener = (view: GitOpsView, outcome: PassOutcome) => void;

/** The request checked, or the first problem named (`path: message`). */
export function parseManage(body: unknown): ManageRequest | { error: string } {
  const parsed = MANAGE.safeParse(body);
  if (parsed.success) {
    const knobs = Object.entries(ONLY_FOR) as [keyof typeof ONLY_FOR, keyof typeof TOOL_NAMES][];
    const misplaced = knobs.find(([key, tool]) => parsed.data[key] !== undefined && parsed.data.controller !== tool);
    if (misplaced) return { error: `${misplaced[0]}: only ${TOOL_NAMES[misplaced[1]]} takes it` };
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { error: `${where}${issue?.message ?? 'invalid request'}` };
}

export class SimGitOps {
  private readonly targets = new Map<string, ManagedTarget>();
  private readonly listeners = new Set<PassListener>();

  constructor(private readonly o: { store: SimStore; speed: Speed }) {}

  /** Switches a resource's controller (replacing any other; `off` stops it, its marks stay on the object). */
  manage(input: ManageRequest): ManageResult {
    const request = parseManage(input);
    if ('error' in request) throw new GitOpsError(request.error);
    const { resource, object } = this.find(request);
    const key = keyOf(resource, object);
    this.targets.get(key)?.stop();
    this.targets.delete(key);
    const kind = object.kind as GitOpsKind;
    if (request.controller === 'off')
      return { kind, namespace: request.namespace, name: request.name, controller: 'off' };
    for (const [key, path] of [
      ...(request.declared ?? []).map((p) => ['declared', p] as const),
      ...(request.ignore ?? []).map((p) => ['ignore', p] as const),
    ]) {
      const problem = declarablePath(path);
      if (problem) throw new GitOpsError(`${key}: ${problem}`);
    }
    const git = request.declared ? GitCopy.ofPaths(object, request.declared) : GitCopy.ofSpec(object);
    if ('error' in git) throw new GitOpsError(`declared: ${git.error}`);
    const target = new ManagedTarget({
      store: this.o.store,
      speed: this.o.speed,
      resource,
      object,
      controller: request.controller,
      application: request.application ?? defaultApplication(request.controller, object),
      git,
      selfHealDelayMs: request.selfHealDelayMs ?? SELF_HEAL_DELAY_MS,
      intervalMs: request.intervalMs ?? FLUX_INTERVAL_MS,
      argocd: {
        tracking: request.tracking ?? ARGOCD_DEFAULTS.tracking,
        serverSideApply: request.serverSideApply ?? ARGOCD_DEFAULTS.serverSideApply,
        selfHeal: request.selfHeal ?? ARGOCD_DEFAULTS.selfHeal,
      },
      flux: { ignore: request.ignore ?? [], overrideManagers: request.overrideManagers ?? [] },
      onPass: (t, outcome) => this.passed(t, outcome),
      onGone: (t) => this.drop(t, resource),
    });
    target.start();
    this.targets.set(key, target);
    return viewOf(target);
  }

  /** The commit to Git: the Git copy of `path` becomes `value` (Argo CD syncs it as drift, Flux at its next pass). */
  commit(target: GitOpsTarget, path: string[], value: unknown): GitOpsView {
    const managed = this.managed(target);
    const problem = declarablePath(path);
    if (problem) throw new GitOpsError(`path: ${problem}`);
    if (value === undefined || value === null)
      throw new GitOpsError('value: removing a field from Git is not simulated');
    managed.git.commit(path, value);
    managed.committed();
    return viewOf(managed);
  }

  /** The target's counters, or undefined when no controller manages it. */
  stats(target: GitOpsTarget): GitOpsStats | undefined {
    const found = this.lookup(target);
    return found ? { ...found.stats } : undefined;
  }

  /** The controller managing the target, if any. */
  get(target: GitOpsTarget): GitOpsView | undefined {
    const found = this.lookup(target);
    return found ? viewOf(found) : undefined;
  }

  list(): GitOpsView[] {
    return [...this.targets.values()]
      .map(viewOf)
      .sort(
        (a, b) =>
          a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind),
      );
  }

  /** Calls `listener` after every pass of every controller (skipped ones too); returns the unsubscribe function. */
  onPass(listener: PassListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the target's counters once `predicate` holds (checked now and after each of its passes). */
  waitForStats(target: GitOpsTarget, predicate: (s: GitOpsStats) => boolean, timeoutMs = 5_000): Promise<GitOpsStats> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const stats = this.stats(target);
        if (!stats || !predicate(stats)) return false;
        clearTimeout(timer);
        off();
        resolve(stats);
        return true;
      };
      const off = this.onPass(() => void check());
      const timer = setTimeout(() => {
        off();
        const seen = JSON.stringify(this.stats(target) ?? 'not managed');
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for the GitOps counters of ${target.namespace}/${target.name}; last seen ${seen}`,
          ),
        );
      }, timeoutMs);
      check();
    });
  }

  close(): void {
    for (const target of this.targets.values()) target.stop();
    this.targets.clear();
    this.listeners.clear();
  }

  private passed(target: ManagedTarget, outcome: PassOutcome): void {
    const view = viewOf(target);
    for (const listener of this.listeners) listener(view, outcome);
  }

  private drop(target: ManagedTarget, resource: GitOpsResource): void {
    target.stop();
    const key = `${resource}/${target.namespace}/${target.name}`;
    if (this.targets.get(key) === target) this.targets.delete(key);
  }

  private lookup(target: GitOpsTarget): ManagedTarget | undefined {
    const kinds = target.kind ? [target.kind] : (Object.keys(KINDS) as GitOpsKind[]);
    for (const kind of kinds) {
      const found = this.targets.get(`${KINDS[kind]}/${target.namespace}/${target.name}`);
      if (found) return found;
    }
    return undefined;
  }

  private managed(target: GitOpsTarget): ManagedTarget {
    const found = this.lookup(target);
    if (!found) throw new GitOpsError(`no GitOps controller manages ${target.namespace}/${target.name}`, 404);
    return found;
  }

  private find(target: GitOpsTarget): { resource: GitOpsResource; object: KubeObject } {
    const kinds = target.kind ? [target.kind] : (Object.keys(KINDS) as GitOpsKind[]);
    const found = kinds.flatMap((kind) => {
      const object = this.o.store.get(KINDS[kind], target.namespace, target.name);
      return object ? [{ resource: KINDS[kind], object }] : [];
    });
    const [first] = found;
    if (!first)
      throw new GitOpsError(
        `no ${kinds.join(' or ')} ${target.namespace}/${target.name} in the simulated cluster`,
        404,
      );
    if (found.length > 1)
      throw new GitOpsError(
        `both a FlinkDeployment and a FlinkSessionJob are named ${target.namespace}/${target.name}; say which in "kind"`,
      );
    return first;
  }
}

function keyOf(resource: GitOpsResource, object: KubeObject): string {
  return `${resource}/${object.metadata.namespace}/${object.metadata.name}`;
}

function viewOf(target: ManagedTarget): GitOpsView {
  const { manager, label } = CONTROLLER_MANAGERS[target.controller];
  const healing = target.controller !== 'argocd' || target.argocd.selfHeal;
  const view: GitOpsView = {
    kind: target.kind as GitOpsKind,
    namespace: target.namespace,
    name: target.name,
    controller: target.controller,
    label: healing ? label : 'Argo CD without self-heal',
    manager,
    application: target.application,
    declared: target.git.entries(),
    stats: { ...target.stats },
  };
  if (target.controller === 'argocd') {
    view.selfHealDelayMs = target.selfHealDelayMs;
    view.argocd = { ...target.argocd, sync: target.outOfSync ? 'OutOfSync' : 'Synced' };
  }
  if (target.controller === 'flux') {
    view.intervalMs = target.intervalMs;
    view.flux = { ignore: target.flux.ignore.map((p) => [...p]), overrideManagers: [...target.flux.overrideManagers] };
  }
  if (target.lastError !== undefined) view.lastError = target.lastError;
  return view;
}
