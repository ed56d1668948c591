/**
 * The synthetic tables and queries of the 2022 bitmap heap scan benchmark,
 * regenerated from a PRNG seed.
 *
 * Tomas Vondra's benchmark (pgsql-hackers, 2022, “Re: effective_io_concurrency
 * and NVMe devices”; apps/docs/src/reference/experiments.md#t7-c-synthetic-data-sets) used
 * `CREATE TABLE t (a int, padding text)` where "each page contains 27 rows
 * with the same "a" value", `a` between 0 and 1000, in four layouts:
 *
 * - `random`: each page gets a random value;
 * - `random-8`: each sequence of 8 pages gets a random value;
 * - `random-32`: each sequence of 32 pages (the message says 8, a typo
 *   noted in apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds);
 * - `sequential`: "split into 1000 sequences, values 0, 1, 2, ...".
 *
 * and queries matching "a random subset of the table, with fractions 1 %,
 * 5 %, 10 %, 25 % and 50 % ... The ranges are generated at random, it's just
 * the length of the range that matters."
 *
 * Choices where the message is silent (documented in the README):
 * - Values are 0..999, i.e. 1000 distinct values, so that `sequential` is
 *   exactly 1000 runs and a range of k values covers k / 1000 of the table
 *   ("a BETWEEN 10 AND 20 matches 1 %" in the message is the same arithmetic).
 * - A query for fraction f is `a BETWEEN lo AND lo + round(1000 f) - 1`, lo
 *   uniform in 0..1000 - round(1000 f). In `sequential` layout that is one
 *   contiguous region; in the random layouts the matched fraction is f on
 *   average (binomial spread).
 * - Table size: not stated in the message; the default is 131072 blocks (1 GiB,
 *   one segment file). Pass `tableBlocks` for other sizes. In `sequential`
 *   layout, value v covers blocks [floor(v N / 1000), floor((v+1) N / 1000)).
 * - Bitmap pages are exact with 27 tuples each (all rows of a matching page
 *   match). A lossy bitmap (small work_mem) has the same 27 tuples per page,
 *   so `lossy: true` changes only the flag.
 */

import { type HeapBitmap, HeapBitmapBuilder } from "@scanlab/bitmap-prefetch";
import { MaxBlockNumber as MAX_BLOCK_NUMBER, sfc32 } from "@scanlab/core";
import { WorkloadError } from "./errors.js";

/** Rows per page in the 2022 eic benchmark's table t ("each page contains 27 rows with the same "a" value"). */
export const BITMAP_2022_ROWS_PER_PAGE = 27;

/** Distinct values of `a` (0..999): the 2022 eic benchmark's `sequential` layout is "1000 sequences". */
export const BITMAP_2022_DISTINCT_VALUES = 1000;

/** Default table size in blocks: 1 GiB (our choice; the benchmark does not state the size). */
export const BITMAP_2022_DEFAULT_TABLE_BLOCKS = 131072;

/** The selectivities the 2022 eic benchmark tested: 1, 5, 10, 25 and 50 % of the table. */
export const BITMAP_2022_SELECTIVITIES: readonly number[] = [0.01, 0.05, 0.1, 0.25, 0.5];

/** Page layouts of the 2022 eic benchmark's table. */
export type Bitmap2022Layout = "random" | "random-8" | "random-32" | "sequential";

/** The four layouts, in the 2022 eic benchmark's order. */
export const BITMAP_2022_LAYOUTS: readonly Bitmap2022Layout[] = [
  "random",
  "random-8",
  "random-32",
  "sequential",
];

/** Options of {@link bitmap2022Table}. */
export interface Bitmap2022TableOptions {
  /** Page layout. */
  readonly layout: Bitmap2022Layout;
  /** Seed of the value draws (ignored by `sequential`, which has no randomness). */
  readonly seed: number;
  /** Table size in blocks (default {@link BITMAP_2022_DEFAULT_TABLE_BLOCKS}). */
  readonly tableBlocks?: number;
}

/** A generated table: the value of `a` on every page. */
export interface Bitmap2022Table {
  /** Layout it was generated with. */
  readonly layout: Bitmap2022Layout;
  /** Seed it was generated with. */
  readonly seed: number;
  /** Number of heap pages. */
  readonly tableBlocks: number;
  /** Rows per page (27). */
  readonly rowsPerPage: number;
  /** `a` of every row on page i, 0..999. */
  readonly pageValues: Uint16Array;
}

function groupPages(layout: Bitmap2022Layout): number {
  switch (layout) {
    case "random":
      return 1;
    case "random-8":
      return 8;
    case "random-32":
      return 32;
    default:
      return 0;
  }
}

/**
 * Generates the 2022 eic benchmark's table `t` in the given layout.
 *
 * @example
 * ```ts
 * const t = bitmap2022Table({ layout: "random-8", seed: 42, tableBlocks: 65536 });
 * t.pageValues[0] === t.pageValues[7]; // true: 8-page groups share a value
 * ```
 */
export function bitmap2022Table(options: Bitmap2022TableOptions): Bitmap2022Table {
  const { layout, seed } = options;
  const tableBlocks = options.tableBlocks ?? BITMAP_2022_DEFAULT_TABLE_BLOCKS;
  if (!BITMAP_2022_LAYOUTS.includes(layout)) {
    throw new WorkloadError(
      "WORKLOAD_BAD_DATASET",
      `layout must be one of ${BITMAP_2022_LAYOUTS.join(", ")}, got ${String(layout)}.`,
    );
  }
  if (
    !Number.isInteger(tableBlocks) ||
    tableBlocks < BITMAP_2022_DISTINCT_VALUES ||
    tableBlocks > MAX_BLOCK_NUMBER + 1
  ) {
    throw new WorkloadError(
      "WORKLOAD_BAD_DATASET",
      `tableBlocks must be an integer from ${BITMAP_2022_DISTINCT_VALUES} (one page per value) to ${MAX_BLOCK_NUMBER + 1}, got ${String(tableBlocks)}.`,
    );
  }
  if (!Number.isFinite(seed)) {
    throw new WorkloadError("WORKLOAD_BAD_DATASET", `seed must be a finite number, got ${String(seed)}.`);
  }
  const values = new Uint16Array(tableBlocks);
  const group = groupPages(layout);
  if (group === 0) {
    for (let v = 0; v < BITMAP_2022_DISTINCT_VALUES; v++) {
      const from = Math.floor((v * tableBlocks) / BITMAP_2022_DISTINCT_VALUES);
      const to = Math.floor(((v + 1) * tableBlocks) / BITMAP_2022_DISTINCT_VALUES);
      values.fill(v, from, to);
    }
  } else {
    const rng = sfc32(seed);
    for (let p = 0; p < tableBlocks; p += group) {
      values.fill(rng.below(BITMAP_2022_DISTINCT_VALUES), p, Math.min(p + group, tableBlocks));
    }
  }
  return { layout, seed, tableBlocks, rowsPerPage: BITMAP_2022_ROWS_PER_PAGE, pageValues: values };
}

/** A query `a BETWEEN lowValue AND highValue` and its bitmap. */
export interface Bitmap2022Query {
  /** Requested fraction of the value range (0.01 .. 0.5 in the benchmark). */
  readonly selectivity: number;
  /** Lowest matching value of `a`. */
  readonly lowValue: number;
  /** Highest matching value of `a`. */
  readonly highValue: number;
  /** SQL text of the query. */
  readonly sql: string;
  /** Pages matching the query: exact (or lossy) with 27 tuples each. */
  readonly bitmap: HeapBitmap;
}

/** Options of {@link bitmap2022Query}. */
export interface Bitmap2022QueryOptions {
  /** Fraction of the 1000 values to match (0 < selectivity <= 1). */
  readonly selectivity: number;
  /** Seed of the range's start. */
  readonly seed: number;
  /** Mark the bitmap pages lossy (the tuple count stays 27). Default false. */
  readonly lossy?: boolean;
}

/**
 * Draws a random value range covering `selectivity` of the values and
 * returns the bitmap a bitmap index scan on `a` would produce.
 *
 * @example
 * ```ts
 * const t = bitmap2022Table({ layout: "random", seed: 1 });
 * const q = bitmap2022Query(t, { selectivity: 0.05, seed: 2 });
 * q.bitmap.fraction; // about 0.05
 * ```
 */
export function bitmap2022Query(table: Bitmap2022Table, options: Bitmap2022QueryOptions): Bitmap2022Query {
  const { selectivity, seed } = options;
  if (!Number.isFinite(selectivity) || selectivity <= 0 || selectivity > 1) {
    throw new WorkloadError(
      "WORKLOAD_BAD_DATASET",
      `selectivity must be a fraction in (0, 1], got ${String(selectivity)}.`,
    );
  }
  const width = Math.max(1, Math.round(selectivity * BITMAP_2022_DISTINCT_VALUES));
  const rng = sfc32(seed);
  const low = rng.below(BITMAP_2022_DISTINCT_VALUES - width + 1);
  const high = low + width - 1;
  const builder = new HeapBitmapBuilder(table.tableBlocks);
  const info = { lossy: options.lossy ?? false, tuples: table.rowsPerPage };
  const values = table.pageValues;
  const n = values.length;
  let p = 0;
  while (p < n) {
    const v = values[p] as number;
    if (v < low || v > high) {
      p++;
      continue;
    }
    let q = p + 1;
    while (q < n) {
      const w = values[q] as number;
      if (w < low || w > high) break;
      q++;
    }
    builder.addRun(p, q - p, info);
    p = q;
  }
  return {
    selectivity,
    lowValue: low,
    highValue: high,
    sql: `SELECT * FROM t WHERE a BETWEEN ${low} AND ${high}`,
    bitmap: builder.build(),
  };
}

/**
 * The whole Vondra's 2022 benchmark matrix for one table: one query per selectivity in
 * {@link BITMAP_2022_SELECTIVITIES}, each with its own seed derived from `seed`.
 */
export function bitmap2022Queries(table: Bitmap2022Table, seed: number): Bitmap2022Query[] {
  return BITMAP_2022_SELECTIVITIES.map((selectivity, i) =>
    bitmap2022Query(table, { selectivity, seed: seed * 31 + i }),
  );
}
