/**
 * Row "PG18 io_method: who issues each read". With io_method=sync a backend
 * reads for itself (a preadv when the scan reaches the read); with
 * io_method=worker it hands each read to one of the I/O workers when the read
 * starts and only waits for it, except when effective_io_concurrency is 0,
 * which makes the stream read synchronously in the backend
 * (READ_BUFFERS_SYNCHRONOUSLY). io_uring does not exist in the builds the
 * matrix runs (no liburing), so it is not captured.
 *
 * Capture: io_method is set at server start, so the server is restarted for
 * each; strace follows the postmaster and its future children and, attached by
 * pid, the I/O workers already running. A cold sequential scan of a
 * 3000-block table: which process made each preadv / pread64 of the table,
 * the backend or an I/O worker.
 *
 * Replay: whether the read stream model (stream-replay.ts) starts the scan's
 * reads asynchronously. Rule (which worker takes which read is timing): every
 * read is made by the backend when the model reads synchronously, by an I/O
 * worker when it reads asynchronously, and every block is read once. The
 * sizes of the reads are the read-streams row's business.
 */

import { readdirSync, readFileSync } from "node:fs";
import {
  type Cluster,
  RELATION_READ_TRACE,
  relationBlockEvents,
  relationFile,
  traceSyscallsDuring,
} from "@scanlab/pg-harness";
import type { CaseBase, Mechanism } from "./mechanism.js";
import { modelFor } from "./models.js";
import { driveStream, readStreamSettings, type StreamSettings, streamOptions } from "./stream-replay.js";

/** One traced scan. */
export interface IoMethodCase extends CaseBase {
  /** Table size in blocks. */
  nblocks: number;
  /** Server settings. */
  stream: StreamSettings;
  /** Reads of the table: [first block, blocks, "backend" | "io worker"], in time order. */
  reads: [number, number, "backend" | "io worker"][];
}

/** A wrong model of who reads. */
export interface IoMethodMutation {
  /** Reads are asynchronous whenever io_method is not sync (ignores eic 0). */
  asyncIgnoresEic0?: boolean;
  /** The backend always reads (no I/O workers). */
  neverAsync?: boolean;
}

const ROWS = 21_000;
const FILLER_BLOCKS = 5000;

/** Pids of the running I/O workers (children of the postmaster named "io worker"). */
function ioWorkerPids(postmaster: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== postmaster) continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("io worker")) out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

async function captureScan(pg: Cluster, name: string, eic: number): Promise<IoMethodCase> {
  const file = await relationFile(pg, "t");
  await pg.psql("select pg_prewarm('filler')");
  const postmaster = pg.postmasterPid();
  const workers = ioWorkerPids(postmaster);
  const { events: calls } = await traceSyscallsDuring(
    [postmaster, ...workers],
    { syscalls: RELATION_READ_TRACE },
    () =>
      pg.psql(
        `set max_parallel_workers_per_gather = 0; set effective_io_concurrency = ${eic};
       select count(*) from t;`,
      ),
  );
  const events = relationBlockEvents(calls, file).filter((e) => e.kind === "read");
  const stream = await readStreamSettings((sql) => pg.psql(`set effective_io_concurrency = ${eic}; ${sql}`));
  const workerSet = new Set(workers);
  return {
    name,
    nblocks: Number(await pg.psql("select pg_relation_size('t') / 8192")),
    stream,
    reads: events.map((e) => [e.startBlock, e.blocks, workerSet.has(e.pid) ? "io worker" : "backend"]),
  };
}

async function capture(pg: Cluster): Promise<IoMethodCase[]> {
  await pg.psql(
    `create extension pg_prewarm;
     create table t (id int, pad text) with (autovacuum_enabled = off);
     insert into t select g, repeat('x', 1000) from generate_series(1, ${ROWS}) g;
     create table filler (id int, pad text) with (fillfactor = 10, autovacuum_enabled = off);
     insert into filler select g, repeat('x', 500) from generate_series(1, ${FILLER_BLOCKS}) g;
     vacuum (freeze) t; vacuum (freeze) filler; checkpoint;`,
  );
  const cases: IoMethodCase[] = [];
  for (const method of ["sync", "worker"] as const) {
    await pg.psql(`alter system set io_method = '${method}'`);
    await pg.restart();
    for (const eic of method === "sync" ? [16] : [16, 0]) {
      cases.push(await captureScan(pg, `io_method=${method} eic=${eic}`, eic));
    }
  }
  return cases;
}

/** The model's reads and who makes them. */
export function predictedReads(
  c: IoMethodCase,
  m: IoMethodMutation = {},
): [number, number, "backend" | "io worker"][] {
  let next = 0;
  const options = streamOptions(18, c.stream, { sequential: true, bulkread: true });
  const { reads, stream } = driveStream(() => (next < c.nblocks ? next++ : null), options, null);
  let async = stream.config.asyncReads;
  if (m.asyncIgnoresEic0) async = c.stream.ioMethod !== "sync";
  if (m.neverAsync) async = false;
  return reads.map((r) => [r.firstBlock, r.blocks, async ? "io worker" : "backend"]);
}

const key = (r: [number, number, string]) => r.join(":");

export const ioMethod: Mechanism<IoMethodCase, IoMethodMutation> = {
  name: "io-method",
  title: "PG18 io_method sync vs worker: who issues each read",
  mechanism: "readStreams",
  observes: "strace of the backend and the I/O workers: preadv, and which process made it",
  about:
    "Cold sequential scans of a 3000-block table on PostgreSQL 18 with io_method=sync (eic 16) and io_method=worker (eic 16 and 0), shared_buffers 16MB: every preadv/pread64 of the table as [first block, blocks, backend | io worker], traced on the postmaster's children and the running I/O workers. The builds have no liburing, so io_uring is not captured. Captured by tooling/conformance (npm run capture -- io-method).",
  versions: [18],
  settings: () => ({ shared_buffers: "16MB" }),
  capture: (pg) => capture(pg),
  replay(c, major, m, model = modelFor(major)) {
    if (model.readStreams !== "pg18" && model.readStreams !== "pg19")
      return `the model has no io_method (read streams ${model.readStreams}): every read is the backend's own`;
    const issuer = predictedReads(c, m)[0]?.[2] ?? "backend";
    const wrong = c.reads.filter((r) => r[2] !== issuer);
    if (wrong.length > 0) {
      return `${wrong.length} of ${c.reads.length} reads were made by ${wrong[0]![2] === "backend" ? "the backend" : "an I/O worker"}, the model has every read made by ${issuer === "backend" ? "the backend" : "an I/O worker"}`;
    }
    const blocks = new Set<number>();
    for (const [first, n] of c.reads) for (let i = 0; i < n; i++) blocks.add(first + i);
    if (blocks.size !== c.nblocks) return `${blocks.size} of ${c.nblocks} blocks were read`;
    return null;
  },
  sameAsFixture(live, fixture) {
    // Which worker takes which read is timing: the same reads by the same kind of process.
    const a = live.reads.map(key).sort();
    const b = fixture.reads.map(key).sort();
    return JSON.stringify(a) === JSON.stringify(b) ? null : "different reads or different issuers";
  },
  mutations: [
    { name: "asynchronous whenever io_method=worker (eic 0 ignored)", mutation: { asyncIgnoresEic0: true } },
    { name: "the backend always reads itself", mutation: { neverAsync: true } },
  ],
};
