/**
 * The Bitmap Index Scan under a bitmap heap scan: the btree leaf pages read
 * before the first heap page.
 *
 * Problem. A bitmap heap scan reads nothing from its table until the whole
 * bitmap is built: its first call runs the Bitmap Index Scan node to the end
 * (MultiExecBitmapIndexScan in nodeBitmapIndexscan.c), which walks the leaf
 * pages of the key range in order and adds every TID to the bitmap
 * (btgetbitmap in nbtree.c). Those reads are the scan's too: a cold scan reads
 * the index from the device first, through the kernel's readahead of the
 * index file, and a model without them misses both the time and the bytes,
 * most at low selectivity, where the index is a large share of what is read.
 *
 * Insight. A btree built by CREATE INDEX lays its leaf pages out in key
 * order (nbtsort.c writes them as it fills them), and a range scan reads them
 * one ReadBuffer at a time, in order: a sequential read of a stretch of the
 * index file, the share of its entries the range matches.
 *
 * Choices.
 * - The metapage (block 0) first, then the leaves from block 1: the range's
 *   place in the index does not change what a cold or warm read costs. The
 *   inner pages of the descent (one or two for tables of a few GB) are not
 *   read.
 * - Leaf pages read = the matched share of the table's tuples times the
 *   index's blocks, at least one.
 * - Each page goes through shared buffers with normal replacement (no ring)
 *   and, on a miss, through the process's own open file of the index: one
 *   8 kB pread, its copy, and a buffer's first use (cpu-costs.ts). The CPU
 *   per index entry is part of cpu.bitmapTupleUs, charged with the heap page.
 * - Serial scans only: in a parallel bitmap heap scan one participant builds
 *   the bitmap while the others wait (pbms_is_leader in nodeBitmapHeapscan.c),
 *   which the participants do not model yet, so there the index is not read.
 *
 * Interface: `BitmapIndexScan` (`run`), `bitmapIndexScanFor`, `indexScanFirst`.
 */
import { BLOCK_BYTES } from "../../units.js";
import { preadUs } from "./cpu-costs.js";
import { PAGES_PER_BLOCK, type TableRt } from "./machine.js";
import { type OpenFiles, openSegment, readWoken, type ScanRunCtx } from "./scan-run.js";

/** Where a step of the index scan left the process. */
export interface IndexScanStep {
  /** The process's time: when it is done, or when the read it waits for is in. */
  readonly t: number;
  /** Every index page is read. */
  readonly done: boolean;
}

/** The leaf pages one bitmap heap scan reads, as a sequence of blocks of the index relation. */
export class BitmapIndexScan {
  private next = 0;
  private readonly opens: OpenFiles = new Map();

  constructor(
    private readonly ctx: ScanRunCtx,
    private readonly index: TableRt,
    /** Leaf pages to read after the metapage. */
    private readonly leafPages: number,
  ) {}

  /**
   * Reads index pages from `t` on, while the scheduler lets the process
   * continue; returns where it stopped. A caller whose step is not done
   * schedules itself at `t` and calls again.
   */
  run(t: number): IndexScanStep {
    const ctx = this.ctx;
    const { cpu, sharedBuffers: sb } = ctx.machine;
    const index = this.index;
    const end = 1 + this.leafPages;
    while (this.next < end) {
      const block = this.next++;
      const factor = ctx.cpuFactor();
      if (sb.isResident(index.index, block)) {
        const valid = sb.hit(index.index, block, false);
        t = (valid > t ? valid : t) + cpu.sharedBufferHitUs * factor;
        continue;
      }
      const seg = Math.floor(block / index.segmentBlocks);
      const page = (block - seg * index.segmentBlocks) * PAGES_PER_BLOCK;
      const ready = readWoken(
        ctx.machine,
        openSegment(ctx, this.opens, seg, index),
        page,
        PAGES_PER_BLOCK,
        t,
      );
      const valid = ready > t ? ready : t;
      const firstUses = sb.installRun(index.index, block, 1, null, valid);
      const after = valid + (preadUs(cpu, BLOCK_BYTES) + firstUses * cpu.bufferFirstUseUs) * factor;
      if (after > t && !ctx.scheduler.canContinue(after)) return { t: after, done: this.next >= end };
      t = after;
      ctx.scheduler.advanceTo(t);
    }
    return { t, done: true };
  }
}

/**
 * The index scan of a serial bitmap heap scan on `ctx.table` that matches
 * `matchedShare` of its tuples, or null when the table has no index relation
 * or the scan is parallel.
 */
export function bitmapIndexScanFor(
  ctx: ScanRunCtx,
  matchedShare: number,
  participants: number,
): BitmapIndexScan | null {
  const index = ctx.table.indexRelation;
  if (index === null || participants !== 1) return null;
  const leafBlocks = index.nblocks - 1;
  const leaves =
    leafBlocks <= 0 ? 0 : Math.max(1, Math.min(leafBlocks, Math.ceil(matchedShare * leafBlocks)));
  return new BitmapIndexScan(ctx, index, leaves);
}

/**
 * What a bitmap heap scan's process does first when it has an index scan
 * pending: runs it from `nowUs`. Returns the time to go on with the heap
 * from, or null when the process was scheduled to come back (a read to wait
 * for). `done` is told when the index scan is over, so the caller drops it.
 */
export function indexScanFirst(
  scan: BitmapIndexScan,
  ctx: ScanRunCtx,
  id: number,
  nowUs: number,
  done: () => void,
): number | null {
  const step = scan.run(nowUs);
  if (step.done) done();
  if (!step.done || (step.t > nowUs && !ctx.scheduler.canContinue(step.t))) {
    ctx.scheduler.schedule(id, step.t);
    return null;
  }
  if (step.t > nowUs) ctx.scheduler.advanceTo(step.t);
  return step.t;
}
