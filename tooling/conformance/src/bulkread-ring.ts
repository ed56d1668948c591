/**
 * Row "bulk-read ring": what a sequential scan of a table larger than
 * NBuffers / 4 leaves in shared buffers. Such a scan recycles a small ring of
 * buffers (BAS_BULKREAD, freelist.c GetAccessStrategy) instead of filling the
 * pool: 256 kB = 32 buffers up to 17; from 18, 256 kB + io_combine_limit x
 * effective_io_concurrency blocks, at most the backend pin allowance (and at
 * least 256 kB); always at most NBuffers / 8. The ring sizes are the models'
 * (bulkReadRingBuffers of @scanlab/bitmap-prefetch for 17+, which the
 * simulator's own ring sizing follows; 32 before).
 *
 * Capture: shared_buffers 128 MB (16384 buffers; rings up to 2048), a
 * 5000-block table, a restart (cold), then two scans from block 0
 * (synchronize_seqscans off, no parallel workers) with EXPLAIN (ANALYZE,
 * BUFFERS), and pg_buffercache's count of the table's buffers after each.
 *
 * Replay (deterministic, exact): the first scan reads every block and leaves
 * its ring's R buffers (the last R blocks); the second reads the table again
 * through a new ring, taking fresh buffers from the free list, so the first
 * ring's blocks survive until it reaches them: R hits, n - R reads, and 2R of
 * the table's blocks in shared buffers afterwards.
 */

import type { Cluster } from "@scanlab/pg-harness";
import { BULKREAD_RING_BASE_KB, bulkReadRingBuffers, DEFAULT_PROCS_PG18 } from "@scanlab/read-stream";
import type { PgModel } from "@scanlab/simulator";
import type { Major } from "./fixtures.js";
import type { CaseBase, Mechanism } from "./mechanism.js";
import { modelFor } from "./models.js";

/** Two scans of one table. */
export interface RingCase extends CaseBase {
  /** Table size in blocks. */
  nblocks: number;
  /** shared_buffers in buffers. */
  nBuffers: number;
  /** max_connections. */
  maxConnections: number;
  /** effective_io_concurrency of the scans. */
  eic: number;
  /** io_combine_limit in blocks (17+), else null. */
  ioCombineLimit: number | null;
  /** EXPLAIN BUFFERS of each scan: shared hit and read. */
  scans: { hit: number; read: number }[];
  /** pg_buffercache: the table's buffers after each scan. */
  buffered: number[];
}

/** A wrong ring. */
export interface RingMutation {
  /** The ring size every version had before 18, for every version. */
  pre18Everywhere?: boolean;
  /** A different base size in kB (256). */
  baseKb?: number;
}

const ROWS = 35_000; // 7 rows of 1 kB per page: 5000 blocks

/** The model's ring size for a case. */
export function ringBuffers(
  c: RingCase,
  major: Major,
  m: RingMutation = {},
  model: PgModel = modelFor(major),
): number {
  const baseKb = m.baseKb ?? BULKREAD_RING_BASE_KB;
  const v18 = model.ring === "pg18";
  if (!v18 || m.pre18Everywhere || m.baseKb !== undefined) {
    if (v18 && m.baseKb !== undefined) {
      // the 18 formula with another base
      const pin = Math.floor(c.nBuffers / (c.maxConnections - 100 + DEFAULT_PROCS_PG18));
      const kb = Math.min(baseKb + 8 * c.eic * (c.ioCombineLimit ?? 16), Math.max(baseKb, pin * 8));
      return Math.min(Math.floor(c.nBuffers / 8), Math.floor(kb / 8));
    }
    return Math.min(Math.floor(c.nBuffers / 8), Math.floor(baseKb / 8));
  }
  return bulkReadRingBuffers(18, {
    nBuffers: c.nBuffers,
    maxBackendsPlusAuxiliary: c.maxConnections - 100 + DEFAULT_PROCS_PG18,
    ioCombineLimit: c.ioCombineLimit ?? 16,
    effectiveIoConcurrency: c.eic,
  });
}

async function capture(pg: Cluster, major: Major): Promise<RingCase[]> {
  await pg.psql(
    `create extension pg_buffercache;
     create table t (id int, pad text) with (autovacuum_enabled = off);
     insert into t select g, repeat('x', 1000) from generate_series(1, ${ROWS}) g;
     vacuum (freeze) t; checkpoint;`,
  );
  const nblocks = Number(await pg.psql("select pg_relation_size('t') / 8192"));
  const cases: RingCase[] = [];
  const eics = major >= 18 ? [16, 1] : [1];
  for (const eic of eics) {
    await pg.restart();
    const set = `set synchronize_seqscans = off; set max_parallel_workers_per_gather = 0; set effective_io_concurrency = ${eic};`;
    const scans: { hit: number; read: number }[] = [];
    const buffered: number[] = [];
    for (let i = 0; i < 2; i++) {
      const out = await pg.psql(
        `${set} explain (analyze, buffers, costs off, timing off, summary off) select count(*) from t;`,
      );
      // The scan node's own Buffers line (not the planner's, which 13+ print after "Planning:").
      const node = /Seq Scan on t[^\n]*\n(?:[^\n]*\n)*?\s*Buffers: ([^\n]*)/.exec(out);
      if (node === null) throw new Error(`not a seq scan with buffer counts:\n${out}`);
      const hit = Number(/shared hit=(\d+)/.exec(node[1]!)?.[1] ?? 0);
      const read = Number(/read=(\d+)/.exec(node[1]!)?.[1] ?? 0);
      scans.push({ hit, read });
      buffered.push(
        Number(
          await pg.psql(
            "select count(*) from pg_buffercache where relfilenode = pg_relation_filenode('t') and reldatabase = (select oid from pg_database where datname = current_database())",
          ),
        ),
      );
    }
    const icl =
      major >= 17
        ? Number(
            /^(\d+)/.exec(
              await pg.psql("select setting from pg_settings where name = 'io_combine_limit'"),
            )?.[1],
          )
        : null;
    cases.push({
      name: `eic=${eic}`,
      nblocks,
      nBuffers: Number(await pg.psql("select setting from pg_settings where name = 'shared_buffers'")),
      maxConnections: Number(await pg.psql("show max_connections")),
      eic,
      ioCombineLimit: icl,
      scans,
      buffered,
    });
  }
  return cases;
}

export const bulkreadRing: Mechanism<RingCase, RingMutation> = {
  name: "bulkread-ring",
  title: "bulk-read ring: what a second scan finds in shared buffers",
  mechanism: "ring",
  observes: "EXPLAIN (ANALYZE, BUFFERS) shared hit/read and pg_buffercache after each of two scans",
  about:
    "Two cold-started seq scans from block 0 of a 5000-block table with shared_buffers 128MB (synchronize_seqscans off, no workers): EXPLAIN (ANALYZE, BUFFERS) shared hit/read of each, and pg_buffercache's count of the table's buffers after each. Captured by tooling/conformance (npm run capture -- bulkread-ring).",
  versions: [11, 13, 14, 15, 16, 17, 18],
  settings: () => ({ shared_buffers: "128MB" }),
  capture,
  replay(c, major, m, model = modelFor(major)) {
    const r = ringBuffers(c, major, m, model);
    const want = {
      scans: [
        { hit: 0, read: c.nblocks },
        { hit: r, read: c.nblocks - r },
      ],
      buffered: [r, 2 * r],
    };
    const got = { scans: c.scans, buffered: c.buffered };
    return JSON.stringify(want) === JSON.stringify(got)
      ? null
      : `ring of ${r} buffers: the model expects ${JSON.stringify(want)}, the server did ${JSON.stringify(got)}`;
  },
  sameAsFixture(live, fixture) {
    return JSON.stringify([live.scans, live.buffered]) === JSON.stringify([fixture.scans, fixture.buffered])
      ? null
      : `live ${JSON.stringify([live.scans, live.buffered])}, fixture ${JSON.stringify([fixture.scans, fixture.buffered])}`;
  },
  mutations: [
    { name: "a 32-buffer ring in every version (no 18 formula)", mutation: { pre18Everywhere: true } },
    { name: "base ring 128 kB instead of 256 kB", mutation: { baseKb: 128 } },
  ],
};
