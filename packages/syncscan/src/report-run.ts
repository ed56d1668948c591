/**
 * Reporting a run of blocks in one call.
 *
 * A backend reports its position once per block (ss_report_location, apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations
 * ), and the report routine throws away every block that is not a multiple
 * of SYNC_SCAN_REPORT_INTERVAL (16). The simulator does not step block by block:
 * it advances a scan over a run of blocks in one event (apps/docs/src/reference/design.md#how-data-flows
 * ). Reporting every block of a run in order leaves, when the lock is free,
 * exactly one trace: the last multiple of the interval in the run. Earlier
 * multiples are overwritten by later ones for the same key, and the list order
 * is the same because every stored report moves the same item to the head.
 * Runs follow the scan's own order and wrap from nblocks - 1 to block 0, which
 * is itself a multiple, so a run that wraps always contains one.
 */
import { checkBlockCount, checkBlockInTable, checkNblocks } from "./validate.js";

/**
 * The block a run of reports leaves as the stored location: the last block that
 * is a multiple of `reportIntervalBlocks` among `firstBlock`, `firstBlock + 1`,
 * ... (`blocks` blocks, wrapping from `nblocks - 1` to 0), or `null` if the run
 * holds none.
 *
 * @example
 * ```ts
 * import { lastReportInRun } from "@scanlab/syncscan";
 * lastReportInRun(90, 20, 100, 16); // 0   (90..99 then 0..9: block 0 after the wrap)
 * lastReportInRun(17, 10, 100, 16); // null (17..26 holds no multiple of 16)
 * lastReportInRun(30, 20, 100, 16); // 48
 * ```
 */
export function lastReportInRun(
  firstBlock: number,
  blocks: number,
  nblocks: number,
  reportIntervalBlocks: number,
): number | null {
  checkNblocks(nblocks);
  checkBlockCount(blocks);
  if (blocks === 0) return null;
  checkBlockInTable(firstBlock, nblocks, "firstBlock");
  // Last block of the run in block space. blocks - 1 is reduced first: firstBlock + blocks - 1
  // itself can pass 2^53 (blocks may be any safe integer) and would then be rounded.
  const last = (firstBlock + ((blocks - 1) % nblocks)) % nblocks;
  // Walking back from `last`, the nearest multiple is `last - last % interval`; going
  // back never crosses the wrap before reaching it (0 is a multiple), so it is in
  // the run exactly when it is at most blocks - 1 steps back.
  const back = last % reportIntervalBlocks;
  return back <= blocks - 1 ? last - back : null;
}
