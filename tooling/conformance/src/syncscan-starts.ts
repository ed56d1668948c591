/**
 * Row "syncscan start, wrap, reports": where a seq scan of a table starts,
 * which pages it visits in what order, and what it leaves in the shared
 * syncscan list for the next scan, replayed through @scanlab/syncscan's
 * tracker and serial/parallel scan cycles (plus, from 17, the read stream
 * whose block requests carry the reports ahead of the page being processed).
 *
 * Capture: each case is a fresh table of ~3000 blocks (7 rows of 1 kB per
 * page; over NBuffers / 4 = 512 with shared_buffers 16 MB) and a short
 * sequence of scans in one session. A scan's pages are read from the ctids it
 * returns (`LIMIT` stops it part-way through a page); a complete scan
 * (`count(*)`) returns no pages. Before every scan a 5000-block filler table is
 * read into shared buffers with pg_prewarm (no ring), which evicts the test
 * table: every scan starts cold, so a 17+ stream sees only misses, as the
 * replay assumes. The second session of the concurrent case is a dblink
 * connection opened while the first session's cursor is still open.
 *
 * Replay (deterministic, exact): a fresh tracker per case; each scan starts
 * where the model says (the tracker's location when the scan may synchronize,
 * else 0), must visit exactly the pages the server visited, and reports what
 * the model says: up to 16, the blocks it moved to, the last multiple of 16
 * kept; from 17, the blocks its read stream asked for, which run ahead of the
 * page being processed by the stream's look-ahead at that moment. A complete
 * serial or parallel scan's last report is its own start block.
 */

import { createParallelScan } from "@scanlab/block-allocator";
import type { Cluster } from "@scanlab/pg-harness";
import type { PgModel } from "@scanlab/simulator";
import {
  beginParallelSyncScan,
  continueSerialScan,
  createSerialScan,
  InProcessSyncScanTracker,
  type SerialScan,
  SYNC_SCAN_REPORT_INTERVAL_BLOCKS,
  serialScanBlock,
  serialScanDone,
  syncScanEligible,
} from "@scanlab/syncscan";
import type { Major } from "./fixtures.js";
import type { CaseBase, Mechanism } from "./mechanism.js";
import { allocatorOf, modelFor, streamVersionOf } from "./models.js";
import { driveStream, readStreamSettings, type StreamSettings, streamOptions } from "./stream-replay.js";

/** One scan of a case. */
export interface SyncScanRecord {
  /** What the scan was. */
  label: string;
  /** synchronize_seqscans for the scan. */
  sync: boolean;
  /** Parallel (Gather) scan. */
  parallel: boolean;
  /** Read the whole table (count(*)): no pages recorded. */
  complete: boolean;
  /** Pages visited, in order, as runs [first page, pages]; the last page is the one the scan stopped on. */
  pages: [number, number][];
}

/** One case: a table and a sequence of scans. */
export interface SyncScanCase extends CaseBase {
  /** Table size in blocks. */
  nblocks: number;
  /** shared_buffers in buffers. */
  nbuffers: number;
  /** Read-stream settings (17+), else null. */
  stream: StreamSettings | null;
  /** The whole table was in shared buffers when the scans ran (else every scan started cold). */
  cached: boolean;
  /** Scans in order. */
  scans: SyncScanRecord[];
}

/** A wrong model: the report interval, or a look-ahead that ignores the stream. */
export interface SyncScanMutation {
  /** Report every `reportIntervalBlocks` blocks instead of 16. */
  reportIntervalBlocks?: number;
  /** Ignore the read stream's look-ahead (reports at the page being processed, as up to 16). */
  noLookahead?: boolean;
  /** The NBuffers divisor of the sync threshold (4). */
  thresholdDivisor?: number;
}

const BIG_ROWS = 21_000;
const SMALL_ROWS = 2_800;
const FILLER_BLOCKS = 5_000;
const BLOCK_OF_CTID = "(ctid::text::point)[0]::int";

function runsOf(blocks: number[]): [number, number][] {
  const pages = blocks.filter((b, i) => i === 0 || blocks[i - 1] !== b);
  const runs: [number, number][] = [];
  for (const p of pages) {
    const last = runs.at(-1);
    if (last !== undefined && last[0] + last[1] === p) last[1]++;
    else runs.push([p, 1]);
  }
  return runs;
}

function parseBlocks(out: string, prefix = ""): number[] {
  return out
    .split("\n")
    .filter((l) => new RegExp(`^${prefix}\\d+$`).test(l))
    .map((l) => Number(l.slice(prefix.length)));
}

/** Runs a case's scans on a fresh table and records them. */
class CaseRecorder {
  readonly scans: SyncScanRecord[] = [];
  constructor(
    private readonly pg: Cluster,
    readonly table: string,
  ) {}
  async evict(): Promise<void> {
    await this.pg.psql("select pg_prewarm('filler')");
  }
  /** `LIMIT` through a page: stop on page `pages - 1` counted from the scan's start. */
  async limit(label: string, rows: number, sync = true): Promise<number[]> {
    await this.evict();
    const out = await this.pg.psql(
      `set synchronize_seqscans = ${sync ? "on" : "off"}; set max_parallel_workers_per_gather = 0;
       select ${BLOCK_OF_CTID} from ${this.table} limit ${rows};`,
    );
    const blocks = parseBlocks(out);
    this.scans.push({ label, sync, parallel: false, complete: false, pages: runsOf(blocks) });
    return blocks;
  }
  async complete(label: string, parallel: boolean): Promise<void> {
    await this.evict();
    const setup = parallel
      ? `set max_parallel_workers_per_gather = 2; set parallel_setup_cost = 0; set parallel_tuple_cost = 0;
         set min_parallel_table_scan_size = 0; alter table ${this.table} set (parallel_workers = 2);`
      : "set max_parallel_workers_per_gather = 0;";
    const out = await this.pg.psql(
      `${setup} explain (analyze, costs off, timing off, summary off) select count(*) from ${this.table};`,
    );
    if (parallel && !/Workers Launched: 2/.test(out)) throw new Error(`no parallel scan:\n${out}`);
    this.scans.push({ label, sync: true, parallel, complete: true, pages: [] });
  }
  /** A cursor fetches `rows` and stays open while a second session's scan reads one row. */
  async concurrent(rows: number, evict = true): Promise<void> {
    if (evict) await this.evict();
    const pg = this.pg;
    const out = await pg.psql(`
      set max_parallel_workers_per_gather = 0;
      begin;
      declare c no scroll cursor for select ${BLOCK_OF_CTID} from ${this.table};
      fetch ${rows} from c;
      select 'second:' || b from dblink(
        'host=${pg.socketDir} port=${pg.port} dbname=postgres user=postgres options=-cmax_parallel_workers_per_gather=0',
        'select ${BLOCK_OF_CTID} from ${this.table} limit 1') as r(b int);
      commit;`);
    const first = parseBlocks(out);
    const second = parseBlocks(out, "second:");
    if (first.length !== rows || second.length !== 1) throw new Error(`unexpected cursor output:\n${out}`);
    this.scans.push({
      label: "cursor, left open",
      sync: true,
      parallel: false,
      complete: false,
      pages: runsOf(first),
    });
    this.scans.push({
      label: "second session, 1 row",
      sync: true,
      parallel: false,
      complete: false,
      pages: runsOf(second),
    });
  }
}

async function makeTable(pg: Cluster, table: string, rows: number): Promise<number> {
  await pg.psql(
    `create table ${table} (id int, pad text) with (autovacuum_enabled = off);
     insert into ${table} select g, repeat('x', 1000) from generate_series(1, ${rows}) g;
     vacuum (freeze, analyze) ${table};
     checkpoint;`,
  );
  return Number(await pg.psql(`select pg_relation_size('${table}') / 8192`));
}

const SETTINGS: Record<string, string | number | boolean> = {
  shared_buffers: "16MB",
  max_worker_processes: 8,
  max_parallel_workers: 8,
};

async function captureCases(pg: Cluster, major: Major): Promise<SyncScanCase[]> {
  await pg.psql("create extension dblink; create extension pg_prewarm;");
  await pg.psql(
    `create table filler (id int, pad text) with (fillfactor = 10, autovacuum_enabled = off);
     insert into filler select g, repeat('x', 500) from generate_series(1, ${FILLER_BLOCKS}) g;
     vacuum (freeze) filler; checkpoint;`,
  );
  const cases: SyncScanCase[] = [];
  let n = 0;
  const run = async (
    name: string,
    rows: number,
    body: (r: CaseRecorder, nblocks: number) => Promise<void>,
    restartAfterCreate = false,
    cached = false,
  ) => {
    const table = `s${++n}`;
    const nblocks = await makeTable(pg, table, rows);
    if (restartAfterCreate) await pg.restart();
    const stream = major >= 17 ? await readStreamSettings((sql) => pg.psql(sql)) : null;
    const nbuffers = Number(await pg.psql("select setting from pg_settings where name = 'shared_buffers'"));
    const r = new CaseRecorder(pg, table);
    await body(r, nblocks);
    cases.push({ name, nblocks, nbuffers, stream, cached, scans: r.scans });
  };
  const perPage = 7;
  await run("stop: a LIMIT leaves its last report, the next scan starts there", BIG_ROWS, async (r) => {
    await r.limit("limit through page 1003", perPage * 1003 + 2);
    await r.limit("next scan, 1 row", 1);
  });
  await run("wrap: a scan past the end wraps to 0", BIG_ROWS, async (r, nblocks) => {
    await r.limit("limit through page 1003", perPage * 1003 + 2);
    const [start] = await r.limit("next scan, 1 row", 1);
    await r.limit("past the end", perPage * (nblocks - start! + 40) + 3);
    await r.limit("next scan, 1 row", 1);
  });
  await run("complete: a whole scan leaves its own start", BIG_ROWS, async (r) => {
    await r.limit("limit through page 1003", perPage * 1003 + 2);
    await r.complete("count(*)", false);
    await r.limit("next scan, 1 row", 1);
  });
  await run("off: synchronize_seqscans off starts at 0 and reports nothing", BIG_ROWS, async (r) => {
    await r.limit("limit through page 1003", perPage * 1003 + 2);
    await r.limit("off, limit through page 700", perPage * 700 + 1, false);
    await r.limit("off, 1 row", 1, false);
    await r.limit("on, 1 row", 1);
  });
  await run("small: a table of NBuffers / 4 blocks or fewer never synchronizes", SMALL_ROWS, async (r) => {
    await r.limit("limit through page 300", perPage * 300 + 1);
    await r.limit("next scan, 1 row", 1);
  });
  await run("concurrent: a scan started while another runs", BIG_ROWS, async (r) => {
    await r.concurrent(perPage * 1500 + 5);
  });
  await run("parallel: a whole parallel scan leaves its own start", BIG_ROWS, async (r) => {
    await r.limit("limit through page 1003", perPage * 1003 + 2);
    await r.complete("parallel count(*)", true);
    await r.limit("next scan, 1 row", 1);
  });
  if (major >= 16) {
    // debug_io_direct (16+) needs a restart; the syncscan list is emptied by it, and the case's table is new.
    await pg.psql("alter system set debug_io_direct = 'data'");
    await pg.restart();
    await run("concurrent, direct I/O: a scan started while another runs", BIG_ROWS, async (r) => {
      await r.concurrent(perPage * 1500 + 5);
    });
  }
  if (major >= 17) {
    // The look-ahead is bounded by the backend's pin allowance, NBuffers / (MaxBackends +
    // auxiliary processes): with shared_buffers 512 MB and 100 connections it no longer limits
    // an eic 16 x io_combine_limit 16 stream. INSERT ... SELECT leaves the whole table in
    // shared buffers (no bulk-write ring), so the server restarts after creating it: cold.
    await pg.psql("alter system set shared_buffers = '512MB'; alter system set max_connections = 100");
    await pg.restart();
    await run(
      "concurrent, direct I/O, shared_buffers 512MB: a scan started while another runs",
      BIG_ROWS * 7,
      async (r) => {
        await r.concurrent(perPage * 5000 + 5);
      },
      true,
    );
    // The same with the table still in shared buffers after INSERT: every read is a hit.
    await run(
      "concurrent, cached, direct I/O, shared_buffers 512MB: a scan started while another runs",
      BIG_ROWS * 7,
      async (r) => {
        await r.concurrent(perPage * 5000 + 5, false);
      },
      false,
      true,
    );
  }
  return cases;
}

/** The model's scan for one record: start, pages visited, reports. */
function replayScan(
  c: SyncScanCase,
  rec: SyncScanRecord,
  tracker: InProcessSyncScanTracker,
  model: PgModel,
  m: SyncScanMutation,
): string | null {
  const key = 1;
  const nbuffers = m.thresholdDivisor === undefined ? c.nbuffers : (c.nbuffers * 4) / m.thresholdDivisor;
  const eligible = syncScanEligible({ nblocks: c.nblocks, nbuffers, synchronizeSeqscans: rec.sync });
  if (rec.parallel) {
    const scan = beginParallelSyncScan(tracker, { key, nblocks: c.nblocks, nbuffers });
    const p = createParallelScan(allocatorOf(model), { nblocks: c.nblocks }).join();
    for (let run = p.nextRun(); run !== null && run.op !== "none"; run = p.nextRun()) {
      scan.onRun((scan.startBlock + run.firstCounter) % c.nblocks, run.blocks);
    }
    scan.onScanEnd(scan.startBlock);
    return null;
  }
  const start = eligible ? tracker.getLocation(key, c.nblocks) : 0;
  let scan: SerialScan = createSerialScan({ nblocks: c.nblocks, startBlock: start, sync: eligible });
  const visited = rec.pages.reduce((s, [, k]) => s + k, 0);
  const predicted: number[] = [];
  if (model.syncscan !== "pg17" || m.noLookahead) {
    // Up to 16: finishing a block moves to the next and reports it (heapgettup_advance_block).
    predicted.push(start);
    const steps = rec.complete ? c.nblocks : visited - 1;
    for (let i = 0; i < steps && !serialScanDone(scan); i++) {
      scan = continueSerialScan(tracker, key, scan, 1).scan;
      const b = serialScanBlock(scan);
      if (b !== null) predicted.push(b);
    }
  } else {
    // 17+: the stream's callback advances (and reports) when the stream asks for the next block.
    let first = true;
    const source = (): number | null => {
      if (first) {
        first = false;
        return start;
      }
      if (serialScanDone(scan)) return null;
      scan = continueSerialScan(tracker, key, scan, 1).scan;
      return serialScanBlock(scan);
    };
    const bulkread = syncScanEligible({ nblocks: c.nblocks, nbuffers: c.nbuffers });
    const { blocks } = driveStream(
      source,
      streamOptions(streamVersionOf(model), c.stream ?? defaultStreamSettings(c), {
        sequential: true,
        bulkread,
      }),
      rec.complete ? null : visited,
      () => c.cached,
    );
    predicted.push(...blocks);
  }
  if (rec.complete) return null;
  const want = runsOf(predicted);
  if (JSON.stringify(want) !== JSON.stringify(rec.pages)) {
    return `${rec.label}: the server visited ${JSON.stringify(rec.pages.slice(0, 3))}${rec.pages.length > 3 ? "..." : ""}, the model ${JSON.stringify(want.slice(0, 3))}${want.length > 3 ? "..." : ""}`;
  }
  return null;
}

/**
 * The stream settings of a capture that recorded none (up to 16, whose
 * servers have no read streams): 17's defaults (effective_io_concurrency 1,
 * io_combine_limit 16) on the case's shared_buffers, for replaying a
 * look-ahead model against it.
 */
function defaultStreamSettings(c: SyncScanCase): StreamSettings {
  return {
    eic: 1,
    ioCombineLimit: 16,
    ioMaxCombineLimit: null,
    ioMethod: "sync",
    nBuffers: c.nbuffers,
    maxConnections: 100,
    directIo: /direct I\/O/.test(c.name),
  };
}

function replayCase(
  c: SyncScanCase,
  major: Major,
  m: SyncScanMutation = {},
  model: PgModel = modelFor(major),
): string | null {
  // The simulator has one switch for both: a seq scan runs on a read stream, and reports at
  // its look-ahead, exactly when its version has read streams (participants.ts).
  if ((model.syncscan === "pg17") !== (model.readStreams !== "none"))
    return `syncscan ${model.syncscan} with read streams ${model.readStreams}: the simulator reports at the look-ahead exactly when seq scans run on read streams`;
  const tracker = new InProcessSyncScanTracker(
    m.reportIntervalBlocks === undefined ? {} : { reportIntervalBlocks: m.reportIntervalBlocks },
  );
  const interval = m.reportIntervalBlocks ?? SYNC_SCAN_REPORT_INTERVAL_BLOCKS;
  for (const [i, rec] of c.scans.entries()) {
    const prev = c.scans[i - 1];
    if (prev?.parallel && rec.sync && rec.pages.length > 0) {
      // Not deterministic: a participant claims a block (an atomic fetch-add) and reports
      // it a moment later (table_block_parallelscan_nextpage); if it is descheduled in
      // between while another participant makes the final claim and reports the start
      // block, its late report wins. So after a parallel scan the next scan starts at the
      // parallel scan's start block (the model), or, after such a race, at a block the
      // parallel scan reported: a multiple of the report interval inside the table.
      const observed = rec.pages[0]![0];
      if (observed % interval === 0 && observed < c.nblocks) tracker.reportLocation(1, observed);
    }
    const problem = replayScan(c, rec, tracker, model, m);
    if (problem !== null) return problem;
  }
  return null;
}

export const syncscanStarts: Mechanism<SyncScanCase, SyncScanMutation> = {
  name: "syncscan",
  title: "syncscan start, wrap, reports (serial, parallel, 17+ look-ahead)",
  mechanism: "syncscan",
  observes:
    "ctids each scan returned (pages visited, where it started), a cursor + dblink for concurrent scans",
  about:
    "Sequences of seq scans on fresh ~3000-block tables (shared_buffers 16MB): the pages each scan visited, from the ctids it returned (runs [first page, pages]); complete scans record none. Shared buffers are evicted before every scan (pg_prewarm of a 5000-block filler). Captured by tooling/conformance (npm run capture -- syncscan).",
  versions: [11, 13, 14, 15, 16, 17, 18],
  settings: () => SETTINGS,
  capture: captureCases,
  replay: (c, major, m, model) => replayCase(c, major, m, model),
  sameAsFixture(live, fixture, major) {
    // Deterministic: the same pages in the same order (the tables are built the same way),
    // except right after a parallel scan (see replayCase): there the rule is the replay's.
    if (live.nblocks !== fixture.nblocks)
      return `table of ${live.nblocks} blocks, the fixture's had ${fixture.nblocks}`;
    const rule = replayCase(live, major);
    if (rule !== null) return rule;
    for (const [i, rec] of fixture.scans.entries()) {
      const l = live.scans[i];
      if (fixture.scans[i - 1]?.parallel) continue;
      if (l === undefined || JSON.stringify(l.pages) !== JSON.stringify(rec.pages))
        return `${rec.label}: live ${JSON.stringify(l?.pages.slice(0, 3))}, fixture ${JSON.stringify(rec.pages.slice(0, 3))}`;
    }
    return null;
  },
  mutations: [
    { name: "report every 8 blocks instead of 16", mutation: { reportIntervalBlocks: 8 } },
    {
      name: "reports at the page being processed from 17 on (no read-stream look-ahead)",
      mutation: { noLookahead: true },
    },
    { name: "sync threshold NBuffers / 8 instead of / 4", mutation: { thresholdDivisor: 8 } },
  ],
};
