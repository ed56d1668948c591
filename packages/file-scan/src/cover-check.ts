/**
 * The cover check: was every block of the target read exactly once?
 *
 * Problem. A parallel scan's numbers mean nothing if some block was skipped
 * or read twice: an allocator that hands out a range twice, or a syncscan
 * start that wraps wrongly, would still produce a plausible throughput. The check
 * has to see every block, yet must not add work to a worker's read loop.
 *
 * Design choices.
 * - **"counter"** (the default up to {@link MAX_COVER_COUNTER_BLOCKS}
 *   blocks): one byte per block in a SharedArrayBuffer, incremented with
 *   Atomics.add by whichever worker read the block (worker-protocol.ts), so a
 *   block two workers read at the same moment still counts 2. After the scan
 *   the main thread walks the bytes once. The cost is one byte of memory per
 *   block, hence the bound: 2^28 blocks (2 TiB at 8 kB) is 256 MiB of counters
 *   (scanlab's choice).
 * - **"runs"** (the default above that bound, when runs are recorded): the
 *   workers' run lists (each run's first block and length, as read), sorted
 *   by start, must tile [0, nblocks). It costs nothing during the scan beyond
 *   recording the runs, and a sort afterwards.
 * - **"none"**: not checked (the verdict says `exact: false`).
 * - The method is settled once the target's size is known, before any worker
 *   starts: a method that cannot work for this size is a bad option, not a
 *   verdict of "not checked".
 *
 * Interface: {@link chooseCoverMethod} before the scan, {@link checkCover}
 * after it.
 */
import { badOption } from "./errors.js";
import type { WorkerTotals } from "./worker-protocol.js";

/** Above this many blocks (2 TiB at 8 kB) the cover check uses the run lists instead of one byte per block (scanlab's choice: 256 MiB of counters). */
export const MAX_COVER_COUNTER_BLOCKS = 2 ** 28;

/** How to check that every block was read exactly once. */
export type CoverMethod = "counter" | "runs" | "none";

/** Whether every block was read exactly once. */
export interface CoverCheck {
  /** "counter": one byte per block in a SharedArrayBuffer, incremented by whoever read it; "runs": the workers' run lists, sorted and checked to tile the block range; "none": not checked. */
  readonly method: CoverMethod;
  /** Every block read exactly once (false for an aborted scan, or when not checked). */
  readonly exact: boolean;
  /** Blocks read exactly once. */
  readonly readOnce: number;
  /** Blocks never read. */
  readonly neverRead: number;
  /** Blocks read more than once. */
  readonly readMoreThanOnce: number;
  /** The first block that was not read exactly once, or null. */
  readonly firstBadBlock: number | null;
}

/**
 * The cover method for a target of `nblocks` blocks: the one asked for, or the
 * default for the size; a method that cannot work for this size is refused.
 *
 * @throws FileScanError (FILESCAN_BAD_OPTION) for an unknown method, "counter" above
 *   {@link MAX_COVER_COUNTER_BLOCKS}, or "runs" without recorded runs.
 */
export function chooseCoverMethod(
  requested: CoverMethod | undefined,
  nblocks: number,
  recordRuns: boolean,
): CoverMethod {
  const cover: CoverMethod =
    requested ?? (nblocks <= MAX_COVER_COUNTER_BLOCKS ? "counter" : recordRuns ? "runs" : "none");
  if (cover !== "counter" && cover !== "runs" && cover !== "none") {
    throw badOption(`cover must be "counter", "runs" or "none" (got ${JSON.stringify(cover)}).`);
  }
  if (cover === "counter" && nblocks > MAX_COVER_COUNTER_BLOCKS) {
    throw badOption(
      `cover "counter" needs one byte per block, too much for ${nblocks} blocks; use "runs" or "none".`,
    );
  }
  if (cover === "runs" && !recordRuns) throw badOption(`cover "runs" needs recordRuns: true.`);
  return cover;
}

/**
 * The verdict of `method` after the scan: from the per-block `counters`
 * (method "counter") or from the workers' run lists in `totals` (method "runs").
 */
export function checkCover(
  method: CoverMethod,
  counters: SharedArrayBuffer | null,
  nblocks: number,
  totals: readonly WorkerTotals[],
): CoverCheck {
  if (method === "counter" && counters !== null) return coverFromCounters(new Uint8Array(counters));
  if (method === "runs") return coverFromRuns(nblocks, totals);
  return NO_COVER_CHECK;
}

/** The verdict when the cover is not checked (cover "none", or "runs" without run lists). */
const NO_COVER_CHECK: CoverCheck = Object.freeze({
  method: "none",
  exact: false,
  readOnce: 0,
  neverRead: 0,
  readMoreThanOnce: 0,
  firstBadBlock: null,
});

/** The cover verdict from per-block counters. */
function coverFromCounters(counts: Uint8Array): CoverCheck {
  let once = 0;
  let never = 0;
  let more = 0;
  let firstBad: number | null = null;
  for (let b = 0; b < counts.length; b++) {
    const c = counts[b]!;
    if (c === 1) once++;
    else {
      if (c === 0) never++;
      else more++;
      if (firstBad === null) firstBad = b;
    }
  }
  return {
    method: "counter",
    exact: never === 0 && more === 0,
    readOnce: once,
    neverRead: never,
    readMoreThanOnce: more,
    firstBadBlock: firstBad,
  };
}

/** The cover verdict from the workers' run lists: sorted by start, they must tile [0, nblocks). */
function coverFromRuns(nblocks: number, workers: readonly WorkerTotals[]): CoverCheck {
  const starts: number[] = [];
  const lengths: number[] = [];
  for (const w of workers) {
    if (w.runStarts === null || w.runLengths === null) {
      return NO_COVER_CHECK;
    }
    for (let i = 0; i < w.runCount; i++) {
      starts.push(w.runStarts[i]!);
      lengths.push(w.runLengths[i]!);
    }
  }
  const order = starts.map((_, i) => i).sort((a, b) => starts[a]! - starts[b]!);
  let expected = 0;
  let never = 0;
  let more = 0;
  let firstBad: number | null = null;
  for (const i of order) {
    const s = starts[i]!;
    const e = s + lengths[i]!;
    if (s > expected) {
      never += s - expected;
      if (firstBad === null) firstBad = expected;
    } else if (s < expected) {
      more += Math.min(expected, e) - s;
      if (firstBad === null) firstBad = s;
    }
    if (e > expected) expected = e;
  }
  if (expected < nblocks) {
    never += nblocks - expected;
    if (firstBad === null) firstBad = expected;
  }
  return {
    method: "runs",
    exact: never === 0 && more === 0,
    readOnce: nblocks - never - more,
    neverRead: never,
    readMoreThanOnce: more,
    firstBadBlock: firstBad,
  };
}
