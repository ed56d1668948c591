/**
 * Planning helpers: what the allocator will do, as a table, without a
 * simulator. They drive real participants of an in-process scan (the same
 * code the simulator and the workers run), so the tables in the README and the
 * CLI are produced by the mechanism itself, not by a second formula.
 *
 * - {@link pg14ChunkPlan}: one participant alone, the table of apps/docs/src/reference/parallel-block-allocation.md#chunk-table
 *   (chunk size, first counter value at that size, chunks at that size).
 * - {@link allocateRoundRobin}: several participants taking turns block by
 *   block (the "4 participants" observation of apps/docs/src/reference/parallel-block-allocation.md#four-participants), returning
 *   every claim in allocation order.
 * - {@link summarizeChunkLevels}: claims -> the same table.
 */
import { AllocatorError } from "./errors.js";
import { createParallelScan, type ParallelScanOptions } from "./parallel-scan.js";
import type { Pg14Options } from "./pg14-chunks.js";
import type { AllocatorPolicy } from "./policy.js";

/** One row of a chunk plan: a chunk size, where it first appears, how many chunks of it. */
export interface ChunkLevel {
  /** Chunk size in blocks. */
  chunkBlocks: number;
  /** Counter value of the first chunk of this size (block = (counter + start) mod nblocks). */
  firstCounter: number;
  /** Number of chunks of this size claimed (a last chunk that straddles nblocks counts). */
  chunks: number;
}

/** One claim of a range of counter values by one participant. */
export interface ClaimRecord {
  /** Index of the participant (0-based, in join order). */
  participant: number;
  /** First counter value of the claim. */
  firstCounter: number;
  /** Size of the claim (the participant's chunk size), including values past nblocks if it straddles the end. */
  chunkBlocks: number;
}

/**
 * Groups claims (in allocation order) by chunk size: for each size, the
 * counter value where it first appears and how many claims had it, ordered by
 * first appearance.
 *
 * @example
 * ```ts
 * import { summarizeChunkLevels } from "@scanlab/block-allocator";
 * summarizeChunkLevels([
 *   { participant: 0, firstCounter: 0, chunkBlocks: 2 },
 *   { participant: 0, firstCounter: 2, chunkBlocks: 1 },
 * ]); // [{ chunkBlocks: 2, firstCounter: 0, chunks: 1 }, { chunkBlocks: 1, firstCounter: 2, chunks: 1 }]
 * ```
 */
export function summarizeChunkLevels(claims: readonly ClaimRecord[]): ChunkLevel[] {
  const levels = new Map<number, ChunkLevel>();
  for (const c of claims) {
    const level = levels.get(c.chunkBlocks);
    if (level === undefined)
      levels.set(c.chunkBlocks, { chunkBlocks: c.chunkBlocks, firstCounter: c.firstCounter, chunks: 1 });
    else {
      level.chunks++;
      if (c.firstCounter < level.firstCounter) level.firstCounter = c.firstCounter;
    }
  }
  return [...levels.values()].sort((a, b) => a.firstCounter - b.firstCounter);
}

/** Options of {@link allocateRoundRobin}. */
export interface RoundRobinOptions extends Omit<ParallelScanOptions, "hooks"> {
  /** Number of participants taking turns, an integer from 1 to 65536. */
  participants: number;
}

/** Largest participant count accepted by {@link allocateRoundRobin} (PostgreSQL's max_worker_processes is at most 262143; 65536 is plenty for planning). */
const MAX_PARTICIPANTS = 65536;

/**
 * Runs a whole scan with `participants` participants taking turns block by
 * block (participant 0, 1, ..., 0, 1, ...; a participant that is done drops
 * out) and returns every claim in allocation order.
 *
 * @throws {@link AllocatorError} `ALLOCATOR_BAD_PARTICIPANTS` for a participant
 *   count that is not a positive integer, and the errors of {@link createParallelScan}.
 * @example
 * ```ts
 * import { allocateRoundRobin, summarizeChunkLevels } from "@scanlab/block-allocator";
 * const claims = allocateRoundRobin({ kind: "pg14" }, { nblocks: 100_000, participants: 4 });
 * console.table(summarizeChunkLevels(claims));
 * ```
 */
export function allocateRoundRobin(policy: AllocatorPolicy, options: RoundRobinOptions): ClaimRecord[] {
  const n = options.participants;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_PARTICIPANTS) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_PARTICIPANTS",
      `participants must be an integer from 1 to ${MAX_PARTICIPANTS} (got ${String(n)}).`,
    );
  }
  const { participants: _, ...scanOptions } = options;
  const scan = createParallelScan(policy, scanOptions);
  const all = Array.from({ length: n }, () => scan.join());
  const claims: ClaimRecord[] = [];
  let active = all.map((p, i) => ({ p, i }));
  while (active.length > 0) {
    const still: typeof active = [];
    for (const a of active) {
      const run = a.p.nextRun(1);
      if (run === null) continue;
      if (run.op !== "none")
        claims.push({ participant: a.i, firstCounter: run.firstCounter, chunkBlocks: a.p.chunkBlocks });
      still.push(a);
    }
    active = still;
  }
  return claims;
}

/**
 * The PG14+ chunk plan of one participant scanning alone (apps/docs/src/reference/parallel-block-allocation.md#chunk-table):
 * every chunk size it uses, the first counter value at that size and the
 * number of chunks of that size. Produced by running the `pg14` allocator.
 *
 * @param nblocks relation size in blocks.
 * @param options the pg14 constants (defaults 2048 / 64 / 8192; `maxChunkBlocks: null` = uncapped).
 * @throws {@link AllocatorError} for a bad size or option.
 * @example
 * ```ts
 * import { pg14ChunkPlan } from "@scanlab/block-allocator";
 * pg14ChunkPlan(100_000).slice(0, 2);
 * // [{ chunkBlocks: 64, firstCounter: 0, chunks: 1499 }, { chunkBlocks: 32, firstCounter: 95936, chunks: 64 }]
 * ```
 */
export function pg14ChunkPlan(nblocks: number, options: Pg14Options = {}): ChunkLevel[] {
  const scan = createParallelScan({ kind: "pg14", ...options }, { nblocks });
  const me = scan.join();
  const levels: ChunkLevel[] = [];
  let current: ChunkLevel | undefined;
  for (let run = me.nextRun(); run !== null; run = me.nextRun()) {
    if (run.op === "none") continue;
    if (current === undefined || current.chunkBlocks !== me.chunkBlocks) {
      current = { chunkBlocks: me.chunkBlocks, firstCounter: run.firstCounter, chunks: 0 };
      levels.push(current);
    }
    current.chunks++;
  }
  return levels;
}
