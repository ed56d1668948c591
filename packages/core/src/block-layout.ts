/**
 * PostgreSQL's block and segment layout, the units every scanlab model counts in.
 *
 * Problem: a heap is addressed in blocks of BLCKSZ bytes, numbered with an
 * unsigned 32-bit BlockNumber whose all-ones value means "no block", and
 * stored in segment files of RELSEG_SIZE blocks. Models of the allocator, the
 * synchronized-scan tracker, bitmap prefetching, the simulator and the real
 * scanner all need these numbers, and each kept its own copy.
 *
 * Insight: they are compile-time constants of PostgreSQL's default build, so
 * one module of plain numbers is all that is needed.
 *
 * Design choices:
 * - The values are those of the default build (`./configure` without
 *   `--with-blocksize` / `--with-segsize`): BLCKSZ 8192 and RELSEG_SIZE
 *   131072 blocks (1 GB segments), src/include/pg_config.h as generated from
 *   configure.ac. A non-default build is not modelled.
 * - InvalidBlockNumber and MaxBlockNumber are from src/include/storage/block.h:
 *   `#define InvalidBlockNumber ((BlockNumber) 0xFFFFFFFF)` and
 *   `#define MaxBlockNumber ((BlockNumber) 0xFFFFFFFE)`.
 */

/** Bytes per block: BLCKSZ of the default build (src/include/pg_config.h, configure.ac `--with-blocksize`, default 8). */
export const BLCKSZ = 8192;

/** Blocks per segment file: RELSEG_SIZE of the default build, 1 GB / BLCKSZ (src/include/pg_config.h, configure.ac `--with-segsize`, default 1 GB). */
export const RELSEG_SIZE = 131072;

/** The "no block" sentinel: InvalidBlockNumber (src/include/storage/block.h). */
export const InvalidBlockNumber = 0xffffffff;

/** The largest valid block number: MaxBlockNumber (src/include/storage/block.h); a relation has at most MaxBlockNumber + 1 blocks. */
export const MaxBlockNumber = 0xfffffffe;
