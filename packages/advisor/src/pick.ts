/**
 * Picking a recommended value from a simulated sweep, and the one gain
 * convention every advice row follows.
 *
 * The problem: simulated times of neighbouring settings differ by fractions
 * of a percent, and "the fastest" would then recommend 256 where 16 does as
 * well, or eight workers where four do. And rows that each compare in their
 * own direction (recommended against default here, default against
 * recommended there) cannot be read side by side.
 *
 * The insight: a setting's cost grows with its value (more workers use more
 * CPU, more readahead more memory, higher effective_io_concurrency more
 * requests in flight), so the smallest value within a tolerance of the
 * fastest is the one to take; and one convention, default's time over the
 * recommended one's, makes every gain read the same way.
 *
 * Choices:
 * - Sweeps list values in increasing order, so "smallest" is "first".
 * - A time that is missing (an interrupted run) or not finite never wins
 *   over one that is; when none is, the first value is taken.
 * - gain = time(default) / time(recommended) - 1: +25% means the default
 *   takes 25% longer; 0 when the default is what is recommended; null when
 *   either time is missing.
 */

/**
 * The index of the first (smallest) value whose time is within `within` (a
 * fraction: 0.02 = 2%) of the fastest; 0 when no time is finite.
 *
 * @example
 * ```ts
 * import { pickWithin } from "@scanlab/advisor";
 * console.log(pickWithin([10, 5.05, 5, 4.99], 0.02)); // 1: 5.05 s is within 2% of 4.99 s
 * ```
 */
export function pickWithin(times: readonly (number | null)[], within: number): number {
  const finite = times.map((t) => (t === null || !Number.isFinite(t) ? Number.POSITIVE_INFINITY : t));
  const best = Math.min(...finite);
  return finite.findIndex((t) => t <= best * (1 + within));
}

/** The default's time, the recommended value's time, and the gain between them. */
export interface Timing {
  /** time(default) / time(recommended) - 1: +25% means the default takes 25% longer; null when a time is missing. */
  gain: number | null;
  /** Simulated time at the default, in seconds. */
  defaultTimeS: number | null;
  /** Simulated time at the recommended value (the default's, when the default is recommended), in seconds. */
  recommendedTimeS: number | null;
}

/**
 * The timing of a row whose default is `times[defaultIndex]` and whose
 * recommendation is `times[recommendedIndex]`.
 *
 * @example
 * ```ts
 * import { timing } from "@scanlab/advisor";
 * console.log(timing([12.5, 10], 0, 1)); // { gain: 0.25, defaultTimeS: 12.5, recommendedTimeS: 10 }
 * ```
 */
export function timing(
  times: readonly (number | null)[],
  defaultIndex: number,
  recommendedIndex: number,
): Timing {
  const d = times[defaultIndex];
  const r = times[recommendedIndex];
  return {
    gain: d && r ? d / r - 1 : null,
    defaultTimeS: d ?? null,
    recommendedTimeS: r ?? null,
  };
}
