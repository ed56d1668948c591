/**
 * `@scanlab/host`: Node-only access to the real host a scanlab command runs
 * on. Every file a user names (scenario files, device profiles, traces,
 * per-block work modules, fio JSON) is read through one guarded reader that
 * refuses devices, FIFOs, sockets, directories and files above a documented
 * size limit before reading a byte of them.
 *
 * @packageDocumentation
 */
export { InputFileError, type InputFileErrorCode } from "./errors.js";
export { evictFromPageCache, type PageCacheEviction } from "./fadvise-eviction.js";
export { measureResidency, type Residency, residencyVisible } from "./fincore-residency.js";
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
