/**
 * PG17+: reports run ahead of processing.
 *
 * From PG17 a sequential scan reads through a read stream (apps/docs/src/reference/synchronized-scans.md#read-streams-report-ahead, apps/docs/src/reference/read-streams.md).
 * The stream's callback calls heapgettup_advance_block - which reports - when
 * the stream wants the next block number, and the stream wants block numbers
 * ahead of the block being processed by its look-ahead distance: 1 in the
 * all-cached fast path, up to io_combine_limit (16) blocks in PG17 seq scans,
 * up to max_pinned_buffers in PG18+. So the location other scans see is ahead
 * of where this scan really is. With distance d, when the scan moves onto the
 * block at position p (p blocks after its start), the stream asks for position
 * p + d, and that block is reported; d = 0 is PG <= 16, where moving onto a
 * block reports that block (except the start block, which is never reported on
 * the way in). Position nblocks is the end, where the start block is reported
 * once more; beyond it there is nothing to ask for. On the start block
 * itself the stream's first fill asks for positions 1..d at once (the last of
 * them is the one returned).
 */
import { checkBlockInTable, checkLookahead, checkNblocks } from "./validate.js";

/** A forward serial scan, as far as look-ahead reporting is concerned. */
export interface LookaheadScan {
  /** The block the scan started at. */
  readonly startBlock: number;
  /** Relation size in blocks. */
  readonly nblocks: number;
  /** Look-ahead distance d in blocks (0 = PG <= 16). */
  readonly lookaheadBlocks: number;
}

/**
 * The block a forward scan reports when it moves onto `block` (before the
 * report interval filter), or `null` when that step reports nothing. For the
 * start block it is the last block the stream's first fill asked for.
 *
 * @example
 * ```ts
 * import { lookaheadReportedBlock } from "@scanlab/syncscan";
 * const scan = { startBlock: 0, nblocks: 1000, lookaheadBlocks: 16 }; // PG17, io_combine_limit 16
 * lookaheadReportedBlock(scan, 100);                          // 116
 * lookaheadReportedBlock({ ...scan, lookaheadBlocks: 0 }, 100); // 100 (PG <= 16)
 * lookaheadReportedBlock(scan, 984);                          // 0: the end, start block reported
 * lookaheadReportedBlock(scan, 990);                          // null: nothing left to ask for
 * ```
 */
export function lookaheadReportedBlock(scan: LookaheadScan, block: number): number | null {
  const n = checkNblocks(scan.nblocks);
  checkBlockInTable(scan.startBlock, n, "startBlock");
  checkBlockInTable(block, n, "block");
  const d = checkLookahead(scan.lookaheadBlocks);
  const position = (block - scan.startBlock + n) % n;
  // On the start block the stream's first fill has asked for positions 1..min(d, n).
  const asked = position === 0 ? Math.min(d, n) : position + d;
  if (asked === 0 || asked > n) return null;
  return (scan.startBlock + asked) % n;
}
