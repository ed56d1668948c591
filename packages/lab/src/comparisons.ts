/**
 * Does the model point the same way as the machine?
 *
 * Problem. A prediction can be 30 % off in absolute time and still tell a user
 * the right thing ("turn synchronize_seqscans on", "eic 16 beats eic 0"), or
 * be 5 % off and get the direction wrong. The second matters more to a DBA.
 *
 * Insight. For each planned comparison (two cells differing in one setting,
 * cells.ts) take the ratio b / a of the measured times and of the predicted
 * times and classify each as "b faster", "a faster" or "same"; the model
 * agrees when both classes are equal.
 *
 * Choice. "Same" is a ratio within +-5 % of 1 (scanlab's choice): the median
 * of three runs on a shared two-core machine moves by a few per cent from run
 * set to run set, so a smaller difference is not a direction. The band is
 * printed with every comparison.
 */
import type { Comparison, VariedSetting } from "./cells.js";

/** Ratios within this band around 1 count as "same" (scanlab's choice, see the file header). */
export const SAME_BAND = 0.05;

/** Which of two cells was faster. */
export type Direction = "a faster" | "b faster" | "same";

/** The direction of b relative to a from their times. */
export function direction(aMs: number, bMs: number, band = SAME_BAND): Direction {
  const ratio = bMs / aMs;
  if (!Number.isFinite(ratio)) return "same";
  if (ratio > 1 + band) return "a faster";
  if (ratio < 1 - band) return "b faster";
  return "same";
}

/** A comparison judged on measured and predicted times. */
export interface ComparisonResult {
  /** What differs. */
  readonly varied: VariedSetting;
  /** First cell id. */
  readonly a: string;
  /** Second cell id. */
  readonly b: string;
  /** Measured b / a time ratio. */
  readonly measuredRatio: number;
  /** Predicted b / a time ratio. */
  readonly predictedRatio: number;
  /** Measured direction. */
  readonly measured: Direction;
  /** Predicted direction. */
  readonly predicted: Direction;
  /** Whether the two directions agree. */
  readonly agrees: boolean;
}

/** Median times of a cell, measured and predicted (ms). */
export interface CellTimes {
  /** Measured median, ms. */
  readonly measuredMs: number;
  /** Predicted, ms. */
  readonly predictedMs: number;
}

/**
 * Judges every comparison whose two cells both have a measurement and a
 * prediction (others are skipped: an interrupted run has fewer).
 *
 * @example
 * ```ts
 * const times = new Map([["a", { measuredMs: 100, predictedMs: 90 }], ["b", { measuredMs: 60, predictedMs: 70 }]]);
 * judgeComparisons([{ varied: "synchronize_seqscans", a: "a", b: "b" }], times)[0]!.agrees; // true
 * ```
 */
export function judgeComparisons(
  comparisons: readonly Comparison[],
  times: ReadonlyMap<string, CellTimes>,
): ComparisonResult[] {
  const out: ComparisonResult[] = [];
  for (const c of comparisons) {
    const a = times.get(c.a);
    const b = times.get(c.b);
    if (a === undefined || b === undefined) continue;
    const measured = direction(a.measuredMs, b.measuredMs);
    const predicted = direction(a.predictedMs, b.predictedMs);
    out.push({
      ...c,
      measuredRatio: b.measuredMs / a.measuredMs,
      predictedRatio: b.predictedMs / a.predictedMs,
      measured,
      predicted,
      agrees: measured === predicted,
    });
  }
  return out;
}
