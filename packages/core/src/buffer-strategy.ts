/**
 * The two buffer-manager formulas a model of a sequential scan needs: when a
 * scan counts as large, and how big its BAS_BULKREAD ring is.
 *
 * Problem: the simulator and the bitmap-prefetch/read-stream model both size
 * the bulk-read ring, and the simulator and the syncscan package both apply
 * the "large table" threshold; two copies of a formula drift.
 *
 * Insight: both are pure functions of a handful of settings, so one copy
 * suffices for both sides.
 *
 * Design choices:
 * - Large scan: initscan() (src/backend/access/heap/heapam.c) gives a heap
 *   scan the BAS_BULKREAD strategy and lets it synchronize only when the
 *   relation is not local and `nblocks > NBuffers / 4` (integer division).
 * - Ring size: GetAccessStrategy(BAS_BULKREAD)
 *   (src/backend/storage/buffer/freelist.c). Up to PG17 the ring is 256 kB =
 *   32 buffers. PG18 (commit 15f0cb26b5) adds io_combine_limit x
 *   effective_io_concurrency buffers and caps the ring at
 *   max(256 kB, GetPinLimit() buffers). GetAccessStrategyWithSize caps every
 *   ring at NBuffers / 8.
 * - The caller passes GetPinLimit() (its pool sizing differs between
 *   callers); omitting it selects the pre-18 formula.
 */

/** The BAS_BULKREAD ring up to PG17, and PG18's minimum: 256 kB of 8 kB buffers. */
export const BULKREAD_RING_BASE_BUFFERS = 32;

/**
 * The size a relation must exceed, in blocks, for a sequential scan to use
 * the bulk-read ring and to synchronize: NBuffers / 4, integer division.
 *
 * @example
 * ```ts
 * import { largeScanThresholdBlocks } from "@scanlab/core";
 * largeScanThresholdBlocks(16384); // 4096 (shared_buffers = 128MB)
 * ```
 */
export function largeScanThresholdBlocks(nBuffers: number): number {
  return Math.floor(nBuffers / 4);
}

/** Inputs of {@link bulkReadRingBuffers}. */
export interface BulkReadRingInput {
  /** NBuffers: shared_buffers in 8 kB buffers (at least 16, the GUC's minimum). */
  readonly nBuffers: number;
  /** PG18+: GetPinLimit(), the backend's pin allowance in buffers. Omit for PostgreSQL 17 and older. */
  readonly pinLimit?: number;
  /** PG18+: io_combine_limit in blocks. */
  readonly ioCombineLimit?: number;
  /** PG18+: effective_io_concurrency. */
  readonly effectiveIoConcurrency?: number;
}

/**
 * Size of the BAS_BULKREAD ring in buffers.
 *
 * @example
 * ```ts
 * import { bulkReadRingBuffers } from "@scanlab/core";
 * bulkReadRingBuffers({ nBuffers: 16384 }); // 32 (PG17 and older)
 * bulkReadRingBuffers({ nBuffers: 16384, pinLimit: 94, ioCombineLimit: 16, effectiveIoConcurrency: 16 }); // 94
 * ```
 */
export function bulkReadRingBuffers(input: BulkReadRingInput): number {
  const cap = Math.floor(input.nBuffers / 8);
  if (input.pinLimit === undefined) return Math.min(BULKREAD_RING_BASE_BUFFERS, cap);
  const wanted =
    BULKREAD_RING_BASE_BUFFERS + (input.ioCombineLimit ?? 0) * (input.effectiveIoConcurrency ?? 0);
  return Math.min(wanted, Math.max(BULKREAD_RING_BASE_BUFFERS, input.pinLimit), cap);
}
