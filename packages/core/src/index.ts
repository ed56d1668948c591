/**
 * `@scanlab/core`: the small shared leaf every scanlab package builds on.
 * Browser-safe and without dependencies.
 *
 * @packageDocumentation
 */
export { BLCKSZ, InvalidBlockNumber, MaxBlockNumber, RELSEG_SIZE } from "./block-layout.js";
export {
  BULKREAD_RING_BASE_BUFFERS,
  type BulkReadRingInput,
  bulkReadRingBuffers,
  largeScanThresholdBlocks,
} from "./buffer-strategy.js";
export { ioConcurrencyProblem, MAX_IO_CONCURRENCY } from "./io-concurrency.js";
export {
  formatSettingSize,
  type ParseSizeOptions,
  parseDuration,
  parseFioSize,
  parseSettingSize,
  parseSize,
  type Quantity,
  rint,
} from "./quantities.js";
export { type ReadPattern, readOrder } from "./read-order.js";
export { linuxInitRaSize, linuxNextRaSize } from "./readahead-window.js";
export {
  errorClause,
  ScanlabError,
  type ScanlabErrorKind,
  type ScanlabErrorOptions,
} from "./scanlab-error.js";
export { mulberry32, type SeededRandom, scrambleSeed32, sfc32, xorshift32 } from "./seeded-random.js";
export {
  BYTES_PER_MIB,
  mibPerS,
  mibPerSFromBytesPerSecond,
  mibPerSFromBytesPerUs,
  mibPerSFromMBPerS,
  THROUGHPUT_UNIT,
} from "./throughput.js";
