/**
 * The pgbench query of Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”), as the bitmap it produces.
 *
 * Vondra's 2022 benchmark (apps/docs/src/reference/experiments.md#t7-b-pgbench-accounts-range) runs
 * `select * from pgbench_accounts where aid between 1000 and 50000000 and
 * abalance != 0` at pgbench scale 3000, "right after initialization [when]
 * the accounts will be almost perfectly sequential. So the query will match a
 * continuous range of pages (roughly 1/6 of the whole table)".
 *
 * Rows per page: 61. A pgbench_accounts row is (aid int4, bid int4,
 * abalance int4, filler char(84)): 12 bytes of integers plus the 84-byte
 * filler stored with a 1-byte short varlena header = 97 bytes of data; with
 * the 23-byte heap tuple header padded to 24 that is 121 bytes, MAXALIGNed to
 * 128, plus a 4-byte line pointer = 132 bytes per row. A page has
 * 8192 - 24 (page header) = 8168 usable bytes, and 8168 / 132 = 61.9, so
 * 61 rows per page at fillfactor 100 (pgbench -i's default). That gives
 * 100 000 x 3000 = 300 M rows in ceil(300 M / 61) = 4 918 033 pages
 * (37.5 GiB; apps/docs/src/reference/experiments.md#t7-b-pgbench-accounts-range says "about 38 GB").
 *
 * `pgbench -i` loads aid 1, 2, 3, ... in order with COPY, so aid k sits on
 * page floor((k - 1) / 61). The bitmap index scan on pgbench_accounts_pkey
 * for aid 1000..50 000 000 therefore yields the contiguous pages 16 ..
 * 819 672 (819 657 pages, 16.67 % = one sixth of the table): perfectly
 * sequential right after `pgbench -i`; later UPDATEs (which cannot stay on a
 * full page at fillfactor 100) would scatter new versions to other pages,
 * which is the "almost" in Vondra's 2022 benchmark and is not modelled here. The
 * `abalance != 0` filter is checked on the heap tuple (there is no index on
 * abalance) and rejects every row right after `pgbench -i` (all balances are
 * 0); the heap scan still iterates all 61 tuples of each page, which is what
 * the PG13-17 per-tuple prefetch increment counts. Exact pages carry the
 * number of matching aids on the page (38 on the first page, 8 on the last,
 * 61 elsewhere); lossy pages (work_mem too small for 819 657 exact entries)
 * iterate all 61 rows.
 */
import { type HeapBitmap, HeapBitmapBuilder } from "@scanlab/bitmap-prefetch";
import { WorkloadError } from "./errors.js";

/** Rows per pgbench_accounts page at fillfactor 100 (the 132-byte row arithmetic above). */
export const PGBENCH_ACCOUNTS_ROWS_PER_PAGE = 61;

/** pgbench_accounts rows per unit of scale (pgbench's naccounts = 100000). */
export const PGBENCH_ACCOUNTS_PER_SCALE = 100000;

/** Options of {@link pgbenchAccountsBitmap}. */
export interface PgbenchAccountsOptions {
  /** pgbench scale factor (default 3000, Vondra's 2022 benchmark). */
  readonly scale?: number;
  /** Lowest aid matched (default 1000, Vondra's 2022 benchmark). */
  readonly aidFrom?: number;
  /** Highest aid matched (default 50 000 000, Vondra's 2022 benchmark). */
  readonly aidTo?: number;
  /** Mark the pages lossy (every tuple on the page is iterated). Default false. */
  readonly lossy?: boolean;
}

/** The query's bitmap and the table it scans. */
export interface PgbenchAccountsQuery {
  /** Table size in pages. */
  readonly tableBlocks: number;
  /** Rows in the table. */
  readonly rows: number;
  /** Rows per page (61). */
  readonly rowsPerPage: number;
  /** The SQL text. */
  readonly sql: string;
  /** Matching pages, one run (split only where the first/last page have fewer matching rows). */
  readonly bitmap: HeapBitmap;
}

/**
 * Heap blocks of pgbench_accounts at `scale` right after `pgbench -i`:
 * 100 000 rows per unit of scale, 61 per page (scale 3000: 4 918 033).
 */
export function pgbenchAccountsTableBlocks(scale = 3000): number {
  return Math.ceil((PGBENCH_ACCOUNTS_PER_SCALE * scale) / PGBENCH_ACCOUNTS_ROWS_PER_PAGE);
}

/**
 * Builds the bitmap of `aid BETWEEN aidFrom AND aidTo` on pgbench_accounts right after `pgbench -i`.
 *
 * @example
 * ```ts
 * const q = pgbenchAccountsBitmap();      // scale 3000, aid 1000..50 000 000
 * q.tableBlocks;       // 4 918 033
 * q.bitmap.pageCount;  // 819 657 (one sixth)
 * ```
 */
export function pgbenchAccountsBitmap(options: PgbenchAccountsOptions = {}): PgbenchAccountsQuery {
  const scale = options.scale ?? 3000;
  const aidFrom = options.aidFrom ?? 1000;
  const aidTo = options.aidTo ?? 50_000_000;
  const lossy = options.lossy ?? false;
  const perPage = PGBENCH_ACCOUNTS_ROWS_PER_PAGE;
  if (!Number.isInteger(scale) || scale < 1 || scale > 100_000) {
    throw new WorkloadError(
      "WORKLOAD_BAD_DATASET",
      `pgbench scale must be an integer from 1 to 100000, got ${String(scale)}.`,
    );
  }
  const rows = PGBENCH_ACCOUNTS_PER_SCALE * scale;
  if (
    !Number.isInteger(aidFrom) ||
    !Number.isInteger(aidTo) ||
    aidFrom < 1 ||
    aidTo < aidFrom ||
    aidTo > rows
  ) {
    throw new WorkloadError(
      "WORKLOAD_BAD_DATASET",
      `aid range must satisfy 1 <= aidFrom <= aidTo <= ${rows} (scale ${scale}), got ${String(aidFrom)}..${String(aidTo)}.`,
    );
  }
  const tableBlocks = pgbenchAccountsTableBlocks(scale);
  const first = Math.floor((aidFrom - 1) / perPage);
  const last = Math.floor((aidTo - 1) / perPage);
  const b = new HeapBitmapBuilder(tableBlocks);
  // Rows on page p are aid p*61+1 .. min((p+1)*61, rows).
  const matching = (p: number): number => {
    if (lossy) return Math.min((p + 1) * perPage, rows) - p * perPage;
    const lo = Math.max(aidFrom, p * perPage + 1);
    const hi = Math.min(aidTo, (p + 1) * perPage);
    return hi - lo + 1;
  };
  if (first === last) {
    b.addPage(first, { lossy, tuples: matching(first) });
  } else {
    b.addPage(first, { lossy, tuples: matching(first) });
    if (last - first > 1) b.addRun(first + 1, last - first - 1, { lossy, tuples: matching(first + 1) });
    b.addPage(last, { lossy, tuples: matching(last) });
  }
  return {
    tableBlocks,
    rows,
    rowsPerPage: perPage,
    sql: `select * from pgbench_accounts where aid between ${aidFrom} and ${aidTo} and abalance != 0`,
    bitmap: b.build(),
  };
}
