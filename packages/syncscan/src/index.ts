/**
 * @packageDocumentation
 * Where a new scan of a table should start: PostgreSQL's synchronized-scan
 * location tracker (20-slot LRU, 16-block reports, the NBuffers / 4 rule), the
 * serial and parallel scan cycles that feed it, in-process and
 * SharedArrayBuffer-backed. Browser-safe: no Node built-ins.
 */

/** The npm name of this package. */
export const PACKAGE_NAME = "@scanlab/syncscan";

export {
  BLCKSZ_BYTES,
  INVALID_BLOCK_NUMBER,
  MAX_BLOCK_NUMBER,
  MAX_SYNC_SCAN_NELEM,
  SYNC_SCAN_NBUFFERS_DIVISOR,
  SYNC_SCAN_NELEM,
  SYNC_SCAN_REPORT_INTERVAL_BLOCKS,
  SYNC_SCAN_REPORT_INTERVAL_BYTES,
} from "./constants.js";
export {
  nbuffersForSharedBuffers,
  type SyncScanEligibilityInput,
  syncScanEligible,
  syncScanThresholdBlocks,
} from "./eligibility.js";
export { SyncScanError, type SyncScanErrorCode } from "./errors.js";
export {
  type FileIdentity,
  fileIdentityKey,
  nameKey,
  type RelFileLocator,
  relFileLocatorKey,
} from "./keys.js";
export { type LookaheadScan, lookaheadReportedBlock } from "./lookahead.js";
export {
  type BeginParallelSyncScanOptions,
  beginParallelSyncScan,
  type ParallelSyncScan,
  type ParallelSyncScanHooks,
  parallelSyncScanHooks,
} from "./parallel-scan.js";
export { lastReportInRun } from "./report-run.js";
export {
  advanceSerialScan,
  type BeginSerialScanOptions,
  type BlockRange,
  beginSerialScan,
  continueSerialScan,
  createSerialScan,
  type ReportRun,
  type ScanDirection,
  type SerialScan,
  type SerialScanOptions,
  type SerialScanStep,
  serialScanBlock,
  serialScanDone,
  serialScanStartReport,
} from "./serial-scan.js";
export { SharedSyncScanTracker, sharedSyncScanBytes } from "./shared-tracker.js";
export {
  InProcessSyncScanTracker,
  type SyncScanEntry,
  type SyncScanLockRelease,
  type SyncScanTracker,
  SyncScanTrackerBase,
  type SyncScanTrackerOptions,
} from "./tracker.js";
