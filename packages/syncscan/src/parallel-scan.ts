/**
 * The parallel scan cycle.
 *
 * A parallel sequential scan fetches its start block once for all participants
 * (table_block_parallelscan_startblock_init; apps/docs/src/reference/parallel-block-allocation.md#start-up): 0, or the tracker's location
 * when the scan may synchronize. Then every participant reports each block it
 * is handed (the tracker keeps only multiples of 16), so the stored location is
 * wherever some participant last took a multiple of 16; with PG14+ chunks it
 * can move back and forth by up to a chunk. At the end, the one participant
 * whose request meets counter value nblocks reports the start block (1.3 step 3,
 * 2.5), so a later scan that finds nobody running starts where this one did -
 * which is why, once a parallel scan joined a sync scan, later scans keep
 * starting at the same non-zero block (apps/docs/src/reference/experiments.md#t4-must-reproduce side note).
 *
 * Who hands out blocks is the block allocator's business (@scanlab/block-
 * allocator). This file gives it the two things it calls: `onBlock` (or
 * `onRun` for a chunk) for every block handed out, and `onScanEnd(startBlock)`
 * for the final report. It does not import the allocator; the README shows the
 * wiring.
 */
import type { SyncScanEligibilityInput } from "./eligibility.js";
import { syncScanEligible } from "./eligibility.js";
import type { SyncScanTracker } from "./tracker.js";
import { checkKey, checkNblocks } from "./validate.js";

/**
 * What a parallel scan calls: `getStartBlock` once at start-up, then the
 * reports (which return whether a location was stored). The shape fits
 * `@scanlab/block-allocator`'s `ScanHooks` (`getStartBlock`, `onScanEnd`), so
 * the object can be passed there as it is.
 */
export interface ParallelSyncScanHooks {
  /** ss_get_location for the scan's start block (0 when the scan does not synchronize). */
  getStartBlock(nblocks: number): number;
  /** A block was handed to a participant (ss_report_location). */
  onBlock(block: number): boolean;
  /** A run of blocks (a chunk) was handed out, firstBlock onwards, wrapping at nblocks. */
  onRun(firstBlock: number, blocks: number): boolean;
  /** The participant that met counter value nblocks reports the start block. */
  onScanEnd(startBlock: number): boolean;
}

/** A parallel scan's start block plus the hooks. */
export interface ParallelSyncScan extends ParallelSyncScanHooks {
  /** Where every participant's counter 0 maps to (phs_startblock). */
  readonly startBlock: number;
  /** Whether the scan synchronizes (reports); when false the hooks do nothing. */
  readonly sync: boolean;
}

/** {@link beginParallelSyncScan}'s input. */
export interface BeginParallelSyncScanOptions extends SyncScanEligibilityInput {
  /** The relation's tracker key. */
  key: number;
}

/**
 * Hooks that fetch the start block from and report a parallel scan's blocks
 * to `tracker` (or do nothing when `sync` is false). Create them in each
 * thread that takes part, over a shared tracker.
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker, parallelSyncScanHooks, syncScanEligible } from "@scanlab/syncscan";
 * const tracker = new InProcessSyncScanTracker();
 * const nblocks = 50_000;
 * const sync = syncScanEligible({ nblocks, nbuffers: 16_384 });
 * const hooks = parallelSyncScanHooks(tracker, { key: 9, nblocks, sync });
 * const start = hooks.getStartBlock(nblocks); // 0 the first time
 * hooks.onRun(start, 64);                      // a participant took 0..63: 48 stored
 * ```
 */
export function parallelSyncScanHooks(
  tracker: SyncScanTracker,
  options: { key: number; nblocks: number; sync: boolean },
): ParallelSyncScanHooks {
  const key = checkKey(options.key);
  const nblocks = checkNblocks(options.nblocks);
  if (!options.sync) {
    return { getStartBlock: () => 0, onBlock: () => false, onRun: () => false, onScanEnd: () => false };
  }
  return {
    getStartBlock: (n) => tracker.getLocation(key, n),
    onBlock: (block) => tracker.reportLocation(key, block),
    onRun: (firstBlock, blocks) => tracker.reportRun(key, firstBlock, blocks, nblocks),
    onScanEnd: (startBlock) => tracker.reportLocation(key, startBlock),
  };
}

/**
 * Start a parallel scan: fetch the start block once (0 when not eligible) and
 * return it with the reporting hooks.
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker, beginParallelSyncScan } from "@scanlab/syncscan";
 * const tracker = new InProcessSyncScanTracker();
 * const scan = beginParallelSyncScan(tracker, { key: 9, nblocks: 50_000, nbuffers: 16_384 });
 * scan.startBlock;        // 0: nobody scanned relation 9 before
 * scan.onRun(0, 4096);    // a participant took blocks 0..4095: 4080 stored
 * scan.onScanEnd(scan.startBlock); // the scan ended: back to its start, 0
 * ```
 */
export function beginParallelSyncScan(
  tracker: SyncScanTracker,
  options: BeginParallelSyncScanOptions,
): ParallelSyncScan {
  const key = checkKey(options.key);
  const sync = syncScanEligible(options);
  const startBlock = sync ? tracker.getLocation(key, options.nblocks) : 0;
  return { startBlock, sync, ...parallelSyncScanHooks(tracker, { key, nblocks: options.nblocks, sync }) };
}
