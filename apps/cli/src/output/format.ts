/** Number formats for tables and sentences. */

/** A number with `digits` decimals, or "n/a" for NaN / infinity. */
export function fixed(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "n/a" : x.toFixed(digits);
}

/** A duration in seconds with about three significant figures (`13.3 s`, `1.07 ks` is avoided: `1070 s`). */
export function seconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "n/a";
  if (x >= 100) return `${x.toFixed(0)} s`;
  if (x >= 10) return `${x.toFixed(1)} s`;
  if (x >= 1) return `${x.toFixed(2)} s`;
  return `${(x * 1000).toFixed(x >= 0.1 ? 0 : 1)} ms`;
}

/** A ratio as a signed percentage gap (`+12.5%`). */
export function gapPct(gap: number): string {
  if (!Number.isFinite(gap)) return "n/a";
  return `${gap >= 0 ? "+" : ""}${(gap * 100).toFixed(1)}%`;
}

/** A share as a percentage (`45%`). */
export function pct(x: number | null | undefined, digits = 0): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "n/a" : `${(x * 100).toFixed(digits)}%`;
}

/** A number with thousands separators. */
export function grouped(x: number): string {
  return Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "n/a";
}
