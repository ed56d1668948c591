/**
 * Which scans synchronize.
 *
 * When PostgreSQL starts a sequential scan (heapam.c initscan, apps/docs/src/reference/synchronized-scans.md#serial-scans
 * step 2) it looks at the relation's size: only a relation that is not
 * temporary and has more than NBuffers / 4 blocks (integer division; NBuffers
 * is shared_buffers in blocks) gets the bulk-read ring and may synchronize. A
 * smaller table is likely to stay in shared buffers anyway, so there is
 * nothing to gain. Then the GUC synchronize_seqscans (default on, 8.3 commit
 * 47df4f6688; pg_dump turns it off to keep physical row order) decides: off
 * means the scan starts at block 0 and never reports (2.4 step 4).
 *
 * Example from apps/docs/src/reference/synchronized-scans.md#syncscan-constants: shared_buffers = 128 MB -> NBuffers = 16384
 * -> threshold 4096 blocks -> only tables over 32 MB synchronize.
 */
import { largeScanThresholdBlocks } from "@scanlab/core";
import { BLCKSZ_BYTES } from "./constants.js";
import { SyncScanError } from "./errors.js";
import { checkNblocks, checkNbuffers } from "./validate.js";

/** The facts initscan looks at. */
export interface SyncScanEligibilityInput {
  /** Relation size in blocks when the scan starts. */
  nblocks: number;
  /** NBuffers: shared_buffers in blocks (see {@link nbuffersForSharedBuffers}). */
  nbuffers: number;
  /** A temporary table (never synchronizes). Default false. */
  temp?: boolean;
  /** The GUC synchronize_seqscans. Default true (PostgreSQL's default). */
  synchronizeSeqscans?: boolean;
}

/**
 * The size a relation must exceed to synchronize: NBuffers / 4, integer division.
 *
 * @example
 * ```ts
 * import { syncScanThresholdBlocks } from "@scanlab/syncscan";
 * syncScanThresholdBlocks(16384); // 4096 (shared_buffers = 128 MB)
 * ```
 */
export function syncScanThresholdBlocks(nbuffers: number): number {
  checkNbuffers(nbuffers);
  return largeScanThresholdBlocks(nbuffers);
}

/**
 * Whether a sequential scan synchronizes (starts at the tracker's location and
 * reports): not temporary, nblocks > NBuffers / 4, and synchronize_seqscans on.
 *
 * @example
 * ```ts
 * import { syncScanEligible } from "@scanlab/syncscan";
 * syncScanEligible({ nblocks: 4097, nbuffers: 16384 }); // true
 * syncScanEligible({ nblocks: 4096, nbuffers: 16384 }); // false: not over the threshold
 * syncScanEligible({ nblocks: 1e6, nbuffers: 16384, synchronizeSeqscans: false }); // false
 * ```
 */
export function syncScanEligible(input: SyncScanEligibilityInput): boolean {
  checkNblocks(input.nblocks);
  const threshold = syncScanThresholdBlocks(input.nbuffers);
  return input.temp !== true && input.synchronizeSeqscans !== false && input.nblocks > threshold;
}

/**
 * NBuffers for a shared_buffers setting given in bytes: bytes / block size,
 * rounded down (PostgreSQL stores shared_buffers in blocks).
 *
 * @example
 * ```ts
 * import { nbuffersForSharedBuffers } from "@scanlab/syncscan";
 * nbuffersForSharedBuffers(128 * 1024 * 1024); // 16384
 * ```
 */
export function nbuffersForSharedBuffers(
  sharedBuffersBytes: number,
  blockBytes: number = BLCKSZ_BYTES,
): number {
  if (!Number.isSafeInteger(blockBytes) || blockBytes < 1) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_NBUFFERS",
      `blockBytes must be a positive integer, got ${String(blockBytes)}.`,
    );
  }
  if (!Number.isSafeInteger(sharedBuffersBytes) || sharedBuffersBytes < blockBytes) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_NBUFFERS",
      `sharedBuffersBytes must be an integer of at least one block (${blockBytes} bytes), got ${String(sharedBuffersBytes)}.`,
    );
  }
  return Math.floor(sharedBuffersBytes / blockBytes);
}
