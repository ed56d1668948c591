/**
 * @packageDocumentation
 * The published experiments scanlab reproduces (T1-T7: FreeBSD striding, the
 * PG14 chunk cap, synchronized scans on 800 GB and in 2007, allocator
 * contention, effective_io_concurrency on SSDs), each as rows of scenarios
 * with the published figures, ratio bars and "must reproduce" statements, and
 * the runner that calibrates a target's one unknown and sets simulated beside
 * published. The experiments are defined in the docs' reference page
 * apps/docs/src/reference/experiments.md. Browser-safe.
 */
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
 * import { getTarget } from "@scanlab/experiments";
 * console.log(getTarget("t7")?.title);
 * ```
 */
export function getTarget(id: string): Experiment | undefined {
  return TARGETS.find((t) => t.id.toLowerCase() === id.toLowerCase());
}

export {
  type AsyncReproduceOptions,
  type RatioReport,
  type ReproduceOptions,
  type RowReport,
  reproduceTarget,
  reproduceTargetAsync,
  type SimulationRequest,
  type SolveResult,
  type StatementReport,
  solveMonotone,
  type TargetReport,
} from "./reproduce.js";
export { type ReproduceJson, type ReproduceSummary, summarizeReports } from "./reproduce-json.js";
export type {
  Calibration,
  Experiment,
  ExperimentRow,
  PublishedFigures,
  RatioCheck,
  Statement,
  StatementCheck,
} from "./types.js";
export { T1, T2, T3, T4, T5, T7 };
