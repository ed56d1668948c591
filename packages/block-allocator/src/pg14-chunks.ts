/**
 * PostgreSQL 14+ chunked block allocation for parallel sequential scans
 * (src/backend/access/table/tableam.c: table_block_parallelscan_startblock_init
 * and table_block_parallelscan_nextpage, commit 56788d2156).
 *
 * The problem. Up to PG13 every participant of a parallel seq scan takes one
 * block per fetch-and-add of the shared counter. Workers then read
 * interleaved blocks of one file, so each sees a strided pattern that OS
 * readahead heuristics watching one process or one open file do not take
 * for sequential; on FreeBSD UFS a parallel scan ran slower than a serial one
 * (Munro's 2020 report,
 * postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com).
 *
 * The insight. Give each participant a contiguous chunk per claim, sized from
 * the relation so a scan has about PARALLEL_SEQSCAN_NCHUNKS chunks: large
 * enough that every participant reads sequentially for a while, small enough
 * that participants still share the table fairly. Near the end, when little is
 * left, smaller chunks stop one participant from holding the last big chunk
 * while the others are idle.
 *
 * Design choices, as PostgreSQL made them:
 * - Start-up: the chunk size is the smallest power of two at least
 *   max(nblocks div nchunks, 1), then at most PARALLEL_SEQSCAN_MAX_CHUNK_SIZE
 *   (8192 blocks = 64 MB), so huge tables do not get huge chunks. Each
 *   participant computes it for itself from the same nblocks.
 * - Claim: one atomic fetch-and-add of the chunk size on the shared 64-bit
 *   counter per chunk, no lock; blocks are (counter + start) mod nblocks.
 * - Ramp-down: before claiming, a participant whose own position is past
 *   nblocks - chunk size x PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS halves its own
 *   chunk size, at most once per claim, computed in uint32 arithmetic.
 *   Participants ramp down independently; nothing is shared but the counter.
 *
 * The three constants are options here (defaults 2048 / 64 / 8192) so that
 * the 2020 cap sweep (T2: 256..8192) and the uncapped variant (T3: 65536
 * blocks for 800 GB) can be simulated. The claim loop that calls these rules
 * for every allocator policy is in parallel-scan.ts.
 */
import { AllocatorError } from "./errors.js";
import {
  checkNblocks,
  MAX_CLAIM_BLOCKS,
  nextPowerOfTwo,
  type ResolvedPolicy,
  resolvePolicy,
} from "./policy.js";

/** PARALLEL_SEQSCAN_NCHUNKS = 2048: target number of chunks per scan (56788d2156; apps/docs/src/reference/parallel-block-allocation.md#chunk-constants). */
export const PG14_NCHUNKS = 2048;
/** PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS = 64: halve when fewer than this many chunks of the current size remain (56788d2156; apps/docs/src/reference/parallel-block-allocation.md#block-requests). */
export const PG14_RAMPDOWN_CHUNKS = 64;
/** PARALLEL_SEQSCAN_MAX_CHUNK_SIZE = 8192 blocks (64 MB at 8 kB): cap on the chunk size (56788d2156; apps/docs/src/reference/parallel-block-allocation.md#chunk-constants). */
export const PG14_MAX_CHUNK_BLOCKS = 8192;

/** The options of the `pg14` policy, as accepted by {@link pg14ChunkSize} and {@link pg14ChunkPlan}. */
export interface Pg14Options {
  /** PARALLEL_SEQSCAN_NCHUNKS, default 2048. */
  nchunks?: number;
  /** PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS, default 64. */
  rampdownChunks?: number;
  /** PARALLEL_SEQSCAN_MAX_CHUNK_SIZE in blocks, default 8192; `null` = uncapped. */
  maxChunkBlocks?: number | null;
}

/**
 * The chunk size a PG14+ participant starts with
 * (table_block_parallelscan_startblock_init, apps/docs/src/reference/parallel-block-allocation.md#start-up start-up step 2):
 * the smallest power of two >= max(nblocks div nchunks, 1), then at most the cap.
 *
 * @param nblocks relation size in blocks (phs_nblocks).
 * @param options the pg14 policy's constants (defaults 2048 / 64 / 8192).
 * @throws {@link AllocatorError} for a bad size or option, or when the uncapped
 *   chunk would exceed 2^31 blocks (only possible with `nchunks` 1).
 * @example
 * ```ts
 * import { pg14ChunkSize } from "@scanlab/block-allocator";
 * pg14ChunkSize(100_000); // 64    (apps/docs/src/reference/parallel-block-allocation.md#worked-examples: 100000 div 2048 = 48 -> 64)
 * pg14ChunkSize(10_000_000); // 8192 (4882 -> 8192, equal to the cap)
 * pg14ChunkSize(104_857_600, { maxChunkBlocks: null }); // 65536 (T3's uncapped 800 GB table)
 * ```
 */
export function pg14ChunkSize(nblocks: number, options: Pg14Options = {}): number {
  checkNblocks(nblocks);
  const p = resolvePolicy({ kind: "pg14", ...options }) as Extract<ResolvedPolicy, { kind: "pg14" }>;
  return pg14InitialChunk(nblocks, p.nchunks, p.maxChunkBlocks);
}

/** @internal pg14ChunkSize without the checks, for the allocator's start-up. */
export function pg14InitialChunk(nblocks: number, nchunks: number, maxChunkBlocks: number | null): number {
  const size = nextPowerOfTwo(Math.max(Math.floor(nblocks / nchunks), 1));
  if (size > MAX_CLAIM_BLOCKS) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_OPTION",
      `pg14 nchunks ${nchunks} is too small for ${nblocks} blocks: the chunk size would exceed 2^31 blocks.`,
    );
  }
  return maxChunkBlocks === null ? size : Math.min(size, maxChunkBlocks);
}

/**
 * The PG14+ ramp-down rule (table_block_parallelscan_nextpage, apps/docs/src/reference/parallel-block-allocation.md#block-requests
 * request step 2a): before claiming a chunk, a participant whose own position
 * (its last counter value, 0 before its first chunk) is past
 * nblocks - chunkBlocks * rampdownChunks halves its chunk size (at most once per
 * claim). The subtraction and product are PostgreSQL's unsigned 32-bit
 * arithmetic: with the default constants they never wrap, with extreme options
 * they can, and then (as in PostgreSQL) the threshold is huge and no ramp-down
 * happens.
 *
 * @returns the size of the chunk to claim.
 */
export function pg14RampDown(
  chunkBlocks: number,
  position: number,
  nblocks: number,
  rampdownChunks: number,
): number {
  if (chunkBlocks > 1) {
    const threshold = (nblocks - (Math.imul(chunkBlocks, rampdownChunks) >>> 0)) >>> 0;
    if (position > threshold) return chunkBlocks >>> 1;
  }
  return chunkBlocks;
}
