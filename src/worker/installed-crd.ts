// A patch meets the installed CRD (docs/deployment.md#operator-versions): a field the CRD does not declare is refused
// before anything is written; one the API server refused (fieldValidation=Strict) or dropped anyway (an API server
// that only warns) ends the operation FAILED at once, never a ten-minute wait on a change that cannot come.
import { crdProblems, droppedFields, notInCrd } from '../domain/model/crd-schema.js';
import type { Plan } from '../domain/model/plan.js';
import type { KubeObject } from '../kube/flink-client.js';
import type { Run } from './context.js';

function sentence(fields: string[], kind: string, what: string): string {
  return `${fields.map((f) => notInCrd(f, kind)).join('; ')}: ${what}`;
}

/** Why the plan's patch cannot be applied by the installed CRD, read before the call; undefined when it can. */
export async function refusedByCrd(run: Run, plan: Plan): Promise<string | undefined> {
  if (plan.change.type !== 'patch' || !run.deps.crds) return undefined;
  const catalog = await run.deps.crds.catalog(run.signal);
  // Not installed or not readable: the API server's own answer decides (Strict, then the returned object).
  const facts = catalog.crds[plan.target.kind];
  if (!facts) return undefined;
  const problems = crdProblems(facts.schema, plan.change.patch, plan.target.kind);
  if (problems.length === 0) return undefined;
  return `${problems.join('; ')}: the API server would not take it, so nothing was written`;
}

/** The fields `unknown field "…"` of a strict-decoding refusal (422 on a patch, 400 on a create). */
export function strictlyRefused(message: string): string[] {
  if (!message.includes('strict decoding error')) return [];
  return [...message.matchAll(/unknown field \\?"([^"\\]+)\\?"/g)].map((m) => m[1] as string);
}

export function refusalMessage(fields: string[], kind: string): string {
  return sentence(fields, kind, 'the API server refused the change (fieldValidation=Strict), nothing was changed');
}

/** After an accepted patch: the fields the API server dropped, in words; undefined when every field arrived. */
export function droppedByApi(plan: Plan, object: KubeObject): string | undefined {
  if (plan.change.type !== 'patch') return undefined;
  const dropped = droppedFields(plan.change.patch, object);
  if (dropped.length === 0) return undefined;
  return sentence(dropped, plan.target.kind, `the API server dropped it (generation ${object.metadata.generation})`);
}
