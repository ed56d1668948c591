/**
 * @packageDocumentation
 * Which pages to advise ahead in a bitmap heap scan: PostgreSQL 13-17
 * prefetching (serial and parallel), an adaptive policy that looks at the
 * bitmap, and the bitmap data sets of Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”). Every model is a pure
 * state machine: the caller owns time, buffers, the page cache and the device.
 * PostgreSQL 17+ read streams (which PG18+ bitmap heap scans read through)
 * are in `@scanlab/read-stream`.
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
export {
  BITMAP_2022_DEFAULT_TABLE_BLOCKS,
  BITMAP_2022_DISTINCT_VALUES,
  BITMAP_2022_LAYOUTS,
  BITMAP_2022_ROWS_PER_PAGE,
  BITMAP_2022_SELECTIVITIES,
  type Bitmap2022Layout,
  type Bitmap2022Query,
  type Bitmap2022QueryOptions,
  type Bitmap2022Table,
  type Bitmap2022TableOptions,
  bitmap2022Queries,
  bitmap2022Query,
  bitmap2022Table,
} from "./bitmap-data-sets-2022.js";
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
export {
  PGBENCH_ACCOUNTS_PER_SCALE,
  PGBENCH_ACCOUNTS_ROWS_PER_PAGE,
  type PgbenchAccountsOptions,
  type PgbenchAccountsQuery,
  pgbenchAccountsBitmap,
  pgbenchAccountsTableBlocks,
} from "./pgbench-accounts.js";
