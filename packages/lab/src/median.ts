/**
 * The median of a cell's runs.
 *
 * A lab cell runs at least three times on a machine other programs share, so
 * one run can be slowed by a neighbour. The median ignores one outlier out of
 * three without assuming anything about the noise; the mean would not. With an
 * even number of runs it is the mean of the two middle values, the usual
 * definition.
 */

/**
 * Median of `values` (not modified). Throws on an empty list: a cell with no
 * finished run has no median (a programming error; callers drop such cells).
 *
 * @example
 * ```ts
 * median([30, 10, 20]); // 20
 * median([4, 1, 3, 2]); // 2.5
 * ```
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
