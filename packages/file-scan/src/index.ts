/**
 * @packageDocumentation
 * Scan real files in parallel the way PostgreSQL does: worker_threads that
 * take blocks from a shared PostgreSQL-style allocator (`@scanlab/block-allocator`)
 * and read each block with a synchronous positioned read on their own
 * read-only descriptor, optionally sharing a start location through a
 * syncscan tracker (`@scanlab/syncscan`); then report what was read, how
 * fast, what the page cache held before and after (fincore), and what the
 * block device did (/proc/diskstats). Node-only.
 */

/** The npm name of this package. */
export const PACKAGE_NAME = "@scanlab/file-scan";

// The device truth a scan reports is @scanlab/host's (block-device.ts); its result types are named here too.
export type { DeviceDelta, DeviceReport, KernelPaths } from "@scanlab/host";
export { ADVICE_DISTANCE, ADVICE_ROUNDS, type AdviceCost, measureAdviceCall } from "./advice-cost.js";
export {
  type BlockWork,
  type BlockWorkModule,
  blockChecksum,
  blockChecksumWords,
  countNonZeroBytes,
  countNonZeroBytesWords,
  FNV_OFFSET_BASIS_32,
  FNV_PRIME_32,
  sumBlockChecksums,
} from "./block-work.js";
export type { CacheReport } from "./cache-report.js";
export { type CoverCheck, type CoverMethod, MAX_COVER_COUNTER_BLOCKS } from "./cover-check.js";
export { FileScanError, type FileScanErrorCode } from "./errors.js";
export {
  type CacheState,
  COLD_MAX_RESIDENT_FRACTION,
  classifyCache,
  type EvictionReport,
  type Residency,
  WARM_MIN_RESIDENT_FRACTION,
} from "./page-cache.js";
export type { ReadPattern } from "./read-plan.js";
export {
  classifyByDeviceReads,
  type ResidencyVisibility,
  residencyVisibility,
} from "./residency-visibility.js";
export { scanFile } from "./scan-file.js";
export {
  DEFAULT_BLOCK_BYTES,
  DEFAULT_PROGRESS_INTERVAL_MS,
  MAX_BLOCK_BYTES,
  MAX_IO_COMBINE_LIMIT,
  MAX_WORKERS,
  READ_PATTERNS,
  type ReadMode,
  type ScanOptions,
  type ScanProgress,
  type SyncScanOption,
} from "./scan-options.js";
export {
  MAX_SCAN_BLOCKS,
  RELSEG_BLOCKS,
  type ResolveTargetOptions,
  resolveTarget,
  type ScanTarget,
  type Segment,
} from "./target.js";
export type {
  AdviceReport,
  ClaimList,
  ReadSummary,
  RunSummary,
  ScanResult,
  WorkerResult,
  WorkResult,
} from "./verdict.js";
export {
  checkWorkerCount,
  maxScanWorkers,
  SCAN_WORKERS_MEMORY_BYTES,
  WORKER_THREAD_BYTES,
  WORKERS_PER_CORE,
} from "./worker-limit.js";
