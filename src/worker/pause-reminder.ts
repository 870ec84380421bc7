// The daily reminder of a GitOps pause (docs/policy.md#gitops-managed-targets): while a target still carries the pause
// an operation set, its thread is told once a day to commit the change to Git and resume.
import type { AfterCompletedWatch, OperationStore } from '../app/ports/index.js';
import { ANNOTATION_GITOPS_PAUSED_BY } from '../domain/model/gitops.js';
import { formatTarget } from '../domain/model/target.js';
import { DEFAULT_COMMAND } from '../domain/kit/language/verb-kit.js';
import type { KubeObject } from '../kube/flink-client.js';

/** The note each reminder is. */
export const PAUSE_REMINDER_NOTE = 'gitops-paused';
export const PAUSE_REMINDER_EVERY_MS = 24 * 60 * 60_000;

/** The operation whose pause the object carries, if any. */
export function pausedBy(object: KubeObject): string | undefined {
  return object.metadata.annotations?.[ANNOTATION_GITOPS_PAUSED_BY];
}

/** One reminder when a day has passed since COMPLETED or the last one (each replica may try; one writes it). */
export async function remindOfPause(
  deps: { store: Pick<OperationStore, 'apply'>; actor: string },
  watch: AfterCompletedWatch,
  now: number,
): Promise<void> {
  const target = formatTarget(watch.target);
  await deps.store.apply(watch.opId, (current) => {
    const last = current.history.findLast(
      (e) => (e.type === 'note' && e.name === PAUSE_REMINDER_NOTE) || (e.type === 'state' && e.name === 'COMPLETED'),
    );
    if (last === undefined || now - last.at < PAUSE_REMINDER_EVERY_MS) return { refuse: 'not due' };
    const days = Math.floor((now - watch.startedAt) / PAUSE_REMINDER_EVERY_MS);
    const message =
      `Flux is still paused for ${target} (${days === 1 ? 'a day' : `${days} days`}): commit this change to Git, ` +
      `then run \`${DEFAULT_COMMAND} gitops resume ${target}\` so Flux applies Git again`;
    return { entries: [{ type: 'note', name: PAUSE_REMINDER_NOTE, actor: deps.actor, detail: { message } }] };
  });
}
