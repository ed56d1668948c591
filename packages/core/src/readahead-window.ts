/**
 * Linux's readahead window sizing: how large the first window of a
 * sequential stream is, and how each following window grows.
 *
 * Problem: the readahead models and the bitmap-prefetch cost model both need
 * the kernel's window sizes and each kept a copy.
 *
 * Insight: the kernel's rules are two small pure functions of the request and
 * the current window, both in pages, with `max` = read_ahead_kb in pages.
 *
 * Design choices:
 * - {@link linuxInitRaSize} is get_init_ra_size() and {@link linuxNextRaSize}
 *   is get_next_ra_size() of mm/readahead.c.
 * - Units are the caller's pages; the functions do not round to folios.
 */

/**
 * get_init_ra_size() (mm/readahead.c): the first window for a request of `req`
 * pages with a maximum of `max` pages.
 *
 * @example
 * ```ts
 * import { linuxInitRaSize } from "@scanlab/core";
 * linuxInitRaSize(1, 32); // 4
 * ```
 */
export function linuxInitRaSize(req: number, max: number): number {
  let n = 1;
  while (n < req) n *= 2;
  if (n <= max / 32) return n * 4;
  if (n <= max / 4) return n * 2;
  return max;
}

/**
 * get_next_ra_size() (mm/readahead.c): the window after one of `cur` pages,
 * with a maximum of `max` pages.
 *
 * @example
 * ```ts
 * import { linuxNextRaSize } from "@scanlab/core";
 * linuxNextRaSize(4, 32); // 16
 * ```
 */
export function linuxNextRaSize(cur: number, max: number): number {
  if (cur < max / 16) return 4 * cur;
  if (cur <= max / 2) return 2 * cur;
  return max;
}
