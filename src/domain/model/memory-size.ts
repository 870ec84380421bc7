// Flink memory sizes (`2048m`, `4g`, `1.5gb`, plain bytes) and CPU amounts: parsing, normalising and showing them.

export interface MemorySize {
  bytes: number;
  /** The normalised form written into the spec: a whole number in the largest exact unit, e.g. `1536m`. */
  text: string;
}

export type SizeParse = { ok: true; size: MemorySize } | { ok: false; message: string };

const KI = 1024;
/** Flink's MemoryUnit names (case-insensitive), each with its factor. */
const UNITS: ReadonlyArray<readonly [readonly string[], number]> = [
  [['b', 'bytes'], 1],
  [['k', 'kb', 'kibibytes'], KI],
  [['m', 'mb', 'mebibytes'], KI ** 2],
  [['g', 'gb', 'gibibytes'], KI ** 3],
  [['t', 'tb', 'tebibytes'], KI ** 4],
];
/** Kubernetes binary quantities, which the operator also accepts for spec.*.resource.memory (read-side only). */
const K8S_UNITS: Readonly<Record<string, number>> = { ki: KI, mi: KI ** 2, gi: KI ** 3, ti: KI ** 4 };
const SHORT = ['t', 'g', 'm', 'k'] as const;
const FACTOR: Readonly<Record<(typeof SHORT)[number], number>> = { k: KI, m: KI ** 2, g: KI ** 3, t: KI ** 4 };
const SIZE = /^([0-9]{1,15}(?:\.[0-9]{1,6})?) ?([a-zA-Z]*)$/;
const EXAMPLES = 'e.g. 2048m, 4g, 1.5gb or 4294967296 (units b, k/kb, m/mb, g/gb, t/tb)';
/** Far above any container; keeps the arithmetic exact. */
const MAX_BYTES = 2 ** 50;

function unitFactor(unit: string): number | undefined {
  const u = unit.toLowerCase();
  if (u === '') return 1;
  return UNITS.find(([names]) => names.includes(u))?.[1];
}

/** `1536m` for 1.5 GiB: the largest unit that divides the byte count exactly. */
export function formatBytes(bytes: number): string {
  for (const unit of SHORT) if (bytes % FACTOR[unit] === 0) return `${bytes / FACTOR[unit]}${unit}`;
  return `${bytes}b`;
}

/** A memory size as a person writes it, checked and normalised; the refusal says what would be right. */
export function parseMemorySize(written: string, label = 'memory'): SizeParse {
  const text = written.trim();
  const m = SIZE.exec(text);
  if (!m) {
    const hint = /^-/.test(text) ? ' (it must be positive)' : '';
    return { ok: false, message: `${label} ${JSON.stringify(written)} is not a memory size${hint}; ${EXAMPLES}` };
  }
  const [, number = '', unit = ''] = m;
  const factor = unitFactor(unit);
  if (factor === undefined) {
    const k8s = /^[kmgt]i$/i.test(unit)
      ? ` (a Kubernetes unit: write ${number}${unit[0]?.toLowerCase() ?? ''}, not ${number}${unit})`
      : '';
    return {
      ok: false,
      message: `${label} ${JSON.stringify(written)} has an unknown unit "${unit}"${k8s}; ${EXAMPLES}`,
    };
  }
  const bytes = Number(number) * factor;
  if (!Number.isSafeInteger(bytes)) {
    return { ok: false, message: `${label} ${JSON.stringify(written)} is not a whole number of bytes; ${EXAMPLES}` };
  }
  if (bytes <= 0 || bytes > MAX_BYTES) {
    return { ok: false, message: `${label} ${JSON.stringify(written)} must be more than 0 and at most 1024t` };
  }
  return { ok: true, size: { bytes, text: formatBytes(bytes) } };
}

/** The bytes of a memory value already in a spec (Flink form, or a Kubernetes quantity such as `2Gi`). */
export function specMemoryBytes(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value !== 'string') return undefined;
  const parsed = parseMemorySize(value);
  if (parsed.ok) return parsed.size.bytes;
  const k8s = /^([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*(Ki|Mi|Gi|Ti)$/.exec(value.trim());
  const factor = k8s ? K8S_UNITS[(k8s[2] ?? '').toLowerCase()] : undefined;
  return k8s && factor !== undefined ? Math.round(Number(k8s[1]) * factor) : undefined;
}

export type CpuParse = { ok: true; cpu: number } | { ok: false; message: string };

/** A CPU amount in cores: a positive decimal (`0.5`, `2`, `1.25`); Kubernetes millicores get a hint. */
export function parseCpu(written: string, label = 'cpu'): CpuParse {
  const text = written.trim();
  if (/^[0-9]{1,4}(?:\.[0-9]{1,3})?$/.test(text)) {
    const cpu = Number(text);
    if (cpu > 0) return { ok: true, cpu };
  }
  const milli = /^([0-9]{1,7})m$/.exec(text);
  const hint = milli ? ` (write cores: ${Number(milli[1]) / 1000} for ${text})` : '';
  return {
    ok: false,
    message: `${label} ${JSON.stringify(written)} is not a CPU amount${hint}; a positive decimal number of cores, e.g. 0.5, 2 or 1.25`,
  };
}
