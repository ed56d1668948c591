/**
 * A scan's throughput: the bytes its runs read over the time they took.
 *
 * Problem. Throughput is printed by `simulate` (per query), by `sweep`,
 * `reproduce` and `advise` (per row), and `scan` sets its prediction beside
 * a real measurement. A figure computed from the table's size goes wrong in
 * two ways: a bitmap heap scan reads only the pages its bitmap names, not the
 * table; and the warp (speedups/warp.ts) cuts the steady stretch out of the table, so
 * after a cut the table's block count no longer says how much a run scanned.
 *
 * Insight. Every run already counts the blocks its processes handled, warp
 * credit included (each run is credited with the blocks of the stretch that
 * was cut), and for a bitmap heap scan those are exactly the heap pages it
 * fetched. So the throughput of a set of finished runs is their mean blocks
 * over their mean duration, one formula for every kind of scan.
 *
 * Choices.
 * - Mean over runs (pgbench's "latency average" beside the mean bytes), not
 *   the sum of bytes over the wall time of the whole simulation: concurrent
 *   clients overlap, and a per-run figure is what the published experiments
 *   quote.
 * - MiB/s, scanlab's one throughput unit (2^20 bytes per second, `mibPerS`
 *   of @scanlab/core); the arithmetic order (bytes to MiB, then divide by
 *   seconds) is the one those fields have always used, so a figure that was
 *   right stays bit-identical.
 * - Unfinished runs are left out: a run cut short by `duration` or Ctrl-C has
 *   neither a full byte count nor a duration.
 */
import { BLOCK_BYTES, mibPerS } from "../../units.js";

/** What the throughput needs of a run (a RunResult has it). */
export interface ThroughputRun {
  /** False for a run the simulation stopped before it ended. */
  readonly finished: boolean;
  /** Blocks its processes handled, warp credit included. */
  readonly blocks: number;
  /** How long it took, seconds. */
  readonly durationS: number;
}

/** The throughput of a set of finished runs. */
export interface ScanThroughput {
  /** Finished runs counted. */
  runs: number;
  /** Mean bytes a finished run read. */
  meanBytes: number;
  /** Mean duration of a finished run, seconds (NaN when none finished). */
  meanDurationS: number;
  /** meanBytes in MiB over meanDurationS (NaN when none finished). */
  mibPerS: number;
}

/**
 * The bytes the finished runs read over the time they took (see the header).
 *
 * @example
 * ```ts
 * import { scanThroughput } from "@scanlab/simulator";
 * scanThroughput([{ finished: true, blocks: 131072, durationS: 2 }]).mibPerS; // 512
 * ```
 */
export function scanThroughput(runs: readonly ThroughputRun[]): ScanThroughput {
  let n = 0;
  let blocks = 0;
  let seconds = 0;
  for (const r of runs) {
    if (!r.finished) continue;
    n++;
    blocks += r.blocks;
    seconds += r.durationS;
  }
  const meanBlocks = n > 0 ? blocks / n : 0;
  const meanDurationS = n > 0 ? seconds / n : Number.NaN;
  return {
    runs: n,
    meanBytes: meanBlocks * BLOCK_BYTES,
    meanDurationS,
    mibPerS: mibPerS(meanBlocks * BLOCK_BYTES, meanDurationS),
  };
}
