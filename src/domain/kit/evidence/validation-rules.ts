// Which part of the spec a ValidationError is about, for the rules operator 1.16 added or reworded
// (docs/lifecycle.md#resources-on-operator-116): a spec that was valid on 1.15 can be refused after the operator
// upgrade, and then every change to it is refused for a reason the change did not touch.
import { desiredFields, type Ctx } from './criteria.js';

/** The spec paths a validation message is about (prefixes), or undefined for a message not known here. */
function pathsOf(message: string): string[] | undefined {
  const role = /^(JobManager|TaskManager) resource (?:requirements|memory)/.exec(message)?.[1];
  if (role !== undefined) {
    const spec = role === 'JobManager' ? 'jobManager' : 'taskManager';
    const conf = spec.toLowerCase();
    return [`spec.${spec}.resource`, `spec.${spec}.resources`, `spec.flinkConfiguration.${conf}.memory`];
  }
  const option = /^The AutoScalerOption (\S+) is invalid/.exec(message)?.[1];
  if (option !== undefined)
    return [`spec.flinkConfiguration.${option}`, 'spec.flinkConfiguration.job.autoscaler.enabled'];
  if (message.startsWith('The autoscaler metric window'))
    return ['spec.flinkConfiguration.job.autoscaler', 'spec.flinkConfiguration.kubernetes.operator.reconcile.interval'];
  return undefined;
}

/** Said after a ValidationError about a part of the spec this change left alone: the object was refused before. */
export function untouchedValidationHint(ctx: Ctx, message: string): string {
  const paths = pathsOf(message);
  if (paths === undefined) return '';
  const touched = desiredFields(ctx.plan).some((f) => paths.some((p) => f.path === p || f.path.startsWith(`${p}.`)));
  if (touched) return '';
  return `. This change did not touch ${paths[0]}: the operator refuses the object itself (operator 1.16 added or reworded this rule), so every change fails until that is fixed`;
}
