/**
 * Row "read streams" (PostgreSQL 17 and 18): how a read stream sizes and
 * combines its reads and when it advises, replayed through the ReadStream of
 * @scanlab/read-stream with the server's settings (stream-replay.ts).
 *
 * Capture, one backend, everything evicted from shared buffers first (a
 * pg_prewarm of a larger filler table), strace of the backend's preadv /
 * pread64 and fadvise64 on the table, in order:
 * - sequential scans of a 3000-block table (over NBuffers / 4 with
 *   shared_buffers 16 MB: the BULKREAD ring) with io_combine_limit 1, 8, 16
 *   and 32 (18: io_max_combine_limit raised to 32 at start-up);
 * - ANALYZE of the same table with a statistics target of 1 (300 sampled
 *   blocks, ascending with gaps: the stream's advice for jumps and its
 *   "no advice for a read that continues the previous one" rule), with
 *   maintenance_io_concurrency 1 and 16 (ANALYZE's stream is a maintenance
 *   stream);
 * - 18: bitmap heap scans (a read stream from 18 on) of the random and
 *   random-8 data-set tables for effective_io_concurrency 0, 1 and 16.
 * 18 runs with io_method=sync here, so the backend makes every call; the
 * io-method row covers the I/O workers.
 *
 * Replay (deterministic, exact): the stream over the same block sequence (the
 * whole table for a seq scan; for ANALYZE the blocks the sampler chose, which
 * are exactly the blocks read, ascending; for a bitmap heap scan the bitmap's
 * pages) must make the same calls in the same order: advice when a read is
 * started, the preadv when the scan reaches it.
 *
 * ANALYZE reads through a BAS_VACUUM ring (vacuum_buffer_usage_limit), which
 * the model has no strategy for; it runs with no strategy, which gives the same
 * stream here because the backend pin allowance (NBuffers / (MaxBackends +
 * auxiliary processes)) is the smaller limit. That allowance is checked before
 * every read from 18 on against bufmgr.c's estimate of the pins held, which
 * depends on how the consumer pins the pages it gets: ANALYZE releases each
 * sampled page before asking for the next, a scan keeps the previous page in
 * its tuple slot (the stream's `consumerRelease`; @scanlab/read-stream's
 * private-refcount.ts tells why the order of pins matters).
 */

import {
  type Cluster,
  RELATION_READ_TRACE,
  relationBlockEvents,
  relationFile,
  traceSyscallsDuring,
} from "@scanlab/pg-harness";
import type { PgModel } from "@scanlab/simulator";
import { syncScanEligible } from "@scanlab/syncscan";
import { bitmap2022Query, bitmap2022Table } from "@scanlab/workloads";
import { bitmap2022TableName, bitmapHeapScanOnly, createBitmap2022Table } from "./data-set-tables.js";
import type { Major } from "./fixtures.js";
import { type CaseBase, firstDifference, type Mechanism } from "./mechanism.js";
import { modelFor, streamVersionOf } from "./models.js";
import { driveStream, readStreamSettings, type StreamSettings, streamOptions } from "./stream-replay.js";

/** One traced stream. */
export interface StreamCase extends CaseBase {
  /** What read through the stream. */
  kind: "seqscan" | "analyze" | "bitmap";
  /** Table size in blocks. */
  nblocks: number;
  /** The server's settings (eic is maintenance_io_concurrency for ANALYZE). */
  stream: StreamSettings;
  /** Bitmap heap scans: the bitmap's pages, as runs [first, pages]. */
  pages: [number, number][] | null;
  /** The backend's calls on the table, in order: r<first>+<n> read, a<first>+<n> advice. */
  calls: string[];
}

/** A wrong stream. */
export interface StreamMutation {
  /** Override io_combine_limit. */
  ioCombineLimit?: number;
  /** Advise every read (ignore the sequential rule). */
  adviseAll?: boolean;
  /** Scale the backend pin allowance (MaxBackends wrong). */
  maxBackendsTimes?: number;
  /** ANALYZE keeps each page in its tuple slot until the next, as a scan does. */
  analyzeKeepsPrevious?: boolean;
}

const NBLOCKS_ROWS = 21_000; // 7 rows of 1 kB per page: 3000 blocks
const FILLER_BLOCKS = 5000;
const SEED = 1;
/** The data-set tables of 18's bitmap heap scans (data-set-tables.ts). */
const BITMAP_LAYOUTS = ["random", "random-8"] as const;
const BITMAP_TABLE_BLOCKS = 3000;

async function setup(pg: Cluster, major: Major): Promise<void> {
  await pg.psql(
    `create extension pg_prewarm;
     create table t (id int, pad text) with (autovacuum_enabled = off);
     insert into t select g, repeat('x', 1000) from generate_series(1, ${NBLOCKS_ROWS}) g;
     alter table t alter column id set statistics 1; alter table t alter column pad set statistics 1;
     create table filler (id int, pad text) with (fillfactor = 10, autovacuum_enabled = off);
     insert into filler select g, repeat('x', 500) from generate_series(1, ${FILLER_BLOCKS}) g;
     vacuum (freeze) t; vacuum (freeze) filler; checkpoint;`,
  );
  if (major >= 18) {
    for (const layout of BITMAP_LAYOUTS) {
      await createBitmap2022Table(pg, layout, { seed: SEED, tableBlocks: BITMAP_TABLE_BLOCKS });
    }
    await pg.psql("checkpoint");
  }
}

async function traced(pg: Cluster, table: string, sql: string): Promise<{ calls: string[]; out: string }> {
  const file = await relationFile(pg, table);
  await pg.psql("select pg_prewarm('filler')");
  const { result: out, events: calls } = await traceSyscallsDuring(
    pg.postmasterPid(),
    { syscalls: [...RELATION_READ_TRACE, "fadvise64"] },
    () => pg.psql(sql),
  );
  const events = relationBlockEvents(calls, file);
  const pids = new Set(events.map((e) => e.pid));
  if (pids.size !== 1) throw new Error(`${pids.size} processes touched ${table}`);
  return { calls: events.map((e) => `${e.kind === "read" ? "r" : "a"}${e.startBlock}+${e.blocks}`), out };
}

async function capture(pg: Cluster, major: Major): Promise<StreamCase[]> {
  await setup(pg, major);
  const cases: StreamCase[] = [];
  const nblocks = Number(await pg.psql("select pg_relation_size('t') / 8192"));
  for (const icl of [1, 8, 16, 32]) {
    const set = `set io_combine_limit = ${icl}; set max_parallel_workers_per_gather = 0;`;
    const { calls } = await traced(pg, "t", `${set} select count(*) from t;`);
    const stream = await readStreamSettings((sql) => pg.psql(`${set} ${sql}`));
    cases.push({
      name: `seqscan io_combine_limit=${icl}`,
      kind: "seqscan",
      nblocks,
      stream,
      pages: null,
      calls,
    });
  }
  for (const mic of [1, 16]) {
    const set = `set maintenance_io_concurrency = ${mic};`;
    const { calls } = await traced(pg, "t", `${set} analyze t;`);
    const stream = await readStreamSettings((sql) => pg.psql(`${set} ${sql}`));
    stream.eic = mic;
    cases.push({
      name: `analyze maintenance_io_concurrency=${mic}`,
      kind: "analyze",
      nblocks,
      stream,
      pages: null,
      calls,
    });
  }
  if (major >= 18) {
    for (const layout of BITMAP_LAYOUTS) {
      const table = bitmap2022TableName(layout);
      const q = bitmap2022Query(bitmap2022Table({ layout, seed: SEED, tableBlocks: BITMAP_TABLE_BLOCKS }), {
        selectivity: 0.05,
        seed: SEED,
      });
      const pages: [number, number][] = [...q.bitmap.runs()].map((r) => [r.startBlock, r.pages]);
      for (const eic of layout === "random" ? [0, 1, 16] : [16]) {
        const set = bitmapHeapScanOnly(eic);
        const { calls, out } = await traced(
          pg,
          table,
          `${set} explain (analyze, costs off, timing off, summary off)
             select sum(length(padding)) from ${table} where a between ${q.lowValue} and ${q.highValue};`,
        );
        if (!/Bitmap Heap Scan/.test(out)) throw new Error(`not a bitmap heap scan:\n${out}`);
        const stream = await readStreamSettings((sql) => pg.psql(`${set} ${sql}`));
        cases.push({
          name: `bitmap ${layout} eic=${eic}`,
          kind: "bitmap",
          nblocks: BITMAP_TABLE_BLOCKS,
          stream,
          pages,
          calls,
        });
      }
    }
  }
  return cases;
}

/** The blocks a case's stream reads, in order. */
function sourceBlocks(c: StreamCase): number[] {
  if (c.kind === "seqscan") return Array.from({ length: c.nblocks }, (_, i) => i);
  if (c.kind === "bitmap") return c.pages!.flatMap(([s, n]) => Array.from({ length: n }, (_, i) => s + i));
  // ANALYZE: the sampled blocks are the blocks read, ascending.
  const blocks = new Set<number>();
  for (const call of c.calls) {
    if (!call.startsWith("r")) continue;
    const [first, n] = call.slice(1).split("+").map(Number);
    for (let i = 0; i < n!; i++) blocks.add(first! + i);
  }
  return [...blocks].sort((a, b) => a - b);
}

/** The model's calls for a case. */
export function predictedCalls(
  c: StreamCase,
  major: Major,
  m: StreamMutation = {},
  model: PgModel = modelFor(major),
): string[] {
  const blocks = sourceBlocks(c);
  let i = 0;
  const stream = { ...c.stream, ioCombineLimit: m.ioCombineLimit ?? c.stream.ioCombineLimit };
  if (m.maxBackendsTimes !== undefined) {
    stream.maxConnections = Math.round((stream.maxConnections + 100) * m.maxBackendsTimes) - 100;
  }
  const options = streamOptions(streamVersionOf(model), stream, {
    sequential: c.kind === "seqscan",
    bulkread: c.kind === "seqscan" && syncScanEligible({ nblocks: c.nblocks, nbuffers: c.stream.nBuffers }),
    perBufferData: c.kind === "bitmap",
    // ANALYZE lets go of each sampled page before asking for the next; scans keep it in their slot.
    releaseBeforeNext: c.kind === "analyze" && !m.analyzeKeepsPrevious,
  });
  const { syscalls } = driveStream(() => blocks[i++] ?? null, options, null);
  if (!m.adviseAll) return syscalls;
  // advice before every read the backend makes
  return syscalls.flatMap((s) =>
    s.startsWith("r") && !syscalls.includes(`a${s.slice(1)}`) ? [`a${s.slice(1)}`, s] : [s],
  );
}

export const readStreams: Mechanism<StreamCase, StreamMutation> = {
  name: "read-streams",
  title: "read streams: read sizes, combining, advice",
  mechanism: "readStreams",
  observes: "strace of the backend: preadv/pread64 sizes and fadvise64, in order",
  about:
    "One backend's preadv/pread64 and posix_fadvise calls on the table (r<first>+<blocks>, a<first>+<blocks>, in order) for cold sequential scans of a 3000-block table with io_combine_limit 1/8/16/32, ANALYZE with a statistics target of 1 (maintenance_io_concurrency 1 and 16), and on 18 bitmap heap scans of the data-set generator's random and random-8 tables; shared_buffers 16MB, io_method sync on 18. Captured by tooling/conformance (npm run capture -- read-streams).",
  versions: [17, 18],
  settings: (major): Record<string, string | number | boolean> =>
    major >= 18
      ? { shared_buffers: "16MB", io_method: "sync", io_max_combine_limit: 32 }
      : { shared_buffers: "16MB" },
  capture,
  replay(c, major, m, model = modelFor(major)) {
    if (model.readStreams === "none") return "the model has no read streams: one 8 kB read per block";
    return firstDifference(c.calls, predictedCalls(c, major, m, model), "call");
  },
  sameAsFixture(live, fixture) {
    // Deterministic except ANALYZE's sample (random blocks): there the replay is the rule.
    if (live.kind === "analyze") return null;
    return firstDifference(fixture.calls, live.calls, "call");
  },
  mutations: [
    { name: "io_combine_limit 8 whatever the setting", mutation: { ioCombineLimit: 8 } },
    { name: "advice for every read (no sequential rule)", mutation: { adviseAll: true } },
    { name: "MaxBackends twice as large (backend pin allowance halved)", mutation: { maxBackendsTimes: 2 } },
    {
      name: "ANALYZE holds the previous page in its slot, as a scan does (PG18+ pin check)",
      mutation: { analyzeKeepsPrevious: true },
    },
  ],
};
