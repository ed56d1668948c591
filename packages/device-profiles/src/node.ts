/**
 * Node-only helpers of `@scanlab/device-profiles`: measuring the device that
 * holds a file (`calibrate`), emptying a file from the page cache, and reading
 * and writing profile files. The main entry stays browser-safe.
 *
 * @packageDocumentation
 */
export { type CalibrateOptions, calibrate, fioVersion } from "./calibrate.js";
export { type EvictionResult, evictFromPageCache, residentBytes } from "./page-cache-eviction.js";
export { readDeviceProfileFile, writeDeviceProfileFile } from "./profile-file.js";
