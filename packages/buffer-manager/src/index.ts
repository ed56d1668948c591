/**
 * @packageDocumentation
 * PostgreSQL's shared buffers as a read-only scan sees them (bufmgr.c,
 * freelist.c, buf_internals.h): NBuffers descriptors, the clock sweep with
 * usage counts, the BAS_BULKREAD ring and its size per version, buffers that
 * are valid only once their read completes, and residency questions asked
 * of a whole run of blocks. The caller owns time and I/O. Browser-safe.
 */

export { BufferManagerError, type BufferManagerErrorCode } from "./errors.js";
export { BufferRing, type BulkReadRingSettings, bulkReadRingSize, PG18_EXTRA_PROCS } from "./ring.js";
export { BM_MAX_USAGE_COUNT, SharedBuffers, type SharedBuffersOptions } from "./shared-buffers.js";
