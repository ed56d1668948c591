/**
 * @packageDocumentation
 * Which pages to advise ahead in a bitmap heap scan: PostgreSQL 13-17
 * prefetching (serial and parallel), an adaptive policy that looks at the
 * bitmap, and the bitmap those policies read. Every model is a pure
 * state machine: the caller owns time, buffers, the page cache and the device.
 * PostgreSQL 17+ read streams (which PG18+ bitmap heap scans read through)
 * are in `@scanlab/read-stream`; the bitmaps of published benchmarks (the 2022
 * data sets, pgbench_accounts) are in `@scanlab/workloads`.
 */

/** The npm name of this package. */
export const PACKAGE_NAME = "@scanlab/bitmap-prefetch";

export {
  type AdaptiveCostParameters,
  adviceCalls,
  adviceCostUs,
  chooseRegionMode,
  DEFAULT_ADVICE_CALL_US,
  type DevicePhysics,
  gapMergeLimitBlocks,
  INTEL_320_LINUX_DEFAULTS,
  type RegionMode,
  type RegionShape,
  type ResolvedCostParameters,
  readaheadCostUs,
  readaheadWindowsBlocks,
  resolveCostParameters,
} from "./adaptive-cost-model.js";
export {
  AdaptiveBitmapPrefetcher,
  type AdaptivePrefetchStats,
  type PlannedRegion,
} from "./adaptive-prefetch.js";
export type {
  AdviceCall,
  BitmapHeapPage,
  BitmapHeapScanStep,
  BitmapPrefetchStats,
  BitmapScanPolicy,
  PrefetchEnv,
} from "./bitmap-scan-policy.js";
export { type BitmapStats, bitmapStats, forEachSequentialRun, type RunLengthBucket } from "./bitmap-stats.js";
export { BLCKSZ, INVALID_BLOCK_NUMBER, MAX_BLOCK_NUMBER, RELSEG_SIZE_BLOCKS } from "./constants.js";
export { BitmapPrefetchError, type BitmapPrefetchErrorCode } from "./errors.js";
export {
  HeapBitmap,
  HeapBitmapBuilder,
  HeapBitmapIterator,
  type HeapBitmapRun,
  type HeapPageInfo,
} from "./heap-bitmap.js";
export {
  type EicFormula,
  MAX_IO_CONCURRENCY,
  prefetchMaximum,
  rintHalfEven,
  spindlesToPrefetchPages,
  validateEffectiveIoConcurrency,
} from "./io-concurrency.js";
export {
  adjustPrefetchTarget,
  BitmapHeapScanPrefetcher,
  ParallelBitmapHeapScan,
  ParallelBitmapHeapScanParticipant,
  type Pg13PrefetchOptions,
  Pg13PrefetchShared,
  type Pg13PrefetchStats,
  Pg13ScanBase,
} from "./pg13-prefetch.js";
