/**
 * `@scanlab/bitmap-prefetch/sim`: the bitmap side of the renumbering protocol
 * of `@scanlab/core/sim`, for a simulator that cuts a stretch out of a table
 * under a running bitmap heap scan, or puts it back (`@scanlab/simulator`'s
 * warp renumbers a serial PG13-17 scan). A program that models real bitmap
 * scans never needs it, so it stays off the main entry. Browser-safe.
 *
 * @packageDocumentation
 */
import type { Renumbering } from "@scanlab/core/sim";
import { bitmapWithGap, bitmapWithout, type HeapBitmap } from "./heap-bitmap.js";
import { type BitmapHeapScanPrefetcher, RENUMBER } from "./pg13-prefetch.js";

/**
 * The same bitmap on the renumbered table (a copy): a cut takes the
 * stretch's pages out and numbers every later page lower; a restore puts in
 * blocks that hold no pages and numbers every later page higher. Flags stay.
 *
 * @example
 * ```ts
 * import { HeapBitmap } from "@scanlab/bitmap-prefetch";
 * import { renumberBitmap } from "@scanlab/bitmap-prefetch/sim";
 * import { cutStretch } from "@scanlab/core/sim";
 * renumberBitmap(HeapBitmap.fromPages(100, [3, 4, 5, 40, 41]), cutStretch(0, 100, 4, 30)).toPages(); // [3, 10, 11]
 * ```
 *
 * @throws RangeError when the change is for another table size, or a cut would leave no block.
 */
export function renumberBitmap(bitmap: HeapBitmap, change: Renumbering): HeapBitmap {
  if (change.oldNblocks !== bitmap.tableBlocks)
    throw new RangeError(
      `the change is for a ${change.oldNblocks}-block table, the bitmap's has ${bitmap.tableBlocks} blocks`,
    );
  return change.kind === "cut"
    ? bitmapWithout(bitmap, change.at, change.blocks)
    : bitmapWithGap(bitmap, change.at, change.blocks);
}

/**
 * Renumbers a serial scan: both its iterators walk the renumbered bitmap
 * from now on, each from the page its next block becomes; prefetch_pages,
 * prefetch_target and the counters stay. The bitmap is
 * `renumberBitmap(scan.bitmap, change)` unless the caller gives one: a
 * caller that kept the pages of a stretch it cut can give them back when it
 * restores it.
 */
export function renumberPrefetch(
  scan: BitmapHeapScanPrefetcher,
  change: Renumbering,
  bitmap: HeapBitmap = renumberBitmap(scan.bitmap, change),
): void {
  if (bitmap.tableBlocks !== change.nblocks)
    throw new RangeError(
      `the bitmap is for ${bitmap.tableBlocks} blocks, the renumbered table has ${change.nblocks}`,
    );
  scan[RENUMBER](bitmap, change.map);
}
