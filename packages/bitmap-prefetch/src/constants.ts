/**
 * Block-level constants shared by every mechanism in this package, under the
 * names this package has always exported. The values are PostgreSQL's default
 * build, kept once in `@scanlab/core` (src/include/pg_config.h,
 * src/include/storage/block.h).
 */
export {
  BLCKSZ,
  InvalidBlockNumber as INVALID_BLOCK_NUMBER,
  MaxBlockNumber as MAX_BLOCK_NUMBER,
  RELSEG_SIZE as RELSEG_SIZE_BLOCKS,
} from "@scanlab/core";
