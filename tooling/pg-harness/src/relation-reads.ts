/**
 * Which blocks of a relation each PostgreSQL process read, from a pread64
 * trace: a relation is stored as segment files of `segment_size` blocks
 * (1 GB = 131,072 blocks of 8 kB by default): `<relfilenode>`,
 * `<relfilenode>.1`, ... under the data directory at pg_relation_filepath().
 * A pread of `n` bytes at offset `o` in segment `s` reads blocks
 * s x segmentBlocks + o / blockBytes onwards. Up to PostgreSQL 16 every heap
 * read is one 8 kB block; from 17 read streams combine reads, which the same
 * mapping handles.
 *
 * Reads are compressed per process into runs of consecutive blocks, in the
 * order the process read them.
 */
import type { Cluster } from "./cluster.js";
import { type SyscallEvent, type TraceOptions, traceSyscallsDuring } from "./strace.js";

/** Where a relation's data lives and how its files are cut. */
export interface RelationFile {
  /** Data directory (real path). */
  dataDir: string;
  /** pg_relation_filepath(), relative to the data directory, e.g. "base/5/16384". */
  relPath: string;
  /** block_size in bytes. */
  blockBytes: number;
  /** segment_size in blocks. */
  segmentBlocks: number;
}

/** A run of consecutive blocks: [first block, number of blocks]. */
export type BlockRange = [startBlock: number, blocks: number];

/** What one process read of the relation. */
export interface ProcessReads {
  /** Process id. */
  pid: number;
  /** Runs of consecutive blocks, in reading order. */
  runs: BlockRange[];
  /** Number of read calls. */
  reads: number;
  /** Time of the first read (unix seconds). */
  firstReadS: number;
}

/** Looks up a table's file and the cluster's block and segment sizes. */
export async function relationFile(
  cluster: Cluster,
  table: string,
  database?: string,
): Promise<RelationFile> {
  const out = await cluster.psql(
    `select pg_relation_filepath('${table.replaceAll("'", "''")}'::regclass),
            (select setting from pg_settings where name = 'block_size'),
            (select setting from pg_settings where name = 'segment_size');`,
    { database },
  );
  const [relPath, blockBytes, segmentBlocks] = out.split("|");
  if (!relPath || !blockBytes || !segmentBlocks)
    throw new Error(`pg-harness: cannot locate ${table}: ${out}`);
  return {
    dataDir: cluster.dataDir,
    relPath,
    blockBytes: Number(blockBytes),
    segmentBlocks: Number(segmentBlocks),
  };
}

/**
 * The calls that read a relation's blocks at an offset given as their last
 * argument: one block with pread64 (PostgreSQL 12 on, commit c24dcd0cfd),
 * several consecutive blocks with preadv from 17's read streams (md.c mdreadv
 * -> FileReadV -> pg_preadv). PostgreSQL 11 reads with lseek + read(2), and fd.c
 * skips the lseek when the file is already at the position (FileSeek's cached
 * seekPos), so {@link relationReads} follows each open file's position.
 */
export const READ_SYSCALLS: ReadonlySet<string> = new Set(["pread64", "pread", "preadv"]);

/** What to trace to see every read of a relation, in any version: {@link READ_SYSCALLS} plus PostgreSQL 11's lseek and read. */
export const RELATION_READ_TRACE: readonly string[] = ["pread64", "preadv", "lseek", "read"];

/** Appends [start, blocks] to runs, merging with the last run when it continues it. */
export function appendRun(runs: BlockRange[], startBlock: number, blocks: number): void {
  const last = runs[runs.length - 1];
  if (last !== undefined && last[0] + last[1] === startBlock) last[1] += blocks;
  else runs.push([startBlock, blocks]);
}

/** One read or advice of a relation's blocks by one process. */
export interface RelationBlockEvent {
  /** Process id. */
  pid: number;
  /** Unix time in seconds. */
  timeS: number;
  /** A read (pread64, preadv, read) or a posix_fadvise (fadvise64). */
  kind: "read" | "advise";
  /** First block. */
  startBlock: number;
  /** Blocks covered. */
  blocks: number;
}

/**
 * Turns pread64/preadv (and lseek + read) and fadvise64 events into reads
 * and advice of the relation's blocks, in time order. Calls on other files,
 * failed calls and reads at the end of the file are ignored.
 */
export function relationBlockEvents(
  events: readonly SyscallEvent[],
  file: RelationFile,
): RelationBlockEvent[] {
  const base = `${file.dataDir}/${file.relPath}`;
  const out: RelationBlockEvent[] = [];
  // File positions of read(2) without an offset (PostgreSQL 11): per pid, fd and path.
  const positions = new Map<string, number>();
  for (const e of events) {
    if (e.path === null || e.result < 0) continue;
    let segment: number;
    if (e.path === base) segment = 0;
    else if (e.path.startsWith(`${base}.`)) segment = Number(e.path.slice(base.length + 1));
    else continue;
    const where = `${e.pid}/${e.fd}/${e.path}`;
    let offset: number;
    let bytes: number;
    let kind: RelationBlockEvent["kind"] = "read";
    if (e.syscall === "lseek") {
      positions.set(where, e.result);
      continue;
    } else if (e.syscall === "read") {
      offset = positions.get(where) ?? 0;
      positions.set(where, offset + e.result);
      bytes = e.result;
    } else if (READ_SYSCALLS.has(e.syscall)) {
      offset = Number(e.rest[e.rest.length - 1]);
      bytes = e.result;
    } else if (e.syscall === "fadvise64") {
      // fadvise64(fd, offset, len, advice) = 0
      offset = Number(e.rest[0]);
      bytes = Number(e.rest[1]);
      kind = "advise";
    } else continue;
    if (bytes === 0) continue;
    if (!Number.isInteger(segment) || !Number.isInteger(offset) || offset % file.blockBytes !== 0) {
      throw new Error(`pg-harness: unexpected ${e.syscall} of ${e.path} at offset ${offset}`);
    }
    out.push({
      pid: e.pid,
      timeS: e.timeS,
      kind,
      startBlock: segment * file.segmentBlocks + offset / file.blockBytes,
      blocks: Math.ceil(bytes / file.blockBytes),
    });
  }
  return out;
}

/**
 * Turns pread64/preadv (and lseek + read) events into per-process runs of the
 * relation's blocks (processes ordered by their first read). Calls on other
 * files are ignored.
 */
export function relationReads(events: readonly SyscallEvent[], file: RelationFile): ProcessReads[] {
  const byPid = new Map<number, ProcessReads>();
  for (const e of relationBlockEvents(events, file)) {
    if (e.kind !== "read") continue;
    let p = byPid.get(e.pid);
    if (p === undefined) {
      p = { pid: e.pid, runs: [], reads: 0, firstReadS: e.timeS };
      byPid.set(e.pid, p);
    }
    p.reads++;
    appendRun(p.runs, e.startBlock, e.blocks);
  }
  return [...byPid.values()].sort((a, b) => a.firstReadS - b.firstReadS);
}

/**
 * Traces the postmaster and every process it forks while `fn` runs, and
 * returns what each process read of `table` (as runs of blocks).
 * Shared buffers are not touched: restart the cluster first for a cold scan.
 *
 * @example
 * ```ts
 * const { result, processes } = await traceRelationReads(pg, "t", () => pg.psql("select count(*) from t"));
 * ```
 */
export async function traceRelationReads<T>(
  cluster: Cluster,
  table: string,
  fn: () => Promise<T>,
  options: Omit<TraceOptions, "syscalls"> & { database?: string } = {},
): Promise<{ result: T; processes: ProcessReads[]; file: RelationFile }> {
  const file = await relationFile(cluster, table, options.database);
  // read(2) is traced only where it carries relation reads (11 and older): tracing every
  // process's socket reads would slow the scan for nothing.
  const versionNum = Number(await cluster.psql("show server_version_num", { database: options.database }));
  const syscalls =
    versionNum < 120000 ? RELATION_READ_TRACE : RELATION_READ_TRACE.filter((c) => READ_SYSCALLS.has(c));
  const { result, events } = await traceSyscallsDuring(cluster.postmasterPid(), { ...options, syscalls }, fn);
  return { result, processes: relationReads(events, file), file };
}
