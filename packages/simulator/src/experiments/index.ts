/** The built-in reproduction targets, in apps/docs/src/reference/experiments.md order. */
import { T1 } from "./t1-freebsd-striding.js";
import { T2 } from "./t2-chunk-cap.js";
import { T3 } from "./t3-syncscan-800gb.js";
import { T4 } from "./t4-allocator-contention.js";
import { T5 } from "./t5-syncscan-2007.js";
import { T7 } from "./t7-effective-io-concurrency.js";
import type { Experiment } from "./types.js";

/** Every built-in target. */
export const TARGETS: readonly Experiment[] = [T1, T2, T3, T4, T5, T7];

/**
 * A target by id ("T1".."T7"), case-insensitive; undefined if unknown.
 *
 * @example
 * ```ts
 * import { getTarget } from "@scanlab/simulator";
 * console.log(getTarget("t7")?.title);
 * ```
 */
export function getTarget(id: string): Experiment | undefined {
  return TARGETS.find((t) => t.id.toLowerCase() === id.toLowerCase());
}

export { T1, T2, T3, T4, T5, T7 };
