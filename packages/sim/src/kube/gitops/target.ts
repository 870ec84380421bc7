// One GitOps-managed resource: its controller's marks and managedFields entry at switch-on, and the passes that
// re-apply the Git copy — Argo CD's self-heal after drift, Flux's every interval (docs/sandbox.md#gitops-switches).
import {
  diffFields,
  keyPath,
  managedContent,
  pathKey,
  recordWrite,
  type FieldPath,
  type FieldSet,
  type Writer,
} from '../managed-fields.js';
import { scaledMs, type Speed } from '../speed.js';
import { rfc3339, type KubeObject, type SimStore } from '../store.js';
import { LAST_APPLIED, lastApplied, type ArgoSettings } from './argocd.js';
import { fluxSkips, overrideManagers } from './flux.js';
import {
  CONTROLLER_MANAGERS,
  markPaths,
  marksMissing,
  marksOf,
  removeAt,
  setAt,
  type ActiveController,
  type GitCopy,
  type Marks,
} from './git-copy.js';

export type GitOpsResource = 'flinkdeployments' | 'flinksessionjobs';

/**
 * Counters tests await instead of sleeping: a pass that ran, one that changed something, one Flux skipped for an
 * exclusion mark, and each time Argo CD without self-heal found drift and left it (OutOfSync).
 */
export interface GitOpsStats {
  passes: number;
  reverts: number;
  skipped: number;
  outOfSync: number;
}

/**
 * What a pass did: `reverted` changed the object, `in-sync` found nothing to change, `skipped` was excluded,
 * `out-of-sync` saw drift it does not heal.
 */
export type PassOutcome = 'reverted' | 'in-sync' | 'skipped' | 'out-of-sync' | 'failed';

export interface TargetOptions {
  store: SimStore;
  speed: Speed;
  resource: GitOpsResource;
  object: KubeObject;
  controller: ActiveController;
  application: string;
  git: GitCopy;
  /** Cluster milliseconds, scaled by the speed as the operator's steps are. */
  selfHealDelayMs: number;
  intervalMs: number;
  /** How Argo CD applies and tracks (only read for `argocd`). */
  argocd: ArgoSettings;
  /** Flux's `spec.ignore` paths and `--override-manager` names (only read for `flux`). */
  flux: FluxSettings;
  onPass: (target: ManagedTarget, outcome: PassOutcome) => void;
  /** The object was deleted: the controller is gone with it. */
  onGone: (target: ManagedTarget) => void;
}

export interface FluxSettings {
  ignore: readonly FieldPath[];
  overrideManagers: readonly string[];
}

export class ManagedTarget {
  readonly stats: GitOpsStats = { passes: 0, reverts: 0, skipped: 0, outOfSync: 0 };
  /** Argo CD: whether the object differs from Git in a declared field. */
  outOfSync = false;
  lastError: string | undefined;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  private readonly marks: Marks;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: TargetOptions) {
    this.kind = o.object.kind;
    this.namespace = o.object.metadata.namespace;
    this.name = o.object.metadata.name;
    this.marks = marksOf(o.controller, o.object, o.application, o.argocd.tracking);
  }

  get controller(): ActiveController {
    return this.o.controller;
  }
  get application(): string {
    return this.o.application;
  }
  get git(): GitCopy {
    return this.o.git;
  }
  get selfHealDelayMs(): number {
    return this.o.selfHealDelayMs;
  }
  get intervalMs(): number {
    return this.o.intervalMs;
  }
  get argocd(): ArgoSettings {
    return this.o.argocd;
  }
  get flux(): FluxSettings {
    return this.o.flux;
  }

  /** What the controller applies: Git, less what Flux's `spec.ignore` rules leave out of diff and apply. */
  private get applies(): GitCopy {
    const { ignore } = this.o.flux;
    return this.o.controller === 'flux' && ignore.length > 0 ? this.o.git.without(ignore) : this.o.git;
  }

  /** Marks the object and takes the declared fields; then Argo CD watches for drift, Flux starts its interval. */
  start(): void {
    this.write(true);
    this.unsubscribe = this.o.store.subscribe((change) => {
      const { metadata } = change.object;
      if (change.resource !== this.o.resource || metadata.namespace !== this.namespace || metadata.name !== this.name)
        return;
      if (change.type === 'DELETED') this.o.onGone(this);
      else if (this.o.controller === 'argocd') this.watchDrift(change.object);
    });
    if (this.o.controller === 'flux') this.schedule(this.o.intervalMs, () => this.fluxPass());
  }

  /** The commit to Git has landed: Argo CD's auto-sync applies it, self-heal or not; Flux at its next pass; Helm never. */
  committed(): void {
    const current = this.current();
    if (current && this.o.controller === 'argocd') this.watchDrift(current, true);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
  }

  private current(): KubeObject | undefined {
    return this.o.store.get(this.o.resource, this.namespace, this.name);
  }

  /** Drift is healed after the delay with self-heal on (or for a new revision, `sync`); otherwise only OutOfSync. */
  private watchDrift(object: KubeObject, sync = false): void {
    const drifted = this.drifted(object);
    const wasOutOfSync = this.outOfSync;
    this.outOfSync = drifted;
    if (!drifted) return;
    if (sync || this.o.argocd.selfHeal) {
      if (this.timer === undefined) this.schedule(this.o.selfHealDelayMs, () => this.pass());
    } else if (!wasOutOfSync) {
      this.stats.outOfSync += 1;
      this.o.onPass(this, 'out-of-sync');
    }
  }

  private schedule(clusterMs: number, run: () => void): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (!this.stopped) run();
      },
      scaledMs(this.o.speed, clusterMs / 1000),
    );
    this.timer.unref();
  }

  private fluxPass(): void {
    const current = this.current();
    if (current && fluxSkips(current, this.o.git)) {
      this.stats.skipped += 1;
      this.o.onPass(this, 'skipped');
    } else {
      this.pass();
    }
    this.schedule(this.o.intervalMs, () => this.fluxPass());
  }

  private pass(): void {
    this.stats.passes += 1;
    let outcome: PassOutcome;
    try {
      outcome = this.write(false) ? 'reverted' : 'in-sync';
      if (outcome === 'reverted') this.stats.reverts += 1;
      this.outOfSync = false;
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      outcome = 'failed';
    }
    this.o.onPass(this, outcome);
  }

  private drifted(object: KubeObject): boolean {
    return this.applies.drifted(object) || marksMissing(object, this.marks);
  }

  /** Argo CD without the server-side apply option applies client-side, as kubectl apply does. */
  private get clientSideApply(): boolean {
    return this.o.controller === 'argocd' && !this.o.argocd.serverSideApply;
  }

  /**
   * The write's operation and the fields it takes beside those it changes: a server-side apply owns exactly what it
   * applies, Helm's install owns everything it declares, and a client-side apply (an Update) only what it changed.
   */
  private writeMode(): { operation: 'Apply' | 'Update'; owned: FieldSet | undefined } {
    const owned = new Set([...this.applies.paths(), ...markPaths(this.marks).map(pathKey)]);
    if (this.o.controller === 'argocd')
      return this.o.argocd.serverSideApply ? { operation: 'Apply', owned } : { operation: 'Update', owned: undefined };
    return { operation: CONTROLLER_MANAGERS[this.o.controller].operation, owned };
  }

  /** Flux's `--override-manager` takeover on a pass: the entries left, the fields removed; undefined when none. */
  private takeover(current: KubeObject, applied: FieldSet): ReturnType<typeof overrideManagers> | undefined {
    const managers = this.o.flux.overrideManagers;
    if (this.o.controller !== 'flux' || managers.length === 0) return undefined;
    const entries = current.metadata.managedFields ?? [];
    const found = overrideManagers(entries, managers, applied);
    return found.kept.length < entries.length ? found : undefined;
  }

  /**
   * Writes the Git copy and the marks through the store (so the operator sees a spec change as any other), as the
   * controller's manager; returns whether a value changed. A pass without drift or takeover writes nothing; the
   * switch-on always records the controller's entry.
   */
  private write(switchOn: boolean): boolean {
    const current = this.current();
    if (!current) return false;
    const { operation, owned } = this.writeMode();
    const drift = this.drifted(current);
    const takeover = switchOn ? undefined : this.takeover(current, owned ?? new Set());
    if (!switchOn && !drift && !takeover) return false;
    const { manager } = CONTROLLER_MANAGERS[this.o.controller];
    const writer: Writer = { manager, operation, apiVersion: current.apiVersion, time: rfc3339(this.o.store.now()) };
    const applied = this.clientSideApply ? lastApplied(current, this.applies, this.marks) : undefined;
    const scope = { statusSubresource: true };
    this.o.store.update(
      this.o.resource,
      this.namespace,
      this.name,
      (object) => {
        // A pass re-applies every declared field; the switch-on only marks (the values are Git's already).
        if (!switchOn) for (const field of this.applies.entries()) setAt(object, field.path, field.value);
        for (const key of takeover?.removed ?? []) removeAt(object, keyPath(key));
        for (const [key, value] of Object.entries(this.marks.labels)) setAt(object, ['metadata', 'labels', key], value);
        for (const [key, value] of Object.entries(this.marks.annotations))
          setAt(object, ['metadata', 'annotations', key], value);
        if (applied !== undefined) setAt(object, ['metadata', 'annotations', LAST_APPLIED], applied);
        return object;
      },
      {
        managedFields: (before, after) =>
          recordWrite(
            takeover?.kept ?? before.metadata.managedFields ?? [],
            writer,
            diffFields(managedContent(before, scope), managedContent(after, scope)),
            owned,
          ),
      },
    );
    return drift || (takeover?.removed.size ?? 0) > 0;
  }
}
