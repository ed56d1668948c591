/**
 * The serial scan cycle: how one backend walks a table and what it reports.
 *
 * PostgreSQL (heapam.c initscan, heapgettup_initial_block,
 * heapgettup_advance_block; apps/docs/src/reference/synchronized-scans.md#serial-scans): a scan that may synchronize
 * asks the tracker where to start, and starts there; otherwise it starts at 0.
 * Forward, after finishing block b it moves to b + 1, wrapping from nblocks - 1
 * to 0, and reports the block it moved to *before* testing whether it is back
 * at its start. So the last report of a complete scan is its own start block:
 * the stored location does not drift when one scan after another reads the
 * whole table. A scan that stops early (LIMIT, a closed cursor) leaves the last
 * multiple of 16 it moved to (possibly the block it was reading when it
 * stopped), and the next scan of that table starts there, riding on whatever
 * the earlier one left in the caches. Backward scans never report ("it's not
 * very likely anyone else is doing the same thing"), start at start - 1
 * (nblocks - 1 when start is 0), and stop after visiting the start block.
 *
 * Here a scan is a small immutable value: its start, direction and how many
 * blocks it has *finished* (its position, 0..nblocks). `advanceSerialScan`
 * finishes a run of blocks in one step and returns the blocks visited and the
 * run of blocks reported on the way, which the caller hands to
 * `tracker.reportRun` - the same as reporting each block in order
 * (report-run.ts). Position p stands on the block (start + p) mod nblocks
 * forward, (start - 1 - p) mod nblocks backward; p = nblocks means done.
 *
 * PG17+ (2.6): the scan's read stream asks for block numbers ahead of the block
 * being processed, and heapgettup_advance_block (with its report) runs when the
 * stream asks. With a look-ahead distance of d blocks, a scan standing on
 * position p has asked for (and reported) positions up to p + d, capped at
 * nblocks. `lookaheadBlocks: 0` is PG <= 16 exactly; the real stream's
 * distance varies, so d is the caller's model of it.
 */
import type { SyncScanEligibilityInput } from "./eligibility.js";
import { syncScanEligible } from "./eligibility.js";
import { SyncScanError } from "./errors.js";
import type { SyncScanTracker } from "./tracker.js";
import { checkBlockCount, checkBlockInTable, checkKey, checkLookahead, checkNblocks } from "./validate.js";

/** Scan direction. PostgreSQL reports only from forward scans. */
export type ScanDirection = "forward" | "backward";

/** A contiguous range of blocks, lowest first. */
export interface BlockRange {
  /** Lowest block of the range. */
  readonly firstBlock: number;
  /** Number of blocks. */
  readonly blocks: number;
}

/** A run of reported blocks in scan order: firstBlock, firstBlock + 1, ..., wrapping at nblocks to 0. */
export interface ReportRun {
  /** First block reported. */
  readonly firstBlock: number;
  /** Number of consecutive blocks reported (pass both to `tracker.reportRun`). */
  readonly blocks: number;
}

/** How a serial scan is set up. */
export interface SerialScanOptions {
  /** Relation size in blocks, fixed for the scan (initscan reads it once). */
  nblocks: number;
  /** Start block: the tracker's location when syncing, else 0. Must be < nblocks (0 for an empty table). */
  startBlock: number;
  /** Default "forward". */
  direction?: ScanDirection;
  /** Whether the scan reports its position (syncscan allowed and on). Ignored (false) for backward scans. */
  sync: boolean;
  /** PG17+ read-stream look-ahead in blocks; 0 (default) is PG <= 16. */
  lookaheadBlocks?: number;
}

/** An immutable serial scan state. Create with {@link createSerialScan}. */
export interface SerialScan {
  /** Relation size in blocks. */
  readonly nblocks: number;
  /** The block the scan started at (forward) or from which it counts down (backward). */
  readonly startBlock: number;
  /** Scan direction. */
  readonly direction: ScanDirection;
  /** Whether the scan reports (always false backward). */
  readonly sync: boolean;
  /** Look-ahead distance in blocks (0 = PG <= 16). */
  readonly lookaheadBlocks: number;
  /** Blocks finished so far, 0..nblocks; nblocks means the scan is complete. */
  readonly position: number;
}

/** The result of finishing a run of blocks. */
export interface SerialScanStep {
  /** The scan after the step. */
  readonly scan: SerialScan;
  /** Blocks finished in this step (the request, capped at what was left). */
  readonly blocks: number;
  /**
   * The blocks finished, as at most two ranges in visiting order (two when the
   * step wraps). A forward scan reads each range lowest first, a backward scan
   * highest first.
   */
  readonly visited: BlockRange[];
  /** Blocks reported on the way, for `tracker.reportRun(key, r.firstBlock, r.blocks, nblocks)`; null if none. */
  readonly report: ReportRun | null;
}

/**
 * A serial scan about to read its first block. Pure: the caller has already
 * chosen the start block (see {@link beginSerialScan} for the whole initscan).
 *
 * @example
 * ```ts
 * import { createSerialScan, serialScanBlock } from "@scanlab/syncscan";
 * const scan = createSerialScan({ nblocks: 100, startBlock: 32, sync: true });
 * serialScanBlock(scan); // 32
 * ```
 */
export function createSerialScan(options: SerialScanOptions): SerialScan {
  const nblocks = checkNblocks(options.nblocks);
  const direction = options.direction ?? "forward";
  if (direction !== "forward" && direction !== "backward") {
    throw new SyncScanError(
      "SYNCSCAN_BAD_DIRECTION",
      `direction must be "forward" or "backward", got ${String(direction)}.`,
    );
  }
  if (nblocks === 0) {
    if (options.startBlock !== 0) checkBlockInTable(options.startBlock, nblocks, "startBlock");
  } else {
    checkBlockInTable(options.startBlock, nblocks, "startBlock");
  }
  return {
    nblocks,
    startBlock: options.startBlock,
    direction,
    sync: options.sync === true && direction === "forward",
    lookaheadBlocks: checkLookahead(options.lookaheadBlocks ?? 0),
    position: 0,
  };
}

/** Whether the scan has visited every block. */
export function serialScanDone(scan: SerialScan): boolean {
  return scan.position >= scan.nblocks;
}

/**
 * The block the scan stands on (being read now), or `null` when done.
 *
 * @example
 * ```ts
 * import { createSerialScan, serialScanBlock } from "@scanlab/syncscan";
 * serialScanBlock(createSerialScan({ nblocks: 100, startBlock: 0, direction: "backward", sync: false })); // 99
 * ```
 */
export function serialScanBlock(scan: SerialScan): number | null {
  return serialScanDone(scan) ? null : blockAtPosition(scan, scan.position);
}

function blockAtPosition(scan: SerialScan, position: number): number {
  const n = scan.nblocks;
  if (scan.direction === "forward") return (scan.startBlock + position) % n;
  return (((scan.startBlock - 1 - position) % n) + n) % n;
}

/** Positions 1..reportedThrough(p) have been reported by a scan standing on position p. */
function reportedThrough(scan: SerialScan, position: number): number {
  if (!scan.sync) return 0;
  return Math.min(position + scan.lookaheadBlocks, scan.nblocks);
}

function reportBetween(scan: SerialScan, from: number, to: number): ReportRun | null {
  if (to <= from) return null;
  return { firstBlock: (scan.startBlock + from + 1) % scan.nblocks, blocks: to - from };
}

/**
 * Reports a scan makes before it finishes any block: none in PG <= 16; with a
 * read stream (lookaheadBlocks = d > 0) the stream's first requests report
 * positions 1..d at once.
 */
export function serialScanStartReport(scan: SerialScan): ReportRun | null {
  return reportBetween(scan, 0, reportedThrough(scan, 0));
}

/**
 * Finish up to `blocks` blocks of the scan (pure). Returns the new state, the
 * block ranges visited and the run of reports made on the way.
 *
 * @example
 * ```ts
 * import { createSerialScan, advanceSerialScan } from "@scanlab/syncscan";
 * // Start at 96 in a 100-block table and read 10 blocks: 96..99, then 0..5.
 * const step = advanceSerialScan(createSerialScan({ nblocks: 100, startBlock: 96, sync: true }), 10);
 * step.visited; // [{ firstBlock: 96, blocks: 4 }, { firstBlock: 0, blocks: 6 }]
 * step.report;  // { firstBlock: 97, blocks: 10 }: 97, 98, 99, 0, ..., 6 (stored: block 0)
 * ```
 */
export function advanceSerialScan(scan: SerialScan, blocks: number): SerialScanStep {
  checkBlockCount(blocks);
  const k = Math.min(blocks, scan.nblocks - scan.position);
  if (k <= 0) return { scan, blocks: 0, visited: [], report: null };
  const n = scan.nblocks;
  const first = blockAtPosition(scan, scan.position);
  let visited: BlockRange[];
  if (scan.direction === "forward") {
    visited =
      first + k <= n
        ? [{ firstBlock: first, blocks: k }]
        : [
            { firstBlock: first, blocks: n - first },
            { firstBlock: 0, blocks: k - (n - first) },
          ];
  } else {
    visited =
      first - k + 1 >= 0
        ? [{ firstBlock: first - k + 1, blocks: k }]
        : [
            { firstBlock: 0, blocks: first + 1 },
            { firstBlock: n - (k - first - 1), blocks: k - first - 1 },
          ];
  }
  const next: SerialScan = { ...scan, position: scan.position + k };
  const report = reportBetween(
    scan,
    reportedThrough(scan, scan.position),
    reportedThrough(next, next.position),
  );
  return { scan: next, blocks: k, visited, report };
}

/** {@link beginSerialScan}'s input: initscan's facts plus the relation's key. */
export interface BeginSerialScanOptions extends SyncScanEligibilityInput {
  /** The relation's tracker key. */
  key: number;
  /** Default "forward". */
  direction?: ScanDirection;
  /** PG17+ look-ahead in blocks; 0 (default) is PG <= 16. */
  lookaheadBlocks?: number;
}

/**
 * initscan for a serial scan: if the scan may synchronize
 * ({@link syncScanEligible}), start at `tracker.getLocation(key, nblocks)`,
 * else at 0 without reporting. A backward scan still takes its start from the
 * tracker (initscan does not know the direction) but never reports. With a
 * look-ahead, the stream's first reports are made here.
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker, beginSerialScan, continueSerialScan } from "@scanlab/syncscan";
 * const tracker = new InProcessSyncScanTracker();
 * const facts = { key: 1, nblocks: 10_000, nbuffers: 16_384 }; // over 4096 blocks: syncs
 * let scan = beginSerialScan(tracker, facts);        // starts at 0
 * scan = continueSerialScan(tracker, 1, scan, 1000).scan; // LIMIT stops it on block 1000
 * beginSerialScan(tracker, facts).startBlock;        // 992: last multiple of 16 it reached
 * ```
 */
export function beginSerialScan(tracker: SyncScanTracker, options: BeginSerialScanOptions): SerialScan {
  checkKey(options.key);
  const eligible = syncScanEligible(options);
  const startBlock = eligible ? tracker.getLocation(options.key, options.nblocks) : 0;
  const scan = createSerialScan({
    nblocks: options.nblocks,
    startBlock,
    direction: options.direction ?? "forward",
    sync: eligible,
    lookaheadBlocks: options.lookaheadBlocks ?? 0,
  });
  const start = serialScanStartReport(scan);
  if (start !== null) tracker.reportRun(options.key, start.firstBlock, start.blocks, scan.nblocks);
  return scan;
}

/**
 * {@link advanceSerialScan} plus the tracker report: finish up to `blocks`
 * blocks and report the run (one lock attempt).
 */
export function continueSerialScan(
  tracker: SyncScanTracker,
  key: number,
  scan: SerialScan,
  blocks: number,
): SerialScanStep {
  const step = advanceSerialScan(scan, blocks);
  if (step.report !== null) tracker.reportRun(key, step.report.firstBlock, step.report.blocks, scan.nblocks);
  return step;
}
