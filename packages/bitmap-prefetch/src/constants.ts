/**
 * Block-level constants shared by every mechanism in this package.
 *
 * PostgreSQL's default build uses BLCKSZ = 8192 and RELSEG_SIZE = 131072
 * blocks (1 GB segment files): apps/docs/src/reference/index.md#block-size-and-units ("Every
 * constant assumes BLCKSZ = 8192") and 4.3 ("A read never crosses a 1 GB
 * segment file boundary"). InvalidBlockNumber is 0xFFFFFFFF (block.h), which
 * is why block numbers are unsigned 32-bit values 0..2^32-2.
 */

/** Heap page size in bytes (PostgreSQL BLCKSZ default, apps/docs/src/reference/index.md#block-size-and-units). */
export const BLCKSZ = 8192;

/** Blocks per 1 GB relation segment file (RELSEG_SIZE default = 1 GB / BLCKSZ, apps/docs/src/reference/index.md#block-size-and-units). */
export const RELSEG_SIZE_BLOCKS = 131072;

/** PostgreSQL's InvalidBlockNumber (block.h): the "no block" / end-of-iteration sentinel. */
export const INVALID_BLOCK_NUMBER = 0xffffffff;

/** Largest valid block number (InvalidBlockNumber - 1). */
export const MAX_BLOCK_NUMBER = 0xfffffffe;
