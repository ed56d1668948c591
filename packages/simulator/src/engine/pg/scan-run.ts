/**
 * One execution of one query: its participants, its shared allocation state
 * and its contended cache line, and the statistics it collects.
 */

import type { Scheduler } from "../loop/scheduler.js";
import type { OsOpenFile } from "../seam/ports.js";
import { fileIdOf, type MachineRt, PAGES_PER_BLOCK, type TableRt } from "./machine.js";
import type { SharedLine } from "./shared-memory.js";

/** Counters of one run (one query execution). */
export class RunStats {
  blocks = 0;
  claims = 0;
  sharedHits = 0;
  /** Blocks requested from the OS (shared-buffer misses). */
  osBlocks = 0;
  /** posix_fadvise calls a plain-file reader made (file-reader-participant.ts). */
  adviceCalls = 0;
  /** Per participant: blocks and claims. */
  readonly perParticipant: { blocks: number; claims: number; role: "leader" | "worker" }[] = [];
}

/** What a participant needs from the run it belongs to. */
export interface ScanRunCtx {
  readonly machine: MachineRt;
  readonly table: TableRt;
  readonly scheduler: Scheduler;
  readonly line: SharedLine;
  /** Report handed-out blocks to syncscan (phs_syncscan / rs_syncscan). */
  readonly syncReport: boolean;
  /** BAS_BULKREAD ring size in buffers, or 0 for normal replacement. */
  readonly ringBuffers: number;
  readonly stats: RunStats;
  /** The scenario's seed (per-process random streams derive from it). */
  readonly seed: number;
  /** CPU slowdown when more processes are busy than there are cores (at `nowUs`, I/O workers counted too). */
  cpuFactor(nowUs?: number): number;
  /** Called once by each participant when it has nothing left to do. */
  participantDone(nowUs: number): void;
}

/** Files a process has open: segment number -> the OS's open-file state. */
export type OpenFiles = Map<number, OsOpenFile>;

/** The process's open file of `segment` of `table` (opened on first use, as PostgreSQL's md.c does). */
export function openSegment(
  ctx: ScanRunCtx,
  opens: OpenFiles,
  segment: number,
  table: TableRt = ctx.table,
): OsOpenFile {
  let of = opens.get(segment);
  if (of === undefined) {
    of = ctx.machine.os.open(fileIdOf(table, segment));
    opens.set(segment, of);
  }
  return of;
}

/**
 * posix_fadvise(WILLNEED) over blocks [firstBlock, firstBlock + blocks), one
 * call per segment file, as {@link osBlocks} gives it. Returns the CPU time
 * the call costs: the kernel looks each page up and allocates and submits a
 * read only for the absent ones (force_page_cache_ra and
 * page_cache_ra_unbounded in mm/readahead.c), so a call that finds every
 * page present (cached, or already being read) costs a page-cache lookup,
 * `lookupUs`, and one that starts a read costs `callUs`.
 */
export function adviseBlocks(
  ctx: ScanRunCtx,
  opens: OpenFiles,
  firstBlock: number,
  blocks: number,
  nowUs: number,
  callUs: number,
  lookupUs: number,
): number {
  // The OS model submits the absent pages as the kernel does: whether it submitted any is the answer.
  const before = ctx.machine.os.submittedPages;
  osBlocks(ctx, opens, firstBlock, blocks, nowUs, true);
  return ctx.machine.os.submittedPages > before ? callUs : Math.min(callUs, lookupUs);
}

/**
 * When a read issued at `nowUs` can go on, its data ready at `readyUs`. A
 * read that found its pages already being read (started by advice, by the
 * kernel's asynchronous readahead, by another process) sleeps on the page
 * lock (folio_wait_bit_common() in mm/filemap.c) and is woken after the I/O
 * completes: `wakeUpUs` later. A read that submitted its own I/O and waited
 * for it is not charged again: the device model's latency is calibrated on
 * exactly that (fio at queue depth 1 submits, sleeps and is woken).
 */
export function readyAfterWait(
  readyUs: number,
  nowUs: number,
  submittedOwn: boolean,
  wakeUpUs: number,
): number {
  return readyUs > nowUs && !submittedOwn ? readyUs + wakeUpUs : readyUs;
}

/**
 * One read() of `pages` pages from `page` of `of` issued at `nowUs` through the
 * machine's OS: when the process can go on, woken after I/O it did not start
 * ({@link readyAfterWait}).
 */
export function readWoken(
  machine: MachineRt,
  of: OsOpenFile,
  page: number,
  pages: number,
  nowUs: number,
): number {
  const os = machine.os;
  const submitted = os.submittedPages;
  const ready = os.read(of, page, pages, nowUs);
  return readyAfterWait(ready, nowUs, os.submittedPages > submitted, machine.cpu.wakeUpUs);
}

/**
 * Blocks [firstBlock, firstBlock + blocks) through the OS, one call per segment
 * file (md.c splits a request at the 1 GB boundary too): posix_fadvise(WILLNEED)
 * when `advise`, else a read. Returns when the data read is ready (`nowUs` if
 * already, and always for advice), a read that waited for others' I/O woken
 * after it ({@link readyAfterWait}).
 */
export function osBlocks(
  ctx: ScanRunCtx,
  opens: OpenFiles,
  firstBlock: number,
  blocks: number,
  nowUs: number,
  advise: boolean,
): number {
  const os = ctx.machine.os;
  const segBlocks = ctx.table.segmentBlocks;
  const submitted = os.submittedPages;
  let ready = nowUs;
  let b = firstBlock;
  const end = firstBlock + blocks;
  while (b < end) {
    const seg = Math.floor(b / segBlocks);
    const segEnd = Math.min(end, (seg + 1) * segBlocks);
    const of = openSegment(ctx, opens, seg);
    const page = (b - seg * segBlocks) * PAGES_PER_BLOCK;
    const pages = (segEnd - b) * PAGES_PER_BLOCK;
    if (advise) os.willneed(of, page, pages, nowUs);
    else {
      const r = os.read(of, page, pages, nowUs);
      if (r > ready) ready = r;
    }
    b = segEnd;
  }
  return readyAfterWait(ready, nowUs, os.submittedPages > submitted, ctx.machine.cpu.wakeUpUs);
}
