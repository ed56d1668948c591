/**
 * One grammar for sizes and durations: `128MB`, `8kB`, `4k`, `1.5GiB`,
 * `250ms`, `3min`, `2h`.
 *
 * Problem: scenario files, command-line flags, relation sizes, fio job files
 * and PostgreSQL's SHOW output all write quantities with units, and each
 * reader had its own grammar, so `1d` or `100 blocks` worked in one place
 * and not in another.
 *
 * Insight: the grammar can be one (a decimal number, optional blanks, a unit)
 * while the meaning of a bare number stays the caller's: a scenario's size is
 * bytes, a relation size is blocks, `shared_buffers` in postgresql.conf is
 * 8 kB pages, a duration flag is seconds. So the parser returns the number
 * and the unit's scale, and `null` for the scale of a bare number.
 *
 * Design choices:
 * - Memory units are PostgreSQL's (src/backend/utils/misc/guc.c,
 *   memory_unit_conversion_table: B, kB, MB, GB, TB, powers of 1024), plus the
 *   IEC spellings KiB..TiB and fio's one-letter forms k, m, g, t (same powers).
 * - Time units are PostgreSQL's (guc.c time_unit_conversion_table: us, ms, s,
 *   min, h, d) plus `µs` and `m` (minutes).
 * - PostgreSQL compares units case-sensitively; scanlab has always accepted
 *   any case (`128mb`, `10S`) and keeps doing so, with one exception: a
 *   capital prefix before a lower-case `b` (`1Gb`, `100Mb`) is the bit
 *   convention (IEC 80000-13: b = bit), which PostgreSQL rejects; it is
 *   rejected here too instead of being read as bytes.
 * - A fraction is allowed (`1.5kB`); rounding is the caller's, as PostgreSQL
 *   rounds in convert_to_base_unit (guc.c).
 * - fio reads its IEC forms against `kb_base` the other way round (with the
 *   default kb_base=1024, `4KiB` is 4000 bytes); {@link parseFioSize} keeps
 *   that for fio job files only.
 * - A setting with a unit of its own ({@link parseSettingSize}) reads a bare
 *   number in that unit and rounds a size to whole units, as PostgreSQL does
 *   for `shared_buffers = 16384` (8 kB pages) or `io_combine_limit = '128kB'`.
 */

/** A number and its unit, as read by {@link parseSize} or {@link parseDuration}. */
export interface Quantity {
  /** The number as written. */
  readonly value: number;
  /** The unit as written; "" for a bare number. */
  readonly unit: string;
  /** Bytes (sizes) or microseconds (durations) per unit; null for a bare number, whose unit is the caller's to decide. */
  readonly scale: number | null;
}

const SIZE_SCALE: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

const TIME_SCALE_US: Record<string, number> = {
  us: 1,
  µs: 1,
  ms: 1e3,
  s: 1e6,
  min: 60e6,
  m: 60e6,
  h: 3600e6,
  d: 86400e6,
};

const QUANTITY = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Zµ]*)\s*$/;

/** Options of {@link parseSize}. */
export interface ParseSizeOptions {
  /** Unit words that mean the caller's bare unit (for example `["block", "blocks"]`); compared case-insensitively. */
  readonly bareUnits?: readonly string[];
}

/**
 * Reads a size: a decimal number, optional blanks, and an optional unit
 * (B, kB, MB, GB, TB; KiB..TiB; k, m, g, t; any case except the bit forms
 * `Kb`, `Mb`, `Gb`, `Tb`). Returns null when the text is not a size.
 *
 * @example
 * ```ts
 * import { parseSize } from "@scanlab/core";
 * parseSize("128MB"); // { value: 128, unit: "MB", scale: 1048576 }
 * parseSize("4096");  // { value: 4096, unit: "", scale: null }: the caller's unit
 * parseSize("1Gb");   // null: gigabits
 * ```
 */
export function parseSize(text: string, options: ParseSizeOptions = {}): Quantity | null {
  const m = QUANTITY.exec(text);
  if (m === null) return null;
  const unit = m[2]!;
  const value = Number(m[1]);
  const lower = unit.toLowerCase();
  if (unit === "" || options.bareUnits?.includes(lower) === true) return { value, unit, scale: null };
  if (/^[KMGT]b$/.test(unit)) return null;
  const scale = SIZE_SCALE[lower];
  return scale === undefined ? null : { value, unit, scale };
}

/**
 * C's rint() in the default rounding mode: to the nearest integer, halfway
 * cases to the even one (PostgreSQL rounds GUC values and prefetch distances
 * with it).
 *
 * @example
 * ```ts
 * import { rint } from "@scanlab/core";
 * [0.5, 1.5, 2.5, 2.4999].map(rint); // [0, 2, 2, 2]
 * ```
 */
export function rint(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Reads the value of a setting that has a unit of its own, the way
 * PostgreSQL reads an integer GUC with a memory unit (guc.c `parse_int` and
 * `convert_to_base_unit`): a bare number is in the setting's unit, and a size
 * is converted to it and rounded to a whole number of units with rint(). A
 * fractional size is first rounded to the next smaller unit (`1.5MB` is
 * 1536 kB), as `convert_to_base_unit` does. Returns the value in units of
 * `unitBytes`, or null when the text is not a size.
 *
 * @example
 * ```ts
 * import { parseSettingSize } from "@scanlab/core";
 * parseSettingSize("16384", 8192); // 16384: shared_buffers counts 8 kB pages
 * parseSettingSize("128MB", 8192); // 16384
 * parseSettingSize("128kB", 8192); // 16: io_combine_limit as SHOW prints it
 * parseSettingSize("100kB", 8192); // 12: 12.5 blocks, rounded to even
 * ```
 */
export function parseSettingSize(text: string, unitBytes: number): number | null {
  const q = parseSize(text);
  if (q === null) return null;
  if (q.scale === null) return rint(q.value);
  const step = q.scale >= 1024 ? q.scale / 1024 : 1;
  const bytes = rint((q.value * q.scale) / step) * step;
  return rint(bytes / unitBytes);
}

/**
 * Writes a size the way PostgreSQL's SHOW writes a memory setting (guc.c
 * `convert_int_from_base_unit`): in the largest of TB, GB, MB, kB that
 * divides it exactly, else in bytes.
 *
 * @example
 * ```ts
 * import { formatSettingSize } from "@scanlab/core";
 * formatSettingSize(16384 * 8192); // "128MB"
 * formatSettingSize(16 * 8192);    // "128kB"
 * ```
 */
export function formatSettingSize(bytes: number): string {
  for (const [unit, scale] of [
    ["TB", 1024 ** 4],
    ["GB", 1024 ** 3],
    ["MB", 1024 ** 2],
    ["kB", 1024],
  ] as const) {
    if (bytes !== 0 && bytes % scale === 0) return `${bytes / scale}${unit}`;
  }
  return `${bytes}B`;
}

/**
 * Reads a duration: a decimal number, optional blanks, and an optional unit
 * (us, µs, ms, s, min, m, h, d; any case). Returns null when the text is not
 * a duration. The scale is in microseconds.
 *
 * @example
 * ```ts
 * import { parseDuration } from "@scanlab/core";
 * parseDuration("250ms"); // { value: 250, unit: "ms", scale: 1000 }
 * parseDuration("1d");    // { value: 1, unit: "d", scale: 86400000000 }
 * ```
 */
export function parseDuration(text: string): Quantity | null {
  const m = QUANTITY.exec(text);
  if (m === null) return null;
  const unit = m[2]!;
  const value = Number(m[1]);
  if (unit === "") return { value, unit, scale: null };
  const scale = TIME_SCALE_US[unit.toLowerCase()];
  return scale === undefined ? null : { value, unit, scale };
}

/**
 * Reads a size the way fio reads its job files ("4k", "128K", "1m", "4096",
 * "4KiB"): fio's `kb_base` (default 1024) is the base of the plain prefixes
 * (k, kB, m, ...) and the IEC forms (KiB, MiB, ...) take the other base, so
 * with the default "4KiB" is 4000 bytes (fio's "compatibility mode", checked with
 * fio 3.33). A bare number is bytes. Returns NaN when it is not a size.
 *
 * @example
 * ```ts
 * import { parseFioSize } from "@scanlab/core";
 * parseFioSize("128k"); // 131072
 * parseFioSize("4KiB"); // 4000, as fio reads it with kb_base=1024
 * ```
 */
export function parseFioSize(text: string, kbBase = 1024): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$/i.exec(text);
  if (m === null) return Number.NaN;
  const iec = m[3]!.toLowerCase() === "ib";
  const base = (kbBase === 1000) === iec ? 1024 : 1000;
  const power: Record<string, number> = { "": 0, k: 1, m: 2, g: 3, t: 4 };
  return Math.round(Number(m[1]) * base ** (power[m[2]!.toLowerCase()] ?? Number.NaN));
}
