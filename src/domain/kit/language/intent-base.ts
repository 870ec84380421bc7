// What every operation intent shares: the operation id format and the options every operation command takes.
import { z } from 'zod';
import { RunAtSchema, WINDOW_NAME } from '../schedule/run-at.js';

export const OP_ID_PATTERN = /^op-[a-z0-9]{6,12}$/;
export const OpIdSchema = z.string().regex(OP_ID_PATTERN);

/** Options every operation command takes. */
export const COMMON_INTENT_FIELDS = {
  reason: z.string().min(1).optional(),
  /** Slack channel ids to mirror digests into (from `--incident <#C…>`). */
  incidentChannels: z.array(z.string()).default([]),
  /**
   * `--at`: when it may start, as typed (resolved to an instant at request time, docs/policy.md#scheduled-operations).
   */
  at: RunAtSchema.optional(),
  /** `--window`: the policy's execution window it runs in (docs/policy.md#scheduled-operations). */
  window: z.string().regex(WINDOW_NAME).optional(),
  /**
   * `--break-glass` (docs/policy.md#break-glass): skip approval requirements and time-window deny rules, by the
   * policy's breakGlass groups.
   */
  breakGlass: z.literal(true).optional(),
};

/** The job parallelism a scale may set (scale's value check and intent, and the policy's `limits.parallelism`). */
export const MIN_PARALLELISM = 1;
export const MAX_PARALLELISM = 32768;
