/**
 * Allocation policies: the five ways PostgreSQL (and two patches on the way)
 * decided how many blocks a parallel seq scan participant takes at a time.
 *
 * The story, in the order it happened (apps/docs/src/reference/parallel-block-allocation.md,
 * Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com) and Rowley's 2017 72-process benchmark (postgr.es/m/CAKJS1f9tgsPhqBcoPjv9_KUPZvTLCZ4jy=B=bhqgaKn7cYzm-w@mail.gmail.com), apps/docs/src/reference/experiments.md):
 *
 * - **pg96** (9.6 and 10, ee7ca559fc): one block per call, under the scan's
 *   spinlock, from a "current block" cursor `phs_cblock` that starts at the
 *   start block, wraps from nblocks-1 to 0, and becomes invalid when it comes
 *   back to the start block.
 * - **batch** (May 2017, David Rowley's first patch, postgr.es/m/CAKJS1f9tgsPhqBcoPjv9_KUPZvTLCZ4jy=B=bhqgaKn7cYzm-w@mail.gmail.com, message
 *   CAKJS1f-XhfQ2-=85wgYo5b3WtEs=ys=2Rsq=NuvnmaV4ZsM1XQ): still the spinlock,
 *   but "instead of allocating 1 block at a time, the batching patch allocated
 *   a range of 10 blocks for the worker to process". It was never committed;
 *   its exact code was not posted, and its author says it "still needed
 *   a bit of work around reporting sync-scan locations". We therefore model it
 *   as a counter under the lock (one lock per claim of n counter values) with
 *   the PG11 end-of-scan rule, which is what the atomics patch that replaced
 *   it settled on. T4 measured n = 10 (`BATCH_2017_BLOCKS_PER_CLAIM`).
 * - **pg11** (11 to 13, 3cda10f41b): the cursor becomes a 64-bit counter of
 *   blocks handed out, advanced by an atomic fetch-and-add of 1; the block is
 *   (counter + start) mod nblocks. No lock per block any more.
 * - **munro2020** (May 2020, Thomas Munro's "quick and dirty" patch, postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com):
 *   "allocate ranges of up 64 blocks at a time, ramping up incrementally, and
 *   ramping down at the end". The patch text was not posted (and
 *   56788d2156's message remembers it as "a fixed 64-block chunk with a simple
 *   ramp-down"), so the exact ramp is our choice, documented in
 *   {@link munroClaimBlocks}.
 * - **pg14** (14 and later, 56788d2156): each participant claims chunks of a
 *   size computed from the relation size (the smallest power of two giving at
 *   most ~2048 chunks, capped at 8192 blocks) with one atomic fetch-and-add
 *   per chunk, and halves its own chunk size near the end of the relation.
 *   The three constants are options here so the 2020 cap sweep (T2: 256..8192)
 *   and the uncapped variant (T3: 65536 blocks for 800 GB) can be simulated.
 *   The chunk rules themselves are in pg14-chunks.ts.
 */
import { InvalidBlockNumber, MaxBlockNumber } from "@scanlab/core";
import { AllocatorError } from "./errors.js";
import { PG14_MAX_CHUNK_BLOCKS, PG14_NCHUNKS, PG14_RAMPDOWN_CHUNKS } from "./pg14-chunks.js";

/** PostgreSQL's InvalidBlockNumber (src/include/storage/block.h): "no block", returned when a participant is done. */
export const INVALID_BLOCK: number = InvalidBlockNumber;

/**
 * Largest relation size in blocks: block numbers are uint32 and 0xFFFFFFFF is
 * InvalidBlockNumber, so the last valid block is 0xFFFFFFFE (MaxBlockNumber)
 * and a relation holds at most 2^32 - 1 blocks (32 TiB at 8 kB).
 */
export const MAX_NBLOCKS: number = MaxBlockNumber + 1;

/** Blocks per claim in David Rowley's 2017 batching patch: "a range of 10 blocks" (postgr.es/m/CAKJS1f9tgsPhqBcoPjv9_KUPZvTLCZ4jy=B=bhqgaKn7cYzm-w@mail.gmail.com; apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes). */
export const BATCH_2017_BLOCKS_PER_CLAIM = 10;
/** Largest range in Thomas Munro's 2020 prototype: "ranges of up 64 blocks at a time" (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com; apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks). */
export const MUNRO2020_MAX_CHUNK_BLOCKS = 64;
/**
 * Ramp-down divisor of our munro2020 model: near the end a claim is at most
 * (blocks left after the participant's position) / 64, rounded down to a power
 * of two. 64 is the value the same thread later committed as
 * PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS (56788d2156), i.e. each size lasts about 64
 * claims; the 2020 patch's own value was not posted.
 */
export const MUNRO2020_RAMPDOWN_CHUNKS = 64;

/**
 * Which allocator to run. `kind` names the PostgreSQL version range (or the
 * patch) whose behaviour is reproduced:
 *
 * - `{ kind: "pg96" }`: 9.6-10, spinlock and `phs_cblock`, one block per call.
 * - `{ kind: "pg11" }`: 11-13, atomic fetch-add of a 64-bit counter, one block per call.
 * - `{ kind: "batch", blocksPerClaim }`: the 2017 batching patch (10 in apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes), one lock per claim.
 * - `{ kind: "munro2020", maxChunkBlocks? }`: the 2020 prototype, ramp up and down, at most 64 blocks.
 * - `{ kind: "pg14", nchunks?, rampdownChunks?, maxChunkBlocks? }`: 14 and later; defaults 2048 / 64 / 8192,
 *   `maxChunkBlocks: null` means uncapped.
 *
 * @example
 * ```ts
 * import type { AllocatorPolicy } from "@scanlab/block-allocator";
 * const sweep: AllocatorPolicy[] = [256, 512, 1024, 2048, 4096, 8192].map((cap) => ({ kind: "pg14", maxChunkBlocks: cap }));
 * ```
 */
export type AllocatorPolicy =
  | {
      /** PostgreSQL 9.6-10: one block per call under the spinlock (ee7ca559fc). */
      kind: "pg96";
    }
  | {
      /** PostgreSQL 11-13: one block per atomic fetch-add (3cda10f41b). */
      kind: "pg11";
    }
  | {
      /** The 2017 batching patch (Rowley's 2017 72-process benchmark): a claim of blocksPerClaim counter values under the spinlock. */
      kind: "batch";
      /** Blocks per claim, a positive integer (10 in apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes). */
      blocksPerClaim: number;
    }
  | {
      /** Thomas Munro's 2020 prototype (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com): ranges ramping up to 64 blocks and down at the end. */
      kind: "munro2020";
      /** Largest range in blocks, default 64. */
      maxChunkBlocks?: number;
    }
  | {
      /** PostgreSQL 14 and later: chunked allocation (56788d2156). */
      kind: "pg14";
      /** PARALLEL_SEQSCAN_NCHUNKS, default 2048. */
      nchunks?: number;
      /** PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS, default 64. */
      rampdownChunks?: number;
      /** PARALLEL_SEQSCAN_MAX_CHUNK_SIZE in blocks, default 8192; null = uncapped. */
      maxChunkBlocks?: number | null;
    };

/**
 * A policy with every option filled in (what {@link resolvePolicy} returns and
 * `ParallelScan.policy` reports).
 */
export type ResolvedPolicy =
  | {
      /** PostgreSQL 9.6-10. */
      kind: "pg96";
    }
  | {
      /** PostgreSQL 11-13. */
      kind: "pg11";
    }
  | {
      /** The 2017 batching patch. */
      kind: "batch";
      /** Blocks per claim. */
      blocksPerClaim: number;
    }
  | {
      /** The 2020 prototype. */
      kind: "munro2020";
      /** Largest range in blocks. */
      maxChunkBlocks: number;
    }
  | {
      /** PostgreSQL 14 and later. */
      kind: "pg14";
      /** PARALLEL_SEQSCAN_NCHUNKS. */
      nchunks: number;
      /** PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS. */
      rampdownChunks: number;
      /** PARALLEL_SEQSCAN_MAX_CHUNK_SIZE in blocks, or null for uncapped. */
      maxChunkBlocks: number | null;
    };

/** @internal Largest chunk / claim size accepted: chunk counters are uint32 in PostgreSQL (phsw_chunk_size). */
export const MAX_CLAIM_BLOCKS = 0x80000000;

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  return typeof value;
}

function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_OPTION",
      `${name} must be an integer from ${min} to ${max} (got ${describe(value)}).`,
    );
  }
  return value;
}

/**
 * Checks that `nblocks` is a relation size PostgreSQL can have: an integer
 * from 0 to 2^32 - 1.
 *
 * @throws {@link AllocatorError} `ALLOCATOR_BAD_NBLOCKS` otherwise.
 */
export function checkNblocks(nblocks: unknown): number {
  if (typeof nblocks !== "number" || !Number.isInteger(nblocks) || nblocks < 0 || nblocks > MAX_NBLOCKS) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_NBLOCKS",
      `nblocks must be an integer from 0 to ${MAX_NBLOCKS} (got ${describe(nblocks)}).`,
    );
  }
  return nblocks;
}

/**
 * Fills in a policy's defaults and checks its options.
 *
 * @throws {@link AllocatorError} `ALLOCATOR_BAD_POLICY` for an unknown kind,
 *   `ALLOCATOR_BAD_OPTION` for an option out of range.
 * @example
 * ```ts
 * import { resolvePolicy } from "@scanlab/block-allocator";
 * resolvePolicy({ kind: "pg14" }); // { kind: "pg14", nchunks: 2048, rampdownChunks: 64, maxChunkBlocks: 8192 }
 * ```
 */
export function resolvePolicy(policy: AllocatorPolicy): ResolvedPolicy {
  const p = policy as { kind?: unknown } & Record<string, unknown>;
  if (typeof p !== "object" || p === null) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_POLICY",
      `the allocator policy must be an object (got ${describe(p)}).`,
    );
  }
  switch (p.kind) {
    case "pg96":
      return { kind: "pg96" };
    case "pg11":
      return { kind: "pg11" };
    case "batch":
      return {
        kind: "batch",
        blocksPerClaim: checkInteger("batch blocksPerClaim", p.blocksPerClaim, 1, MAX_CLAIM_BLOCKS),
      };
    case "munro2020":
      return {
        kind: "munro2020",
        maxChunkBlocks:
          p.maxChunkBlocks === undefined
            ? MUNRO2020_MAX_CHUNK_BLOCKS
            : checkInteger("munro2020 maxChunkBlocks", p.maxChunkBlocks, 1, MAX_CLAIM_BLOCKS),
      };
    case "pg14":
      return {
        kind: "pg14",
        nchunks:
          p.nchunks === undefined ? PG14_NCHUNKS : checkInteger("pg14 nchunks", p.nchunks, 1, MAX_NBLOCKS),
        rampdownChunks:
          p.rampdownChunks === undefined
            ? PG14_RAMPDOWN_CHUNKS
            : checkInteger("pg14 rampdownChunks", p.rampdownChunks, 0, MAX_NBLOCKS),
        maxChunkBlocks:
          p.maxChunkBlocks === null
            ? null
            : p.maxChunkBlocks === undefined
              ? PG14_MAX_CHUNK_BLOCKS
              : checkInteger("pg14 maxChunkBlocks", p.maxChunkBlocks, 1, MAX_CLAIM_BLOCKS),
      };
    default:
      throw new AllocatorError(
        "ALLOCATOR_BAD_POLICY",
        `the allocator policy kind must be "pg96", "pg11", "batch", "munro2020" or "pg14" (got ${describe(p.kind)}).`,
      );
  }
}

/**
 * pg_nextpower2_32 (src/include/port/pg_bitutils.h): the smallest power of two
 * >= value, for 1 <= value <= 2^32 - 1 (a power of two is returned unchanged).
 * Returns 2^32 for values above 2^31, where PostgreSQL's uint32 would overflow.
 */
export function nextPowerOfTwo(value: number): number {
  if (value <= 1) return 1;
  return 2 ** (32 - Math.clz32(value - 1));
}

/**
 * Our exact ramp for Thomas Munro's 2020 prototype (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com gives only "ranges
 * of up 64 blocks at a time, ramping up incrementally, and ramping down at the
 * end"). A participant's k-th claim (k = 0, 1, ...) takes
 *
 *     min(maxChunkBlocks, 2^k, floorPow2(max(1, (nblocks - position) div 64)))
 *
 * where position is its last counter value (0 before its first claim), as in PG14.
 *
 * Why: "incrementally" is read as doubling (1, 2, 4, ... 64, reached at the 7th
 * claim after 63 blocks), the growth of the kernel read-ahead windows the patch
 * was trying to please, so each worker starts small and the first blocks of a
 * small table are spread out as before. The ramp-down keeps each size for about
 * 64 claims like the committed PG14 rule (the same divisor,
 * {@link MUNRO2020_RAMPDOWN_CHUNKS}), but is computed from the blocks left rather
 * than by one halving per claim, the "simple ramp-down" that 56788d2156's
 * message attributes to the first patch. The result rises then falls and never
 * exceeds 64 blocks (512 kB), the range T1 measured.
 *
 * @param claimIndex how many claims this participant made before (0 for its first).
 * @param position this participant's last counter value (0 before its first claim).
 * @param nblocks relation size in blocks.
 * @param maxChunkBlocks cap, default 64.
 */
export function munroClaimBlocks(
  claimIndex: number,
  position: number,
  nblocks: number,
  maxChunkBlocks: number = MUNRO2020_MAX_CHUNK_BLOCKS,
): number {
  const rampUp = claimIndex >= 31 ? MAX_CLAIM_BLOCKS : 2 ** claimIndex;
  const left = Math.floor((nblocks - position) / MUNRO2020_RAMPDOWN_CHUNKS);
  const rampDown = left <= 1 ? 1 : 2 ** (31 - Math.clz32(Math.min(left, MAX_CLAIM_BLOCKS)));
  return Math.min(maxChunkBlocks, rampUp, rampDown);
}
