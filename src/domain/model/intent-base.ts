// What every operation intent shares: the operation id format and the options every operation command takes.
import { z } from 'zod';

export const OP_ID_PATTERN = /^op-[a-z0-9]{6,12}$/;
export const OpIdSchema = z.string().regex(OP_ID_PATTERN);

/** Options every operation command takes. */
export const COMMON_INTENT_FIELDS = {
  reason: z.string().min(1).optional(),
  /** Slack channel ids to mirror digests into (from `--incident <#C…>`). */
  incidentChannels: z.array(z.string()).default([]),
};

/** The job parallelism a scale may set (the parser's value check and the scale intent share it). */
export const MIN_PARALLELISM = 1;
export const MAX_PARALLELISM = 32768;
