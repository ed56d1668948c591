/**
 * Row "bitmap heap scan prefetch" (PostgreSQL 11-17, before bitmap heap scans
 * moved onto read streams in 18): which heap blocks the backend advises with
 * posix_fadvise(WILLNEED), in what order and how far ahead of the page it
 * reads, replayed through the serial PG13-17 prefetcher of
 * @scanlab/bitmap-prefetch with the effective_io_concurrency meaning the
 * simulator gives the version.
 *
 * Data: the seed tables of the bitmap-prefetch data-set generator (`t (a int,
 * padding text)`, 27 rows with the same `a` on each page; layouts random,
 * random-8, random-32, sequential; data-set-tables.ts), 3000 pages each, and a
 * pgbench_accounts of scale 1 (61 rows per page, aid in order).
 * Queries: `a BETWEEN lo AND hi` for 5 % of the values (the generator's
 * query), and pgbench's `aid BETWEEN 1000 AND 25000 AND abalance != 0`
 * (every row of a matching page is fetched and rejected).
 *
 * Capture: serial bitmap heap scans (seq scans and index scans disabled),
 * shared buffers emptied of the table first (pg_prewarm of a larger filler
 * table), every pread64 / read and fadvise64 of the table's file by the
 * backend traced with strace, in order. The bitmap itself (pages and matching
 * rows per page) is read back from the ctids of the same query, and checked
 * against the data-set generator's.
 *
 * Replay (deterministic, exact): the prefetcher walks the same bitmap; each
 * page is read (a pread of that block) and then the advice it issues follows.
 * The sequence of reads and advice must be the server's, element by element.
 */
import { BitmapHeapScanPrefetcher, type EicFormula, HeapBitmapBuilder } from "@scanlab/bitmap-prefetch";
import {
  type Cluster,
  RELATION_READ_TRACE,
  relationBlockEvents,
  relationFile,
  traceSyscallsDuring,
} from "@scanlab/pg-harness";
import type { PgModel } from "@scanlab/simulator";
import {
  BITMAP_2022_LAYOUTS,
  type Bitmap2022Layout,
  bitmap2022Query,
  bitmap2022Table,
  pgbenchAccountsBitmap,
} from "@scanlab/workloads";
import { bitmap2022TableName, bitmapHeapScanOnly, createBitmap2022Table } from "./data-set-tables.js";
import type { Major } from "./fixtures.js";
import { type CaseBase, firstDifference, type Mechanism } from "./mechanism.js";
import { bitmapPrefetchOptions, modelFor } from "./models.js";

/** One traced bitmap heap scan. */
export interface BitmapCase extends CaseBase {
  /** Table size in pages. */
  tableBlocks: number;
  /** effective_io_concurrency of the scan. */
  eic: number;
  /** The bitmap: runs [first page, pages, matching rows per page]. */
  bitmap: [number, number, number][];
  /** What the backend did to the table, in order: "r<block>" read, "a<block>" advise (one block each). */
  events: string[];
}

/** A wrong prefetcher. */
export interface BitmapMutation {
  /** Use the other effective_io_concurrency meaning than the version's. */
  swapEicFormula?: boolean;
  /** Scale effective_io_concurrency (a wrong distance). */
  eicTimes?: number;
  /** Leave out the per-tuple target increments (every page counted as one tuple). */
  oneTuplePerPage?: boolean;
}

const TABLE_BLOCKS = 3000;
const SEED = 1;
const SELECTIVITY = 0.05;
const FILLER_BLOCKS = 5000;
const PGBENCH = { scale: 1, aidFrom: 1000, aidTo: 25_000 } as const;

interface Query {
  name: string;
  table: string;
  sql: string;
  /** Rows that match the index condition: for the bitmap read-back. */
  indexCondition: string;
  eic: number;
}

function queries(): Query[] {
  const out: Query[] = [];
  const layoutEics: Record<Bitmap2022Layout, number[]> = {
    random: [0, 1, 16, 64],
    "random-8": [16],
    "random-32": [16],
    sequential: [1, 16],
  };
  for (const layout of BITMAP_2022_LAYOUTS) {
    const t = bitmap2022Table({ layout, seed: SEED, tableBlocks: TABLE_BLOCKS });
    const q = bitmap2022Query(t, { selectivity: SELECTIVITY, seed: SEED });
    const table = bitmap2022TableName(layout);
    const cond = `a between ${q.lowValue} and ${q.highValue}`;
    for (const eic of layoutEics[layout]) {
      out.push({
        name: `${layout} ${SELECTIVITY * 100}% eic=${eic}`,
        table,
        sql: `select sum(length(padding)) from ${table} where ${cond}`,
        indexCondition: cond,
        eic,
      });
    }
  }
  const cond = `aid between ${PGBENCH.aidFrom} and ${PGBENCH.aidTo}`;
  for (const eic of [1, 16]) {
    out.push({
      name: `pgbench aid ${PGBENCH.aidFrom}..${PGBENCH.aidTo} eic=${eic}`,
      table: "pgbench_accounts",
      sql: `select * from pgbench_accounts where ${cond} and abalance != 0`,
      indexCondition: cond,
      eic,
    });
  }
  return out;
}

async function createTables(pg: Cluster): Promise<void> {
  for (const layout of BITMAP_2022_LAYOUTS) {
    await createBitmap2022Table(pg, layout, { seed: SEED, tableBlocks: TABLE_BLOCKS });
  }
  // pgbench -i's pgbench_accounts at scale 1, loaded in aid order (fillfactor 100).
  await pg.psql(
    `create table pgbench_accounts (aid int not null, bid int, abalance int, filler char(84)) with (autovacuum_enabled = off);
     insert into pgbench_accounts select g, 1, 0, '' from generate_series(1, ${100_000 * PGBENCH.scale}) g;
     alter table pgbench_accounts add primary key (aid);
     vacuum (freeze, analyze) pgbench_accounts;`,
  );
  await pg.psql(
    `create extension pg_prewarm;
     create table marker (id int) with (autovacuum_enabled = off);
     insert into marker values (1);
     create table filler (id int, pad text) with (fillfactor = 10, autovacuum_enabled = off);
     insert into filler select g, repeat('x', 500) from generate_series(1, ${FILLER_BLOCKS}) g;
     vacuum (freeze) filler; checkpoint;`,
  );
}

async function captureQuery(pg: Cluster, q: Query): Promise<BitmapCase> {
  const file = await relationFile(pg, q.table);
  const marker = await relationFile(pg, "marker");
  const tableBlocks = Number(await pg.psql(`select pg_relation_size('${q.table}') / 8192`));
  const bitmapRows = await pg.psql(
    `select (ctid::text::point)[0]::int, count(*) from ${q.table} where ${q.indexCondition} group by 1 order by 1`,
  );
  const bitmap: [number, number, number][] = [];
  for (const line of bitmapRows.split("\n")) {
    const [page, rows] = line.split("|").map(Number);
    const last = bitmap.at(-1);
    if (last !== undefined && last[0] + last[1] === page && last[2] === rows) last[1]++;
    else bitmap.push([page!, 1, rows!]);
  }
  await pg.psql("select pg_prewarm('filler')");
  // Planning may read the table (get_actual_variable_range probes the index and can visit
  // a heap page): the statement is planned first, then a read of the one-page `marker`
  // table marks where the execution traced below begins.
  const { result: out, events: all } = await traceSyscallsDuring(
    pg.postmasterPid(),
    { syscalls: [...RELATION_READ_TRACE, "fadvise64"] },
    () =>
      pg.psql(
        `${bitmapHeapScanOnly(q.eic)}
         prepare q as ${q.sql};
         explain (costs off) execute q;
         select count(*) from marker;
         explain (analyze, costs off, timing off, summary off) execute q;`,
      ),
  );
  const markerPath = `${marker.dataDir}/${marker.relPath}`;
  const start = all.findIndex(
    (e) => e.path === markerPath && (e.syscall === "pread64" || e.syscall === "read"),
  );
  if (start === -1) throw new Error("the marker table was not read: cannot tell planning from execution");
  const events = all.slice(start + 1);
  if (!/Bitmap Heap Scan/.test(out) || /lossy=/.test(out))
    throw new Error(`not an exact bitmap heap scan:\n${out}`);
  const blockEvents = relationBlockEvents(events, file);
  const pids = new Set(blockEvents.map((e) => e.pid));
  if (pids.size !== 1) throw new Error(`${pids.size} processes touched ${q.table}`);
  const tokens: string[] = [];
  for (const e of blockEvents) {
    for (let i = 0; i < e.blocks; i++) tokens.push(`${e.kind === "read" ? "r" : "a"}${e.startBlock + i}`);
  }
  return { name: q.name, tableBlocks, eic: q.eic, bitmap, events: tokens };
}

/** The prefetcher's reads and advice for a case. */
export function predictedEvents(
  c: BitmapCase,
  major: Major,
  m: BitmapMutation = {},
  model: PgModel = modelFor(major),
): string[] {
  const b = new HeapBitmapBuilder(c.tableBlocks);
  for (const [page, pages, rows] of c.bitmap)
    b.addRun(page, pages, { lossy: false, tuples: m.oneTuplePerPage ? 1 : rows });
  const scan = new BitmapHeapScanPrefetcher(b.build(), {
    effectiveIoConcurrency: Math.round(c.eic * (m.eicTimes ?? 1)),
    ...bitmapPrefetchOptions(model),
    ...(m.swapEicFormula
      ? { eicFormula: (bitmapPrefetchOptions(model).eicFormula === "pg84" ? "pg13" : "pg84") as EicFormula }
      : {}),
  });
  const read = new Set<number>();
  const env = { isBuffered: (block: number) => read.has(block) };
  const out: string[] = [];
  for (let step = scan.nextPage(env); step !== null; step = scan.nextPage(env)) {
    out.push(`r${step.page}`);
    read.add(step.page);
    for (const a of step.advice) for (let i = 0; i < a.blocks; i++) out.push(`a${a.firstBlock + i}`);
  }
  return out;
}

/** The data-set generator's bitmap for a case (null for the pgbench table). */
function generatorBitmap(c: BitmapCase): [number, number, number][] | null {
  const layout = BITMAP_2022_LAYOUTS.find((l) => c.name.startsWith(`${l} `));
  const pages = layout
    ? bitmap2022Query(bitmap2022Table({ layout, seed: SEED, tableBlocks: TABLE_BLOCKS }), {
        selectivity: SELECTIVITY,
        seed: SEED,
      }).bitmap
    : pgbenchAccountsBitmap(PGBENCH).bitmap;
  const out: [number, number, number][] = [];
  for (const r of pages.runs()) out.push([r.startBlock, r.pages, r.tuples]);
  return out;
}

export const bitmapPrefetch: Mechanism<BitmapCase, BitmapMutation> = {
  name: "bitmap-prefetch",
  title: "bitmap heap scan prefetch (advice order and distance)",
  mechanism: "bitmapPrefetch",
  observes: "strace of the backend: pread64 and fadvise64 per page, in order",
  about:
    "Serial bitmap heap scans of the bitmap-prefetch data-set generator's tables (3000 pages, 27 rows per page, layouts random, random-8, random-32, sequential; 5% of the values) and of a scale-1 pgbench_accounts, for several effective_io_concurrency values, with the table evicted from shared buffers: the backend's reads and posix_fadvise calls on the table, in order (r<block>, a<block>), and the bitmap read back from the ctids (runs [first page, pages, rows per page]). Captured by tooling/conformance (npm run capture -- bitmap-prefetch).",
  versions: [11, 13, 14, 15, 16, 17],
  settings: () => ({ shared_buffers: "16MB" }),
  async capture(pg) {
    await createTables(pg);
    const cases: BitmapCase[] = [];
    for (const q of queries()) cases.push(await captureQuery(pg, q));
    return cases;
  },
  replay(c, major, m, model = modelFor(major)) {
    if (model.bitmapPrefetch === "pg18") {
      // 18's model has no prefetcher: the scan is a read stream, which issues no per-page
      // advice ahead of synchronous 8 kB reads.
      return "the model runs the bitmap heap scan on a read stream (18+), the server prefetched page by page with posix_fadvise";
    }
    if (m === undefined) {
      const want = generatorBitmap(c);
      if (want !== null && JSON.stringify(want) !== JSON.stringify(c.bitmap)) {
        return `the server's bitmap ${JSON.stringify(c.bitmap.slice(0, 3))}... is not the data-set generator's ${JSON.stringify(want.slice(0, 3))}...`;
      }
    }
    return firstDifference(c.events, predictedEvents(c, major, m, model), "event");
  },
  sameAsFixture(live, fixture) {
    // Deterministic: the same bitmap, the same reads and advice in the same order.
    if (JSON.stringify(live.bitmap) !== JSON.stringify(fixture.bitmap)) return "a different bitmap";
    return firstDifference(fixture.events, live.events, "event");
  },
  mutations: [
    {
      name: "the other meaning of effective_io_concurrency (spindles from 13 on, the distance before)",
      mutation: { swapEicFormula: true },
    },
    { name: "prefetch distance twice effective_io_concurrency", mutation: { eicTimes: 2 } },
    { name: "no per-tuple prefetch_target increments", mutation: { oneTuplePerPage: true } },
  ],
};
