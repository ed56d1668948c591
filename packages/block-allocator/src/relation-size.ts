/**
 * Relation sizes as people write them ("800GB", "100 GB", "10000000") turned
 * into block counts. Units follow PostgreSQL's own (guc.c memory units: B, kB,
 * MB, GB, TB are powers of 1024), so "800GB" is 800 x 2^30 bytes =
 * 104,857,600 blocks of 8 kB, the figure apps/docs/src/reference/experiments.md#t3-synchronized-scans-on-an-800-gb-table uses. A bare number is
 * a block count. A size that is not a whole number of blocks is rounded up (a
 * relation is always whole blocks). The grammar is `@scanlab/core`'s
 * `parseSize`, with "block"/"blocks" as words for the bare unit.
 */
import { BLCKSZ, parseSize } from "@scanlab/core";
import { AllocatorError } from "./errors.js";
import { MAX_NBLOCKS } from "./policy.js";

/** BLCKSZ: PostgreSQL's default block size in bytes (`@scanlab/core`). */
export const BLOCK_BYTES: number = BLCKSZ;

/**
 * Parses a relation size: a block count (number or digits), or a number with a
 * unit B / kB / MB / GB / TB (powers of 1024, as in PostgreSQL; KiB .. TiB also
 * accepted), or "N blocks".
 *
 * @returns the size in blocks of {@link BLOCK_BYTES}.
 * @throws {@link AllocatorError} `ALLOCATOR_BAD_SIZE` for anything else, a negative or
 *   fractional block count, or a size above 2^32 - 1 blocks (32 TiB).
 * @example
 * ```ts
 * import { blocksFromSize } from "@scanlab/block-allocator";
 * blocksFromSize("800GB"); // 104857600
 * blocksFromSize("100000"); // 100000
 * ```
 */
export function blocksFromSize(size: string | number): number {
  let blocks: number;
  if (typeof size === "number") {
    blocks = size;
  } else if (typeof size === "string") {
    const q = parseSize(size, { bareUnits: ["block", "blocks"] });
    if (q === null) throw bad(size);
    blocks = q.scale === null ? q.value : Math.ceil((q.value * q.scale) / BLOCK_BYTES);
  } else {
    throw bad(size);
  }
  if (!Number.isInteger(blocks) || blocks < 0 || blocks > MAX_NBLOCKS) throw bad(size);
  return blocks;
}

function bad(size: unknown): AllocatorError {
  return new AllocatorError(
    "ALLOCATOR_BAD_SIZE",
    `a relation size must be a whole number of blocks from 0 to ${MAX_NBLOCKS} or a size like "100GB" (got ${typeof size === "string" ? JSON.stringify(size) : String(size)}).`,
  );
}
