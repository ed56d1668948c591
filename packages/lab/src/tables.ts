/**
 * The lab's tables in SQL, and each cell's query.
 *
 * Problem. The simulator and PostgreSQL must scan the *same* table: the same
 * number of pages, tuples a page, and for a bitmap heap scan the same pages
 * matched. Anything else and a gap between them means nothing.
 *
 * Choices.
 * - `narrow`: one int column, 226 tuples a page, `blocks x 226` rows in
 *   order. `VACUUM (FREEZE, ANALYZE)` after loading sets hint bits and
 *   PD_ALL_VISIBLE, so no scan dirties a page (a scan writing hint bits would
 *   add writes and CPU the model does not have).
 * - Bitmap tables: the 2022 data sets of @scanlab/workloads, generated
 *   with the seeds the simulator uses for a `bitmap` query (table seed 4,
 *   query seed 5; the simulator's engine/seam/bitmap-adapters.ts
 *   `bitmapFor`), so the same pages match. Each page holds 27 rows
 *   `(a int, padding text)` with the page's value of `a`: a 250-byte
 *   padding gives a 282-byte tuple, MAXALIGNed to 288 plus a 4-byte line
 *   pointer, and 27 x 292 fits in a page's 8168 free bytes while 28 do
 *   not (src/include/storage/bufpage.h). Rows are inserted in page order into
 *   a fresh table, so page i holds exactly the rows of page i; the runner
 *   checks the page count after loading.
 * - `parallel_workers = 8` on every table so `max_parallel_workers_per_gather`
 *   alone decides a cell's worker count (plancat.c, `rel_parallel_workers`).
 * - Queries are `count(*)`: no rows travel to the client, so time is the
 *   scan's.
 */
import { type Bitmap2022Layout, bitmap2022Query, bitmap2022Table } from "@scanlab/workloads";
import type { Cell, LabTable } from "./cells.js";

/** The range of indexed values a bitmap cell's query selects. */
export interface BitmapRange {
  /** Lowest value selected. */
  low: number;
  /** Highest value selected. */
  high: number;
}

/** Table seed of the simulator's bitmap data sets (its default `bitmap.seed`). */
export const BITMAP_TABLE_SEED = 4;
/** Query seed the simulator derives from it (`seed + 1`). */
export const BITMAP_QUERY_SEED = BITMAP_TABLE_SEED + 1;

/** Bytes of the padding column of a bitmap table row: 27 rows a page (see the file header). */
export const BITMAP_PADDING_BYTES = 250;

/** SQL statements that create and load `table`. */
export function createTableSql(table: LabTable): string {
  const common = "WITH (autovacuum_enabled = off, parallel_workers = 8)";
  if (table.kind === "narrow") {
    return [
      `DROP TABLE IF EXISTS ${table.name};`,
      `CREATE TABLE ${table.name} (a int) ${common};`,
      `INSERT INTO ${table.name} SELECT g FROM generate_series(1, ${table.blocks * table.tuplesPerPage}) g;`,
      `VACUUM (FREEZE, ANALYZE) ${table.name};`,
      "CHECKPOINT;",
    ].join("\n");
  }
  const values = bitmap2022Table({
    layout: table.layout as Bitmap2022Layout,
    seed: BITMAP_TABLE_SEED,
    tableBlocks: table.blocks,
  }).pageValues;
  return [
    `DROP TABLE IF EXISTS ${table.name};`,
    `CREATE TABLE ${table.name} (a int, padding text) ${common};`,
    `INSERT INTO ${table.name} SELECT v.a, repeat('x', ${BITMAP_PADDING_BYTES}) FROM unnest('{${Array.from(values).join(",")}}'::int[]) WITH ORDINALITY AS v(a, page), generate_series(1, ${table.tuplesPerPage}) ORDER BY v.page;`,
    `CREATE INDEX ON ${table.name} (a);`,
    `VACUUM (FREEZE, ANALYZE) ${table.name};`,
    "CHECKPOINT;",
  ].join("\n");
}

/** The value range a bitmap cell's query matches (the simulator's query for the same table and selectivity). */
export function bitmapRange(table: LabTable, selectivity: number): BitmapRange {
  const t = bitmap2022Table({
    layout: table.layout as Bitmap2022Layout,
    seed: BITMAP_TABLE_SEED,
    tableBlocks: table.blocks,
  });
  const q = bitmap2022Query(t, { selectivity, seed: BITMAP_QUERY_SEED });
  return { low: q.lowValue, high: q.highValue };
}

/** `SET` statements for a cell's session settings. */
export function sessionSettingsSql(cell: Cell): string {
  const lines = [
    `SET max_parallel_workers_per_gather = ${cell.workers};`,
    `SET synchronize_seqscans = ${cell.synchronizeSeqscans ? "on" : "off"};`,
    "SET enable_indexscan = off;",
    "SET enable_indexonlyscan = off;",
    "SET work_mem = '64MB';",
  ];
  if (cell.workers > 0) {
    lines.push(
      "SET parallel_setup_cost = 0;",
      "SET parallel_tuple_cost = 0;",
      "SET min_parallel_table_scan_size = 0;",
    );
  }
  if (cell.scan === "bitmap") lines.push("SET enable_seqscan = off;");
  else lines.push("SET enable_bitmapscan = off;");
  if (cell.eic !== null) lines.push(`SET effective_io_concurrency = ${cell.eic};`);
  if (cell.ioCombineLimit !== null) lines.push(`SET io_combine_limit = ${cell.ioCombineLimit};`);
  return lines.join("\n");
}

/** The measured statement of a cell. */
export function cellQuerySql(cell: Cell, table: LabTable): string {
  let where = "";
  if (cell.scan === "bitmap") {
    const { low, high } = bitmapRange(table, cell.selectivity ?? 0);
    where = ` WHERE a BETWEEN ${low} AND ${high}`;
  }
  return `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*) FROM ${table.name}${where};`;
}

/** Plan node type a cell must contain (the planner chose the scan the cell asked for). */
export function expectedNode(cell: Cell): string {
  return cell.scan === "bitmap" ? "Bitmap Heap Scan" : "Seq Scan";
}

/** A serial sequential `count(*)` of the whole table: what fills the page cache before a warm cell. */
export function warmUpSql(table: LabTable): string {
  return [
    "SET max_parallel_workers_per_gather = 0;",
    "SET enable_indexscan = off;",
    "SET enable_indexonlyscan = off;",
    "SET enable_bitmapscan = off;",
    `SELECT count(*) FROM ${table.name};`,
  ].join("\n");
}
