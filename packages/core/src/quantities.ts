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
