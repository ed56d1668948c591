/**
 * The main entry holds what a caller of the policies uses, and nothing the
 * policies are built from: the list is pinned here so an internal helper
 * (the adaptive cost model's functions, rint(), the ramp step) cannot slip
 * back onto the entry unnoticed. Types are erased at run time; the list is
 * the runtime values.
 */
import { describe, expect, it } from "vitest";
import * as entry from "./index.js";

describe("@scanlab/bitmap-prefetch main entry", () => {
  it("exports exactly the policies, the bitmap and the setting conversions", () => {
    expect(Object.keys(entry).sort()).toEqual(
      [
        "AdaptiveBitmapPrefetcher",
        "BitmapHeapScanPrefetcher",
        "BitmapPrefetchError",
        "DEFAULT_ADVICE_CALL_US",
        "HeapBitmap",
        "HeapBitmapBuilder",
        "HeapBitmapIterator",
        "INTEL_320_LINUX_DEFAULTS",
        "INVALID_BLOCK_NUMBER",
        "MAX_IO_CONCURRENCY",
        "ParallelBitmapHeapScan",
        "ParallelBitmapHeapScanParticipant",
        "Pg13PrefetchShared",
        "Pg13ScanBase",
        "bitmapStats",
        "forEachSequentialRun",
        "prefetchMaximum",
        "spindlesToPrefetchPages",
      ].sort(),
    );
  });
});
