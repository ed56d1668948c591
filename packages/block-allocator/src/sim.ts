/**
 * `@scanlab/block-allocator/sim`: hooks for a discrete-event simulator, off
 * the main entry because a program that allocates blocks of a real table
 * never needs them.
 *
 * - {@link renumberScan} applies the renumbering protocol of
 *   `@scanlab/core/sim` to a running scan: the simulator's warp cuts a
 *   stretch of the table out ahead of every participant, or puts it back
 *   behind them.
 * - {@link fastForwardScan} moves the shared allocation forward over blocks
 *   the caller hands out itself (a striding scan whose order it knows).
 *
 * Both act only on scans made by `createParallelScan` (the in-process
 * backing), only once the start block is set, and, like
 * `ParallelScan.rescan`, only while no participant is inside a request.
 * Browser-safe.
 *
 * @packageDocumentation
 */
import type { Renumbering } from "@scanlab/core/sim";
import { AllocatorError } from "./errors.js";
import { FAST_FORWARD, type ParallelScan, ParallelScanImpl, RENUMBER } from "./parallel-scan.js";

function impl(
  scan: ParallelScan,
  code: "ALLOCATOR_BAD_RENUMBERING" | "ALLOCATOR_BAD_FAST_FORWARD",
): ParallelScanImpl {
  if (!(scan instanceof ParallelScanImpl))
    throw new AllocatorError(code, "the scan was not made by this package's createParallelScan.");
  return scan;
}

/**
 * Renumbers a running scan after its relation lost a stretch of blocks or
 * got one back: the relation becomes `change.nblocks` blocks (the one time
 * `ParallelScan.nblocks` changes), the start block and pg96's cursor
 * go where `change.map` sends them, and every counter value (the shared
 * phs_nallocated and each participant's own) moves by the stretch's length
 * if the stretch lies before it on the scan's path from the start block, and
 * stays if it lies after. Chunk sizes are kept (PG14 sized them from the
 * relation at start-up).
 *
 * @example
 * ```ts
 * import { createParallelScan } from "@scanlab/block-allocator";
 * import { renumberScan } from "@scanlab/block-allocator/sim";
 * import { cutStretch } from "@scanlab/core/sim";
 * const scan = createParallelScan({ kind: "pg11" }, { nblocks: 1000 });
 * const p = scan.join();
 * for (let i = 0; i < 100; i++) p.nextBlock(); // blocks 0-99
 * renumberScan(scan, cutStretch(0, 1000, 256, 512)); // blocks 256-767 leave, ahead of the scan
 * [scan.nblocks, scan.counter, p.nextBlock()]; // [488, 100, 100]
 * ```
 *
 * @throws `AllocatorError` `ALLOCATOR_BAD_RENUMBERING` for a scan on the
 * SharedArrayBuffer backing or not started, a change for another size, a cut
 * that holds the start block or blocks already handed out, or a result out
 * of range.
 */
export function renumberScan(scan: ParallelScan, change: Renumbering): void {
  impl(scan, "ALLOCATOR_BAD_RENUMBERING")[RENUMBER](change);
}

/**
 * Advances the shared allocation by `blocks` blocks as if they had been
 * handed out by claims the caller accounts for itself: the simulator's fast
 * path over long stretches of a striding scan, where it knows which
 * participant gets which block without asking one at a time. Only for the
 * fixed-size policies (pg96, pg11, batch), and only within the scan: the
 * cursor must stay short of the end of the scan and must not cross the wrap
 * from the last block to block 0, so that nothing but the position changes
 * (no end-of-scan report).
 *
 * @throws `AllocatorError` `ALLOCATOR_BAD_FAST_FORWARD` otherwise.
 */
export function fastForwardScan(scan: ParallelScan, blocks: number): void {
  impl(scan, "ALLOCATOR_BAD_FAST_FORWARD")[FAST_FORWARD](blocks);
}
