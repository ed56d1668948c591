/**
 * Node-only helpers of `@scanlab/device-profiles`: measuring the device that
 * holds a file (`calibrate`), emptying a file from the page cache, reading
 * and writing profile files, and importing fio JSON from a file (both reads
 * through @scanlab/host's guarded reader). The main entry stays browser-safe.
 *
 * @packageDocumentation
 */
export {
  type CalibrateOptions,
  CPU_READ_SIZES,
  CPU_REGION_BYTES,
  type CpuCostFit,
  calibrate,
  fioVersion,
  fitCpuCosts,
  measureCpuCosts,
  medianPoints,
  SEQUENTIAL_DEEP_QD,
  SEQUENTIAL_SIZES,
} from "./calibrate.js";
export { type EvictionResult, evictAndVerify } from "./page-cache-eviction.js";
export {
  BUSY_US_PER_BLOCK,
  FILL_REGION_BYTES,
  FILL_ROUNDS,
  type FillCost,
  type FillRound,
  measureFillCost,
} from "./page-cache-fill.js";
export {
  importFioJsonFile,
  type ProfileFileOptions,
  readDeviceProfileFile,
  writeDeviceProfileFile,
} from "./profile-file.js";
export { measureWakeUp, WAKE_UP_IDLE_MS, WAKE_UP_ROUND_TRIPS, type WakeUp } from "./wake-up.js";
