// The policy's `config` (which flinkConfiguration keys `config` may change) and `limits` (ceilings for `resources` and
// `scale`) blocks as strict zod schemas (docs/policy.md#keys-limits-and-verification); memory limits are parsed as
// Flink sizes, CPU as cores.
import { z } from 'zod';
import { MAX_PARALLELISM } from '../language/intent-base.js';
import { parseCpu, parseMemorySize } from '../../model/memory-size.js';

const shown = (input: unknown) => JSON.stringify(input);

/** A glob over Flink configuration keys: key characters and `*` (any run of characters). */
const ConfigGlob = z.string().superRefine((value, ctx) => {
  if (!/^[A-Za-z0-9._*-]{1,200}$/.test(value)) {
    ctx.addIssue({
      code: 'custom',
      message: `${shown(value)} is not a configuration key glob: letters, digits, ".", "-", "_" and "*" (e.g. "execution.checkpointing.*")`,
    });
  }
});

export const ConfigSchema = z.strictObject({
  allow: z.array(ConfigGlob).default([]),
  deny: z.array(ConfigGlob).default([]),
});

const MemoryLimit = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const parsed = parseMemorySize(String(value), 'the limit');
  if (parsed.ok) return { text: String(value).trim(), bytes: parsed.size.bytes };
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

const CpuLimit = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const parsed = parseCpu(String(value), 'the limit');
  if (parsed.ok) return parsed.cpu;
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

export const LimitsSchema = z.strictObject({
  taskManagerMemory: MemoryLimit.optional(),
  taskManagerCpu: CpuLimit.optional(),
  jobManagerMemory: MemoryLimit.optional(),
  jobManagerCpu: CpuLimit.optional(),
  parallelism: z
    .int()
    .min(1, { error: 'must be at least 1' })
    .max(MAX_PARALLELISM, { error: `must be at most ${MAX_PARALLELISM}` })
    .optional(),
});
