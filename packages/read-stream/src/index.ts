/**
 * @packageDocumentation
 * PostgreSQL's read stream (src/backend/storage/aio/read_stream.c) in its
 * PG17, PG18 and PG19 forms, generic over a block source: the look-ahead that
 * PG17+ sequential scans and PG18+ bitmap heap scans read through. With it,
 * the limits a stream is created with (io_combine_limit, the backend's pin
 * allowance, the BAS_BULKREAD ring, max_pinned_buffers), and the backend's pin
 * entries that PG18's per-read pin check estimates from. The stream is a pure
 * state machine: the caller owns time, buffers, the page cache and the device.
 */

export { ReadStreamError, type ReadStreamErrorCode } from "./errors.js";
export { PrivateRefCount } from "./private-refcount.js";
export {
  DEFAULT_IO_COMBINE_LIMIT,
  type IoMethod,
  ReadStream,
  type ReadStreamBlockSource,
  type ReadStreamBuffer,
  type ReadStreamConfig,
  type ReadStreamEnv,
  type ReadStreamExplain,
  type ReadStreamFlags,
  type ReadStreamIo,
  type ReadStreamOptions,
  type ReadStreamStats,
  type ReadStreamStep,
  type ReadStreamWait,
  readStreamConfig,
  segmentPieces,
} from "./read-stream.js";
export {
  BULKREAD_RING_BASE_KB,
  type BufferPoolSize,
  type BulkReadRingOptions,
  backendPinLimit,
  bulkReadRingBuffers,
  DEFAULT_NBUFFERS,
  DEFAULT_PROCS_PG17,
  DEFAULT_PROCS_PG18,
  type MaxPinnedOptions,
  maxIoCombineLimit,
  maxPinnedBuffers,
  READ_STREAM_VERSIONS,
  REFCOUNT_ARRAY_ENTRIES,
  type ReadStreamVersion,
} from "./read-stream-limits.js";
