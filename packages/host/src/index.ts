/**
 * `@scanlab/host`: Node-only access to the real host a scanlab command runs
 * on. Every file a user names (scenario files, device profiles, traces,
 * per-block work modules, fio JSON) is read through one guarded reader that
 * refuses devices, FIFOs, sockets, directories and files above a documented
 * size limit before reading a byte of them. Beside it, the host measurements
 * every package shares: which block device holds a file, its request-queue
 * limits and its /proc/diskstats counters; page-cache residency and
 * eviction, and whether freed memory goes back to the hypervisor; this
 * process's read bytes. And the parsers of what the host's tracing tools
 * print: strace's system calls ({@link parseStraceOutput},
 * {@link parseStraceLine}) and blkparse's block requests
 * ({@link parseBlkparse}).
 *
 * @packageDocumentation
 */

export { type BlkparseParse, looksLikeBlkparse, parseBlkparse } from "./blkparse.js";
export {
  type BlockDeviceName,
  type BlockQueueLimits,
  blockQueueLimits,
  type DeviceDelta,
  type DeviceKind,
  type DeviceNumbers,
  type DeviceProbe,
  type DeviceReport,
  type DeviceResolution,
  DISKSTATS_CAVEAT,
  DISKSTATS_SECTOR_BYTES,
  type DiskReadCounters,
  deviceNumbers,
  type KernelPaths,
  mountedFileSystem,
  probeDevice,
  readDiskstats,
  resolveBlockDevice,
} from "./block-device.js";
export { InputFileError, type InputFileErrorCode } from "./errors.js";
export { evictFromPageCache, type PageCacheEviction } from "./fadvise-eviction.js";
export { measureResidency, type Residency, residencyVisible } from "./fincore-residency.js";
export {
  type FreePageReporting,
  freePageReporting,
  REPORTING_SETTLE_MS,
  type ReportingPaths,
  settleFreedMemory,
} from "./free-page-reporting.js";
export {
  type CheckedInputFile,
  checkInputFile,
  type InputFileOptions,
  readInputFile,
  readInputJson,
  readInputText,
} from "./guarded-read.js";
export { INPUT_LIMITS, type InputKind, type InputLimit } from "./input-limits.js";
export { processReadBytes } from "./proc-self-io.js";
export {
  parseStraceLine,
  parseStraceOutput,
  type StraceCall,
  type StraceLine,
  type StraceLineBase,
  type StraceNote,
  type StraceOutputOptions,
  type StraceResumed,
  type StraceTimestamp,
  type StraceUnfinished,
} from "./strace.js";
export type { TraceRead } from "./trace-read.js";
