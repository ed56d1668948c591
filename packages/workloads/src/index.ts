/**
 * @packageDocumentation
 * The workloads of published PostgreSQL scan benchmarks, regenerated from a
 * seed: the 2022 bitmap heap scan data sets of Vondra's benchmark
 * (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) and its
 * pgbench_accounts range query, as the heap-page bitmaps
 * (`@scanlab/bitmap-prefetch`'s `HeapBitmap`) a bitmap heap scan reads.
 */

export {
  BITMAP_2022_DEFAULT_TABLE_BLOCKS,
  BITMAP_2022_DISTINCT_VALUES,
  BITMAP_2022_LAYOUTS,
  BITMAP_2022_ROWS_PER_PAGE,
  BITMAP_2022_SELECTIVITIES,
  type Bitmap2022Layout,
  type Bitmap2022Query,
  type Bitmap2022QueryOptions,
  type Bitmap2022Table,
  type Bitmap2022TableOptions,
  bitmap2022Queries,
  bitmap2022Query,
  bitmap2022Table,
} from "./bitmap-data-sets-2022.js";
export { WorkloadError, type WorkloadErrorCode } from "./errors.js";
export {
  PGBENCH_ACCOUNTS_PER_SCALE,
  PGBENCH_ACCOUNTS_ROWS_PER_PAGE,
  type PgbenchAccountsOptions,
  type PgbenchAccountsQuery,
  pgbenchAccountsBitmap,
  pgbenchAccountsTableBlocks,
} from "./pgbench-accounts.js";
