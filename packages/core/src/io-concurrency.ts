/**
 * The range of effective_io_concurrency and maintenance_io_concurrency.
 *
 * Problem: the bitmap heap scan prefetcher and the read stream both accept the
 * setting and must reject what a server rejects; two copies of the bound drift.
 *
 * Insight: the bound is a PostgreSQL constant, the same in every version
 * modelled, so one copy serves both.
 *
 * Design choice: the bound and the sentence that names a bad value live here;
 * each package throws that sentence with its own error class, so a user sees
 * the package they called.
 */

/**
 * Largest effective_io_concurrency / maintenance_io_concurrency a server
 * accepts: `#define MAX_IO_CONCURRENCY 1000` (src/include/storage/bufmgr.h,
 * the GUC maximum in src/backend/utils/misc/guc_tables.c); the minimum is 0.
 *
 * @example
 * ```ts
 * const ok = (eic: number) => Number.isInteger(eic) && eic >= 0 && eic <= MAX_IO_CONCURRENCY;
 * ok(1000); // true
 * ```
 */
export const MAX_IO_CONCURRENCY = 1000;

/**
 * Why `value` is not an effective_io_concurrency a server accepts (an integer
 * from 0 to {@link MAX_IO_CONCURRENCY}), as one sentence naming `name`; null
 * when it is one.
 *
 * @example
 * ```ts
 * ioConcurrencyProblem(16); // null
 * ioConcurrencyProblem(1.5, "maintenance_io_concurrency");
 * // "maintenance_io_concurrency must be an integer from 0 to 1000, got 1.5."
 * ```
 */
export function ioConcurrencyProblem(value: number, name = "effective_io_concurrency"): string | null {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_IO_CONCURRENCY) return null;
  return `${name} must be an integer from 0 to ${MAX_IO_CONCURRENCY}, got ${String(value)}.`;
}
