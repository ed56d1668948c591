/**
 * @packageDocumentation
 * Which pages to advise ahead in a bitmap heap scan: PostgreSQL 13-17
 * prefetching (serial and parallel), an adaptive policy that looks at the
 * bitmap, and the bitmap those policies read. Every model is a pure
 * state machine: the caller owns time, buffers, the page cache and the device.
 * PostgreSQL 17+ read streams (which PG18+ bitmap heap scans read through)
 * are in `@scanlab/read-stream`; the bitmaps of published benchmarks (the 2022
 * data sets, pgbench_accounts) are in `@scanlab/workloads`.
 *
 * The entry holds what a caller uses: the policies, their options and
 * results, the bitmap, and the setting conversions. The adaptive policy's
 * cost model (`src/adaptive-cost-model.ts`) and the PostgreSQL helpers the
 * policies are built from stay internal.
 */

export {
  type AdaptiveCostParameters,
  DEFAULT_ADVICE_CALL_US,
  type DevicePhysics,
  INTEL_320_LINUX_DEFAULTS,
  type RegionMode,
  type ResolvedCostParameters,
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
export { INVALID_BLOCK_NUMBER } from "./constants.js";
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
  spindlesToPrefetchPages,
} from "./io-concurrency.js";
export {
  BitmapHeapScanPrefetcher,
  ParallelBitmapHeapScan,
  ParallelBitmapHeapScanParticipant,
  type Pg13PrefetchOptions,
  Pg13PrefetchShared,
  type Pg13PrefetchStats,
  Pg13ScanBase,
} from "./pg13-prefetch.js";
