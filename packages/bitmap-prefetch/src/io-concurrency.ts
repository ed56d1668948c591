/**
 * effective_io_concurrency: what the setting means to each PostgreSQL version.
 *
 * The GUC accepts 0..1000 in every version covered here (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#prefetch-settings
 * : "13-17: 0..1000 ..."; the same range since 9.6's per-tablespace
 * option, 1aba62ec63). What the bitmap heap scan does with it changed in 13:
 *
 * - 8.4-12 (b7b8f0b609, Greg Stark): the value n is a number of "spindles",
 *   converted to a prefetch distance by ComputeIoConcurrency as
 *   rint(sum over i = 1..n of n / i) = rint(n H(n)), i.e. the expected number
 *   of random requests needed to keep n drives busy: 1 -> 1, 2 -> 3,
 *   3 -> 6 (5.5 rounds to even), 4 -> 8, 10 -> 29 (reference 3.1).
 * - 13+ (b09ff53667): the value is the prefetch distance itself.
 *
 * The sum is computed exactly as PostgreSQL did (double, in order i = 1..n,
 * then C rint(), which rounds halfway cases to even), so values that land on
 * .5 round the same way.
 */
import { ioConcurrencyProblem, MAX_IO_CONCURRENCY, rint } from "@scanlab/core";
import { BitmapPrefetchError } from "./errors.js";

/** Upper bound of effective_io_concurrency (MAX_IO_CONCURRENCY = 1000, apps/docs/src/reference/bitmap-heap-scan-prefetch.md#prefetch-settings), kept once in `@scanlab/core`. */
export { MAX_IO_CONCURRENCY };

/** How effective_io_concurrency becomes a prefetch distance: `"pg13"` (13+, the value itself) or `"pg84"` (8.4-12 spindle formula). */
export type EicFormula = "pg13" | "pg84";

/**
 * Validates an effective_io_concurrency (or maintenance_io_concurrency) value:
 * an integer in 0..1000, else a {@link BitmapPrefetchError} with code BITMAP_PREFETCH_BAD_EIC.
 */
export function validateEffectiveIoConcurrency(value: number, name = "effective_io_concurrency"): number {
  const problem = ioConcurrencyProblem(value, name);
  if (problem !== null) throw new BitmapPrefetchError("BITMAP_PREFETCH_BAD_EIC", problem);
  return value;
}

/**
 * The pre-13 conversion of a spindle count n to a prefetch distance:
 * rint(sum_{i=1..n} n / i) (ComputeIoConcurrency, 8.4-12).
 *
 * @example
 * ```ts
 * [1, 2, 3, 4, 10].map(spindlesToPrefetchPages); // [1, 3, 6, 8, 29]
 * ```
 */
export function spindlesToPrefetchPages(spindles: number): number {
  validateEffectiveIoConcurrency(spindles);
  let sum = 0;
  for (let i = 1; i <= spindles; i++) sum += spindles / i;
  return rint(sum);
}

/**
 * The bitmap heap scan's prefetch_maximum for a setting: the value itself
 * (`"pg13"`, PG13+) or the spindle formula (`"pg84"`, 8.4-12).
 */
export function prefetchMaximum(effectiveIoConcurrency: number, formula: EicFormula = "pg13"): number {
  validateEffectiveIoConcurrency(effectiveIoConcurrency);
  if (formula === "pg84") return spindlesToPrefetchPages(effectiveIoConcurrency);
  if (formula !== "pg13") {
    throw new BitmapPrefetchError(
      "BITMAP_PREFETCH_BAD_PARAMETER",
      `eicFormula must be "pg13" or "pg84", got ${String(formula)}.`,
    );
  }
  return effectiveIoConcurrency;
}
