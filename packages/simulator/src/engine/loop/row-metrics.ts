/**
 * The figures of one simulated scan in the shape every comparison uses: the
 * reproduction targets, sweeps, advice and the lab all set a row of these
 * beside a published or measured row. Throughput is the one computation of
 * throughput.ts, so a row's MiB/s (scanlab's one throughput unit, 2^20 bytes
 * per second) is what `simulate` prints.
 */
import type { ScenarioInput } from "../../scenario/schema.js";
import type { SimulationResult } from "./simulate.js";
import { scanThroughput } from "./throughput.js";

/** Simulated figures of one row (always all present). */
export interface RowMetrics {
  /** Mean duration of the row's runs, seconds. */
  timeS: number;
  /** MiB (2^20 bytes) a run read, warp credit included, per second of its duration (throughput.ts). */
  mibPerS: number;
  /** Average device read, KiB. */
  avgReadKb: number;
  /** Share of device reads a process waited for synchronously. */
  syncShare: number;
  /** Device reads per second. */
  iops: number;
  /** OS page cache hit ratio: 1 - device bytes / bytes asked of the OS (0..1). */
  osHitRatio: number;
  /** Both caches together: 1 - device bytes / bytes the scans processed (0..1). */
  cacheHitRatio: number;
  /** Shared buffers hit ratio (0..1). */
  sharedHitRatio: number;
  /** Mean device queue depth. */
  meanQueueDepth: number;
  /** Participants' blocks per allocation claim (mean run length). */
  meanRunBlocks: number;
}

/**
 * Turns a simulation result into the row metrics the targets compare.
 * Throughput is the one computation of throughput.ts, as in `simulate`.
 *
 * @param result the simulation's result
 * @param _scenario the scenario it ran (not needed: the runs carry every count the metrics use)
 * @example
 * ```ts
 * import { rowMetrics, simulate } from "@scanlab/simulator";
 * const scenario = {
 *   name: "serial scan",
 *   machine: { cores: 4, ram: "8GB", os: "linux-5.4", device: "samsung-990-pro-1tb" },
 *   tables: [{ name: "t", size: "256MB", tuplesPerPage: 226 }],
 *   queries: [{ name: "count", table: "t", pg: "17" }],
 * };
 * console.log(rowMetrics(simulate(scenario), scenario).avgReadKb);
 * ```
 */
export function rowMetrics(result: SimulationResult, _scenario: ScenarioInput): RowMetrics {
  const runs = result.queries.flatMap((q) => q.runs.filter((r) => r.finished));
  const throughput = scanThroughput(runs);
  const claims = runs.reduce((a, r) => a + r.claims, 0);
  const scanned = runs.reduce((a, r) => a + r.blocks, 0);
  return {
    timeS: throughput.meanDurationS,
    mibPerS: throughput.mibPerS,
    avgReadKb: result.device.avgReadKb,
    syncShare: result.device.syncShare,
    iops: result.device.iops,
    osHitRatio: result.os.hitRatio,
    cacheHitRatio: scanned > 0 ? Math.max(0, 1 - result.device.bytes / (scanned * 8192)) : 0,
    sharedHitRatio: result.sharedBuffers.hitRatio,
    meanQueueDepth: result.device.meanQueueDepth,
    meanRunBlocks: claims > 0 ? scanned / claims : 0,
  };
}
