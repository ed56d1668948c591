/**
 * The tables of the 2022 bitmap heap scan data set (@scanlab/workloads'
 * bitmap2022Table) in a real cluster, for the rows that run bitmap heap scans
 * on them (bitmap-prefetch up to 17, read-streams from 18).
 *
 * `t (a int, padding text)` with 27 rows of the same `a` on each page, in the
 * generator's page order: a 256-byte padding makes a row 288 bytes + a 4-byte
 * line pointer, so 27 fit in a page's 8168 bytes and 28 do not.
 */
import type { Cluster } from "@scanlab/pg-harness";
import { type Bitmap2022Layout, bitmap2022Table } from "@scanlab/workloads";

/** The table name of a layout: `t_random`, `t_random_8`, ... */
export function bitmap2022TableName(layout: Bitmap2022Layout): string {
  return `t_${layout.replace("-", "_")}`;
}

/**
 * Creates the data set's table of `layout` with an index on `a`, frozen and
 * analyzed, autovacuum off, and checks that it has `tableBlocks` pages.
 * Returns its name.
 */
export async function createBitmap2022Table(
  pg: Cluster,
  layout: Bitmap2022Layout,
  options: { seed: number; tableBlocks: number },
): Promise<string> {
  const t = bitmap2022Table({ layout, ...options });
  const table = bitmap2022TableName(layout);
  await pg.psql(
    `create table ${table} (a int, padding text) with (autovacuum_enabled = off);
     insert into ${table}
       select v, repeat('x', 256)
         from unnest('{${[...t.pageValues].join(",")}}'::int[]) with ordinality as u(v, page),
              generate_series(1, 27) r
        order by page, r;
     create index on ${table} (a);
     vacuum (freeze, analyze) ${table};`,
  );
  const pages = Number(await pg.psql(`select pg_relation_size('${table}') / 8192`));
  if (pages !== options.tableBlocks)
    throw new Error(`${table} has ${pages} pages, not ${options.tableBlocks}`);
  return table;
}

/** Session settings that leave a serial bitmap heap scan as the only plan, with `eic` as effective_io_concurrency. */
export function bitmapHeapScanOnly(eic: number): string {
  return `set enable_seqscan = off; set enable_indexscan = off; set enable_indexonlyscan = off;
    set max_parallel_workers_per_gather = 0; set effective_io_concurrency = ${eic};`;
}
