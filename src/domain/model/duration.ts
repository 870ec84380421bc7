// Durations as written in configuration and policy: `<n>ms|s|m|h`.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h)$/;

export type DurationResult = { ok: true; ms: number } | { ok: false; message: string };

export function parseDuration(text: string): DurationResult {
  const match = DURATION.exec(text.trim());
  if (!match) {
    return { ok: false, message: `"${text}" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s)` };
  }
  const amount = Number(match[1]);
  const unit = match[2] as keyof typeof UNIT_MS;
  const ms = amount * UNIT_MS[unit];
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    return { ok: false, message: `"${text}" must be a positive duration` };
  }
  return { ok: true, ms };
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
