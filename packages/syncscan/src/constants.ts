/**
 * The numbers PostgreSQL's synchronized scans are built from. Every value is
 * cited from apps/docs/src/reference/synchronized-scans.md#syncscan-constants (src/backend/access/common/
 * syncscan.c, src/backend/access/heap/syncscan.c before PG14), where the text
 * notes they are identical in the 8.3 commit a04a423599 and in PG19.
 */

import { BLCKSZ, InvalidBlockNumber, MaxBlockNumber } from "@scanlab/core";

/** Bytes per PostgreSQL block: BLCKSZ of the default build (`@scanlab/core`). */
export const BLCKSZ_BYTES: number = BLCKSZ;

/**
 * SYNC_SCAN_NELEM: slots in the shared LRU list of scan locations
 * (apps/docs/src/reference/synchronized-scans.md#syncscan-constants: 20; "the code needs > 1").
 */
export const SYNC_SCAN_NELEM = 20;

/**
 * SYNC_SCAN_REPORT_INTERVAL in bytes: 128 kB (apps/docs/src/reference/synchronized-scans.md#syncscan-constants). Kept below the
 * 256 kB BAS_BULKREAD ring so a scan that joins finds a "cache trail" (2.7).
 */
export const SYNC_SCAN_REPORT_INTERVAL_BYTES = 128 * 1024;

/**
 * SYNC_SCAN_REPORT_INTERVAL in blocks: 128 kB / BLCKSZ = 16 (apps/docs/src/reference/synchronized-scans.md#syncscan-constants).
 * Locations are stored only for blocks that are multiples of this.
 */
export const SYNC_SCAN_REPORT_INTERVAL_BLOCKS = SYNC_SCAN_REPORT_INTERVAL_BYTES / BLCKSZ_BYTES;

/**
 * Divisor of the eligibility rule: a relation takes part in synchronized scans
 * (and gets the bulk-read ring) only when nblocks > NBuffers / 4, integer
 * division (initscan in src/backend/access/heap/heapam.c; apps/docs/src/reference/synchronized-scans.md#syncscan-constants and apps/docs/src/reference/synchronized-scans.md#serial-scans).
 */
export const SYNC_SCAN_NBUFFERS_DIVISOR = 4;

/** InvalidBlockNumber (0xFFFFFFFF, `@scanlab/core`): block numbers are unsigned 32-bit. */
export const INVALID_BLOCK_NUMBER: number = InvalidBlockNumber;

/** MaxBlockNumber (0xFFFFFFFE, `@scanlab/core`), the largest valid block number; a relation has at most MaxBlockNumber + 1 blocks. */
export const MAX_BLOCK_NUMBER: number = MaxBlockNumber;

/**
 * scanlab's own upper bound on `nelem` (PostgreSQL's is a compile-time 20):
 * large enough for any experiment, small enough that a shared tracker's buffer
 * stays a few megabytes.
 */
export const MAX_SYNC_SCAN_NELEM = 1 << 16;
