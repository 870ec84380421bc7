// The installed Flink CRDs of one cluster, read by name (`get customresourcedefinitions`) when a worker starts, at
// first use, and again when the last reading is older than the refresh interval (a fifth of it after a failed
// reading): CRDs change when someone upgrades them, rarely and outside any operation
// (docs/deployment.md#operator-versions). Without the RBAC to read them the catalog says so and nothing is refused on
// their account.
import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CRD_NAMES, crdFacts, type CrdFacts, type CrdKind } from '../domain/model/crd-schema.js';
import { abortable, type AbortableOptions } from './abortable.js';
import { makeApiClient } from './agents.js';
import { classify } from './client-node.js';

/** What a process knows of a cluster's Flink CRDs. */
export interface CrdCatalog {
  /** ms of the reading. */
  readAt: number;
  /** The CRDs read, by kind; a kind absent here is not installed (or could not be read: `unreadable`). */
  crds: Partial<Record<CrdKind, CrdFacts>>;
  /** Why the CRDs could not be read (RBAC, network): their fields are then unknown, not missing. */
  unreadable?: string;
}

export interface CrdSource {
  /** The catalog, read again when older than the refresh interval; never throws. */
  catalog(signal?: AbortSignal): Promise<CrdCatalog>;
}

const CRD_REFRESH_MS = 5 * 60_000;
const READ_TIMEOUT_MS = 5_000;

export class InstalledCrds implements CrdSource {
  private readonly api: ApiextensionsV1Api;
  private last: CrdCatalog | undefined;
  private reading: Promise<CrdCatalog> | undefined;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: { refreshMs?: number; now?: () => number } = {},
  ) {
    this.api = makeApiClient(kubeConfig, ApiextensionsV1Api);
  }

  async catalog(signal?: AbortSignal): Promise<CrdCatalog> {
    const now = (this.options.now ?? Date.now)();
    const refreshMs = this.options.refreshMs ?? CRD_REFRESH_MS;
    // A failed reading (RBAC, a cancelled probe) is tried again sooner than a good one.
    const keepMs = this.last?.unreadable ? refreshMs / 5 : refreshMs;
    if (this.last && now - this.last.readAt < keepMs) return this.last;
    // The request is made here (a closure the private helpers call), so the RBAC derivation finds it in this method.
    const get: ReadCrd = (name, options) => this.api.readCustomResourceDefinition({ name }, options);
    this.reading ??= this.read(now, signal, get).finally(() => (this.reading = undefined));
    this.last = await this.reading;
    return this.last;
  }

  private async read(now: number, signal: AbortSignal | undefined, get: ReadCrd): Promise<CrdCatalog> {
    const crds: Partial<Record<CrdKind, CrdFacts>> = {};
    const kinds = Object.keys(CRD_NAMES) as CrdKind[];
    try {
      const read = await Promise.all(kinds.map((kind) => readOne(get, kind, signal)));
      kinds.forEach((kind, i) => {
        const facts = read[i] === undefined ? undefined : crdFacts(kind, read[i]);
        if (facts) crds[kind] = facts;
      });
      return { readAt: now, crds };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { readAt: now, crds: {}, unreadable: `the installed CRDs could not be read: ${reason}` };
    }
  }
}

type ReadCrd = (name: string, options: AbortableOptions) => Promise<unknown>;

/** One CRD, undefined when it is not installed. */
async function readOne(get: ReadCrd, kind: CrdKind, signal: AbortSignal | undefined): Promise<unknown> {
  const deadline = AbortSignal.timeout(READ_TIMEOUT_MS);
  const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    return await get(CRD_NAMES[kind], abortable(both));
  } catch (error) {
    const classified = classify(error, deadline, signal);
    if (classified.code === 'not-found') return undefined;
    throw classified;
  }
}
