/**
 * A cold parallel seq scan, traced: which process read which block of a
 * table of one row per block. The capture behind every check of the
 * parallel block allocator against a real server.
 *
 * Capture: synchronize_seqscans off (start block 0, so counter value = block
 * number), a restart before each scan (cold shared buffers), strace on the
 * postmaster and everything it forks, `count(*)` through Gather. Up to 16
 * every heap block is one pread64; from 17 the read stream combines a
 * process's consecutive blocks into one preadv, which maps to the same
 * blocks. Each process's reads are compressed to runs of blocks.
 */
import type { Cluster } from "./cluster.js";
import { type BlockRange, traceRelationReads } from "./relation-reads.js";

/**
 * Settings of the capture cluster. shared_buffers 16 MB (2048 buffers) is far
 * below the tables, and the cluster is restarted before each scan anyway.
 * synchronize_seqscans off makes the start block 0 (it would be off anyway only
 * for tables <= NBuffers/4 = 512 blocks, apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state). Parallel costs are
 * zeroed and seq_page_cost is 0 so the planner always prefers the parallel
 * plan: with one row per page the I/O cost dominates and a 4-worker plan would
 * otherwise be within the planner's 1% fuzz of the serial one and lose.
 */
export const PARALLEL_SCAN_SETTINGS: Readonly<Record<string, string | number | boolean>> = {
  shared_buffers: "16MB",
  synchronize_seqscans: false,
  max_worker_processes: 8,
  max_parallel_workers: 8,
  max_parallel_workers_per_gather: 8,
  parallel_setup_cost: 0,
  parallel_tuple_cost: 0,
  min_parallel_table_scan_size: 0,
  seq_page_cost: 0,
};

/**
 * Creates a table of exactly `nblocks` blocks: fillfactor 10 and 500-byte
 * rows put one row per page (the second row would pass 10% of the page), so
 * scans do little work per block. Frozen and checkpointed, autovacuum off, so
 * that scans set no hint bits and write nothing.
 */
export async function createOneRowPerBlockTable(pg: Cluster, table: string, nblocks: number): Promise<void> {
  await pg.psql(
    `create unlogged table ${table} (id int, pad text) with (fillfactor = 10, autovacuum_enabled = off);
     insert into ${table} select g, repeat('x', 500) from generate_series(1, ${nblocks}) g;
     vacuum (freeze, analyze) ${table};
     checkpoint;`,
  );
  const size = Number(await pg.psql(`select pg_relation_size('${table}') / 8192`));
  if (size !== nblocks) throw new Error(`${table} has ${size} blocks, not ${nblocks}`);
}

/** One traced parallel scan. */
export interface ParallelScanCapture {
  /** Table option parallel_workers (= Workers Planned). */
  parallelWorkers: number;
  /** parallel_leader_participation at execution. */
  leaderParticipation: boolean;
  /** From EXPLAIN ANALYZE. */
  workersLaunched: number;
  /** Each process that read the table, in order of its first read; runs are [first block, blocks] in reading order. */
  processes: { role: "leader" | "worker"; reads: number; runs: BlockRange[] }[];
}

/**
 * One cold parallel scan of `table`, traced. The query is planned with the
 * leader participating (a prepared statement without parameters keeps its
 * first, generic plan) and executed with the participation asked for: the
 * executor reads parallel_leader_participation when the Gather starts, and a
 * 1-worker plan without the leader is never cheaper than the serial one.
 */
export async function captureParallelScan(
  pg: Cluster,
  table: string,
  parallelWorkers: number,
  leaderParticipation: boolean,
): Promise<ParallelScanCapture> {
  await pg.psql(`alter table ${table} set (parallel_workers = ${parallelWorkers});`);
  await pg.restart();
  const { result, processes } = await traceRelationReads(pg, table, () =>
    pg.psql(
      `set parallel_leader_participation = on;
       prepare q as select count(*) from ${table};
       explain (costs off) execute q;
       set parallel_leader_participation = ${leaderParticipation ? "on" : "off"};
       select 'leader-pid=' || pg_backend_pid();
       explain (analyze, costs off, timing off, summary off) execute q;`,
    ),
  );
  const planned = /Workers Planned: (\d+)/.exec(result);
  const launched = /Workers Launched: (\d+)/.exec(result);
  const leaderPid = Number(/leader-pid=(\d+)/.exec(result)?.[1]);
  if (!planned || Number(planned[1]) !== parallelWorkers || !launched) {
    throw new Error(`not the parallel plan expected (${parallelWorkers} workers):\n${result}`);
  }
  return {
    parallelWorkers,
    leaderParticipation,
    workersLaunched: Number(launched[1]),
    processes: processes.map((p) => ({
      role: p.pid === leaderPid ? "leader" : "worker",
      reads: p.reads,
      runs: p.runs,
    })),
  };
}

/**
 * Which process (index into `capture.processes`) read each of the table's
 * `nblocks` blocks (-1: none), and the first problem: a block read twice, a
 * block past the end, or a block never read.
 */
export function blockOwners(
  capture: Pick<ParallelScanCapture, "processes">,
  nblocks: number,
): { owner: Int32Array; problem: string | null } {
  const owner = new Int32Array(nblocks).fill(-1);
  let problem: string | null = null;
  capture.processes.forEach((p, i) => {
    for (const [start, blocks] of p.runs) {
      for (let b = start; b < start + blocks; b++) {
        if (b >= nblocks) problem ??= `process ${i} read block ${b}, past the end ${nblocks}`;
        else if (owner[b] !== -1) problem ??= `block ${b} read by processes ${owner[b]} and ${i}`;
        else owner[b] = i;
      }
    }
  });
  const missing = owner.indexOf(-1);
  if (missing !== -1) problem ??= `block ${missing} was never read`;
  return { owner, problem };
}
