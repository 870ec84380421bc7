// Server-side printing: `meta.k8s.io/v1` Table responses for kubectl, as kube-apiserver builds them for CRDs and core types.
import { PRINTER_COLUMNS, type PrinterColumn } from './resources.js';
import type { KubeObject, SimResource } from './store.js';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, whichever the client asked for. */
  apiVersion: string;
  includeObject: IncludeObject;
  now: Date;
}

const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
};

function column(name: string, type: string, description: string, priority = 0, format = ''): TableColumn {
  return { name, type, format, description, priority };
}

/** `.status.jobStatus.state` → the value, or null (kubectl prints `<none>`) when any step is missing. */
function simpleJsonPath(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.split('.').filter(Boolean)) {
    if (current === null || typeof current !== 'object') return null;
    current = (current as Record<string, unknown>)[part];
  }
  return current ?? null;
}

function printerCell(col: PrinterColumn, object: KubeObject): unknown {
  const value = simpleJsonPath(object, col.jsonPath);
  if (value === null) return null;
  if (col.type === 'string') return typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

/** kube's ShortHumanDuration, used by AGE and LAST SEEN cells. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 365 * 2) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}

function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? '<invalid>' : shortHumanDuration(now.getTime() - at);
}

const EVENT_COLUMNS: TableColumn[] = [
  column('Last Seen', 'string', 'Time when this Event was last seen.'),
  column('Type', 'string', 'Type of this event (Normal, Warning).'),
  column('Reason', 'string', 'Why the action was taken.'),
  column('Object', 'string', 'The object this Event is about.'),
  column('Subobject', 'string', 'The subobject this Event is about.', 1),
  column('Source', 'string', 'The component reporting this event.', 1),
  column('Message', 'string', 'A human-readable description of the status of this operation.'),
  column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
  column('Count', 'string', 'The number of times this event has occurred.', 1),
  column('Name', 'string', 'Name must be unique within a namespace.', 1, 'name'),
];

function eventCells(event: KubeObject, now: Date): unknown[] {
  const involved = (event.involvedObject ?? {}) as Record<string, unknown>;
  const source = (event.source ?? {}) as Record<string, unknown>;
  const kind = typeof involved.kind === 'string' ? involved.kind.toLowerCase() : '';
  return [
    since(event.lastTimestamp ?? event.eventTime ?? event.metadata.creationTimestamp, now),
    event.type ?? '',
    event.reason ?? '',
    `${kind}/${String(involved.name ?? '')}`,
    involved.fieldPath ?? '',
    [source.component, source.host].filter(Boolean).join(', '),
    typeof event.message === 'string' ? event.message.trim() : '',
    since(event.firstTimestamp ?? event.metadata.creationTimestamp, now),
    String(event.count ?? 1),
    event.metadata.name,
  ];
}

function rowObject(object: { metadata: object }, opts: TableOptions): unknown {
  if (opts.includeObject === 'None') return undefined;
  if (opts.includeObject === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

const CONFIG_MAP_COLUMNS: TableColumn[] = [
  NAME_COLUMN,
  column('Data', 'integer', 'Number of data entries'),
  column('Age', 'string', 'Time since creation'),
];

function configMapCells(object: KubeObject, now: Date): unknown[] {
  return [
    object.metadata.name,
    Object.keys((object.data as Record<string, string> | undefined) ?? {}).length,
    since(object.metadata.creationTimestamp, now),
  ];
}

export function columnsFor(resource: SimResource): TableColumn[] {
  if (resource === 'events') return EVENT_COLUMNS;
  if (resource === 'configmaps') return CONFIG_MAP_COLUMNS;
  return [NAME_COLUMN, ...PRINTER_COLUMNS[resource].map((c) => column(c.name, c.type, c.description, c.priority))];
}

export function toTable(
  resource: SimResource,
  objects: readonly KubeObject[],
  resourceVersion: string,
  opts: TableOptions,
): Table {
  const rows = objects.map((object) => {
    const cells =
      resource === 'events'
        ? eventCells(object, opts.now)
        : resource === 'configmaps'
          ? configMapCells(object, opts.now)
          : [object.metadata.name, ...PRINTER_COLUMNS[resource].map((c) => printerCell(c, object))];
    const row: TableRow = { cells };
    const embedded = rowObject(object, opts);
    if (embedded !== undefined) row.object = embedded;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: { resourceVersion },
    columnDefinitions: columnsFor(resource),
    rows,
  };
}

export interface NamespaceObject {
  apiVersion: 'v1';
  kind: 'Namespace';
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels: Record<string, string>;
  };
  spec: { finalizers: string[] };
  status: { phase: 'Active' };
}

export function namespaceTable(
  namespaces: readonly NamespaceObject[],
  resourceVersion: string,
  opts: TableOptions,
): Table {
  const columns = [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the namespace'),
    column('Age', 'string', 'Time since creation'),
  ];
  const rows = namespaces.map((ns) => {
    const row: TableRow = {
      cells: [ns.metadata.name, ns.status.phase, since(ns.metadata.creationTimestamp, opts.now)],
    };
    const embedded = rowObject(ns, opts);
    if (embedded !== undefined) row.object = embedded;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: { resourceVersion },
    columnDefinitions: columns,
    rows,
  };
}
