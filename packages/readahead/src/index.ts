/**
 * What the OS reads when a process reads a page: one page cache for a whole
 * simulated machine, and readahead models that decide, read by read, which
 * device reads happen: Linux (≤6.9 and ≥6.10 rules), FreeBSD UFS (≤12 and
 * ≥13), the Windows Cache Manager (low confidence) and direct I/O. The
 * small scan harness that reproduces the prediction tables of
 * apps/docs/src/reference/readahead-predictions.md#simulation-assumptions is on
 * `@scanlab/readahead/harness`, the simulator's renumbering hook on
 * `@scanlab/readahead/sim`, and the Node-only tools that hold the Linux model
 * against the real kernel on `@scanlab/readahead/node`.
 *
 * @packageDocumentation
 */
export {
  createReadaheadModel,
  type DirectIoModelSpec,
  type FreeBsdModelSpec,
  type LinuxModelSpec,
  OS_PRESETS,
  type OsPresetName,
  type ReadaheadModelSpec,
  type WindowsModelSpec,
} from "./create-model.js";
export { DirectIo, type DirectIoOptions, directIo } from "./direct-io.js";
export { ReadaheadError, type ReadaheadErrorCode } from "./errors.js";
export {
  FreeBsdOpenFile,
  type FreeBsdOpenOptions,
  type FreeBsdUfsOptions,
  FreeBsdUfsReadahead,
  type FreeBsdVersion,
  freebsdUfsReadahead,
} from "./freebsd-ufs.js";
export {
  type LinuxDecision,
  LinuxOpenFile,
  type LinuxOptions,
  LinuxReadahead,
  type LinuxReadLoop,
  type LinuxVersion,
  linuxReadahead,
} from "./linux.js";
export {
  type DeviceRead,
  type FadviseAdvice,
  type IoTally,
  type ModelConfidence,
  type OpenFile,
  type OpenOptions,
  PAGE_BYTES,
  type PendingRead,
  type QuietRun,
  type ReadaheadModel,
  type ReadOutcome,
  type SubmitIo,
} from "./model.js";
export {
  type CachedRun,
  type FolioInfo,
  PageCache,
  type PageCacheOptions,
  type PageCacheStats,
  type PageInfo,
  type PageState,
  type RunInfo,
} from "./page-cache.js";
export {
  WindowsOpenFile,
  type WindowsOpenOptions,
  type WindowsOptions,
  WindowsReadahead,
  windowsReadahead,
} from "./windows.js";
