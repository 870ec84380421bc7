// Kubernetes Events as the Flink operator records them: content-derived names, so a repeat bumps `count`.
import { rfc3339, type KubeObject, type SimStore } from './store.js';

export const EVENT_TYPES = { normal: 'Normal', warning: 'Warning' } as const;
export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/** `source.component` values of the operator's EventRecorder.Component. */
export const COMPONENTS = {
  operator: 'Operator',
  jobManagerDeployment: 'JobManagerDeployment',
  job: 'Job',
  snapshot: 'Snapshot',
} as const;
export type Component = (typeof COMPONENTS)[keyof typeof COMPONENTS];

export const MESSAGES = {
  suspended: 'Suspending existing deployment.',
  submit: 'Starting deployment',
  rollback: 'Rolling back failed deployment.',
  inPlaceScaling: 'In-place scaling triggered',
} as const;

/** Java's `String.hashCode()` over UTF-16 code units, with int32 overflow. */
export function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

/** `"jobmanager-exception-" + Integer.toHexString(Objects.hash(message))`: the JobException messageKey. */
export function jobExceptionKey(message: string): string {
  const objectsHash = (31 + javaStringHashCode(message)) | 0;
  return `jobmanager-exception-${(objectsHash >>> 0).toString(16)}`;
}

export interface EventInput {
  /** The CR the event is about (needs metadata.uid). */
  involved: KubeObject;
  type: EventType;
  reason: string;
  component: Component;
  message: string;
  /** Replaces the message in the name hash (the operator's `messageKey`, e.g. "SpecChange: 7"). */
  messageKey?: string;
  /** Event metadata.annotations (JobException carries `exception-timestamp`, `task-name`, …); replaced on a repeat. */
  annotations?: Record<string, string>;
}

/** `<component>.<hashCode(reason + (messageKey ?? message) + type + kind + name + uid) & 0x7fffffff>`. */
export function eventName(input: EventInput): string {
  const { involved } = input;
  const content =
    input.reason +
    (input.messageKey ?? input.message) +
    input.type +
    involved.kind +
    involved.metadata.name +
    (involved.metadata.uid ?? '');
  return `${input.component}.${javaStringHashCode(content) & 0x7fffffff}`;
}

/**
 * Creates the event, or, when one with the same name, type, reason and involved object exists, bumps its
 * `count`, `lastTimestamp` and message (EventUtils.createOrUpdateEvent). Returns the stored event.
 */
export function recordEvent(store: SimStore, input: EventInput): KubeObject {
  const { involved } = input;
  const namespace = involved.metadata.namespace;
  const name = eventName(input);
  const now = rfc3339(store.now());
  const existing = store.get('events', namespace, name);
  const involvedObject = existing?.involvedObject as Record<string, unknown> | undefined;
  if (
    existing &&
    existing.type === input.type &&
    existing.reason === input.reason &&
    involvedObject?.name === involved.metadata.name &&
    involvedObject?.kind === involved.kind
  ) {
    return store.update('events', namespace, name, (current) => ({
      ...current,
      ...(input.annotations ? { metadata: { ...current.metadata, annotations: { ...input.annotations } } } : {}),
      count: Number(current.count ?? 1) + 1,
      lastTimestamp: now,
      message: input.message,
    }));
  }
  if (existing) store.delete('events', namespace, name);
  return store.create('events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace, ...(input.annotations ? { annotations: { ...input.annotations } } : {}) },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.metadata.name,
      namespace,
      uid: involved.metadata.uid,
    },
    reason: input.reason,
    message: input.message,
    type: input.type,
    source: { component: input.component },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: '',
    reportingInstance: '',
  });
}
