/**
 * @packageDocumentation
 * The scanlab discrete-event simulator: parallel and serial sequential scans,
 * bitmap heap scans and a plain-file reader with advice on a modelled machine (device, OS page cache and
 * readahead, shared buffers, CPU, allocator contention, synchronized scans),
 * composed from the scanlab model packages. Browser-safe. The published
 * experiments it reproduces live in `@scanlab/experiments`.
 */

import { type SimulateOptions, type SimulationResult, simulateWith } from "./engine/loop/simulate.js";
import { realModels } from "./engine/seam/adapters.js";
import { resolveScenario } from "./scenario/resolve.js";
import type { ScenarioInput } from "./scenario/schema.js";

/**
 * Simulates one scenario, written in code (see {@link simulateJson} for a
 * scenario read from a file).
 *
 * @throws ScenarioError when the scenario breaks a bound or a rule the types cannot express (every problem at once)
 *
 * @example
 * ```ts
 * import { simulate } from "@scanlab/simulator";
 * const result = simulate({
 *   name: "4 workers, PG14, Linux 5.4",
 *   machine: { cores: 8, ram: "16GB", os: "linux-5.4", device: "samsung-990-pro-1tb" },
 *   tables: [{ name: "t", size: "2GB", tuplesPerPage: 226 }],
 *   queries: [{ name: "count", table: "t", pg: "14", workers: 3 }],
 * });
 * console.log(result.queries[0]!.meanDurationS, result.device.avgReadKb);
 * ```
 */
export function simulate(scenario: ScenarioInput, options: SimulateOptions = {}): SimulationResult {
  return simulateWith(resolveScenario(scenario), realModels, options);
}

/**
 * Simulates a scenario of unknown shape, such as parsed JSON: it is checked
 * first, and every problem is reported at once, each with its path
 * (`queries.0.workers`), in one {@link ScenarioError}. The file format is
 * described by the JSON Schema `@scanlab/simulator/scenario.schema.json`.
 *
 * @throws ScenarioError listing every problem of the scenario
 *
 * @example
 * ```ts
 * import { ScenarioError, simulateJson } from "@scanlab/simulator";
 * try {
 *   simulateJson(JSON.parse('{"name": 5, "machine": {}, "tables": [], "queries": []}'));
 * } catch (e) {
 *   if (e instanceof ScenarioError) console.log(e.problems.map((p) => p.field)); // ["name", "machine.cores", ...]
 * }
 * ```
 */
export function simulateJson(json: unknown, options: SimulateOptions = {}): SimulationResult {
  return simulateWith(resolveScenario(json, "scenario"), realModels, options);
}

export { type RowMetrics, rowMetrics } from "./engine/loop/row-metrics.js";
export {
  type ParticipantResult,
  POLL_STEPS,
  type QueryResult,
  type RunResult,
  type SeriesPoint,
  type SimulateOptions,
  type SimulationProgress,
  type SimulationResult,
} from "./engine/loop/simulate.js";
export { type ScanThroughput, scanThroughput, type ThroughputRun } from "./engine/loop/throughput.js";
export {
  type EstimateOptions,
  estimateWork,
  MEMORY_BUDGET_BYTES,
  overBudget,
  PROGRESS_STEPS,
  type QueryWork,
  STEP_US,
  WORK_BUDGET_STEPS,
  type WorkEstimate,
  type WorkLever,
} from "./engine/loop/work-estimate.js";
export { type CpuCosts, DEFAULT_CPU_COSTS } from "./engine/pg/cpu-costs.js";
export { defaultAllocator, resolveDeviceProfile } from "./engine/seam/adapters.js";
export type { WarpSummary } from "./engine/speedups/warp.js";
export { ScenarioError, type ScenarioProblem } from "./errors.js";
export {
  limitProblem,
  MAX_MEMORY_BYTES,
  MAX_SIMULATED_US,
  SCENARIO_LIMITS,
  type ScenarioLimitName,
  type ScenarioRange,
} from "./scenario/limits.js";
export {
  acceptedOsNames,
  describeOsModel,
  isOsName,
  LINUX_RANGE,
  type LinuxDefaultReadAhead,
  type OsModel,
  osModel,
} from "./scenario/os-model.js";
export {
  type AllocatorModel,
  type BitmapPrefetchModel,
  describePgModel,
  PG_MECHANISMS,
  PG_MODEL_TABLE,
  PG_VERSIONS,
  PG_VERSIONS_WITH_SERVER,
  type PgMechanism,
  type PgModel,
  type PgModelRow,
  pgModel,
  type ReadStreamModel,
  type RingModel,
  type SyncscanModel,
} from "./scenario/pg-model.js";
export { type ResolvedScenario, resolveScenario } from "./scenario/resolve.js";
export { OS_NAMES, scenarioSchema } from "./scenario/schema.js";
export type {
  AllocatorSpec,
  BitmapSpec,
  FileReadSpec,
  Machine,
  MachineInput,
  OsName,
  OsOptions,
  PgbenchBitmap,
  PgVersion,
  Quantity,
  Query,
  QueryInput,
  Scenario,
  ScenarioInput,
  Table,
  TableInput,
} from "./scenario/types.js";
export { BLOCK_BYTES, formatBytes, parseBytes, parseDurationUs } from "./units.js";
