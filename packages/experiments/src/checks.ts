/** Small helpers shared by the targets' "must reproduce" statements. */
import type { RowMetrics } from "@scanlab/simulator";

/**
 * The bar a ratio check must meet: within 25% of the published ratio. A
 * project acceptance bar (README "Where the model falls short"; the docs' faithful summary reports against it), not a figure from
 * the publications.
 */
export const RATIO_TOLERANCE = 0.25;

/** The metrics of row `id`; a missing row is a programming error in the experiment. */
export function rowOf(rows: ReadonlyMap<string, RowMetrics>, id: string): RowMetrics {
  const r = rows.get(id);
  if (!r) throw new Error(`experiment has no row "${id}"`);
  return r;
}

/** Speed of `a` relative to `b` (time(b) / time(a)): 2 means `a` runs twice as fast. */
export function speedup(rows: ReadonlyMap<string, RowMetrics>, a: string, b: string): number {
  return rowOf(rows, b).timeS / rowOf(rows, a).timeS;
}

/** Formats a number for a statement's detail line. */
export function fmt(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}
