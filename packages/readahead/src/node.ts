/**
 * Node-only helpers of `@scanlab/readahead`: hold the `linux` model against
 * the real kernel of the machine (the CLI's `calibrate` uses them).
 *
 * @packageDocumentation
 */
export { type RealPatternRun, runRealPattern } from "./kernel/access-patterns.js";
export {
  type BlockDevice,
  type DiskReadCounters,
  readDiskstats,
  resolveBlockDevice,
} from "./kernel/block-device.js";
export {
  largeFoliosFor,
  linuxLineOfRelease,
  type MachineParameters,
  modelPattern,
  modelRamp,
} from "./kernel/compare.js";
export {
  type Interference,
  judgeInterference,
  type RunCounters,
  UNDISTURBED_TOLERANCE,
} from "./kernel/interference.js";
export {
  checkKernelMeasurementPossible,
  compareMeasurement,
  formatKernelMeasurement,
  KERNEL_PATTERNS,
  type KernelMeasurement,
  type KernelMeasurementOptions,
  type KernelPattern,
  type LargestRequest,
  measureKernelReadahead,
  type PatternComparison,
  type RampComparison,
} from "./kernel/kernel-measurement.js";
export { evictFile, residentPages, sleepMs } from "./kernel/page-cache-tools.js";
export { measureWakeupLatency, quantiles } from "./kernel/wakeup-latency.js";
