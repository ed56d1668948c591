/**
 * A process running a bitmap heap scan the PostgreSQL 13-17 way (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch
 * ): take the next page of the bitmap, read it with one synchronous 8 kB
 * read (shared buffers first, normal replacement, no ring), then let the
 * prefetch policy issue its posix_fadvise(WILLNEED) calls, then spend CPU on
 * the page's tuples. The policy (a {@link BitmapScanPort}: `pg13`, or the
 * `adaptive` one, seam/bitmap-adapters.ts) decides what to advise; the OS model turns advice into
 * forced reads without a readahead marker and turns plain reads into kernel
 * readahead, which is where the regression of Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) comes from (eic=1 replaces
 * 128 kB-6 MB readahead windows by 8 kB advised reads).
 *
 * Event discipline as in seqscan-participant.ts: the page read is submitted
 * at the wake-up time; if the process must wait for it, it sleeps and issues
 * the page's advice when it wakes (PostgreSQL prefetches after fetching the
 * current page). Advice issued during the page's tuple loop (the ramp's
 * per-tuple target increments) is issued at that same instant, before the
 * tuple CPU is spent: an approximation of at most one page's CPU time, and
 * only during the first few pages of the ramp.
 */
import { BLOCK_BYTES } from "../../units.js";
import type { Entity } from "../loop/scheduler.js";
import type { BitmapScanPort, BufferLookup, Renumbering } from "../seam/ports.js";
import { type BitmapIndexScan, indexScanFirst } from "./bitmap-index-scan.js";
import { bitmapPageWorkUs, fillUs, preadUs } from "./cpu-costs.js";
import { CpuJitter } from "./cpu-jitter.js";
import { PAGES_PER_BLOCK } from "./machine.js";
import { adviseBlocks, type OpenFiles, openSegment, readWoken, type ScanRunCtx } from "./scan-run.js";

export class BitmapScanParticipant implements Entity {
  readonly id: number;
  private readonly env: BufferLookup;
  private readonly index: number;
  private readonly jitter: CpuJitter;
  private page = -1;
  /** The last page taken from the bitmap (-1 before the first). */
  private lastPage = -1;
  private tuples = 0;
  private done = false;
  /** Advice calls issued (for results). */
  adviceCalls = 0;
  /** The Bitmap Index Scan to run before the first heap page (bitmap-index-scan.ts), if modelled. */
  indexScan: BitmapIndexScan | null = null;

  constructor(
    private readonly ctx: ScanRunCtx,
    private readonly policy: BitmapScanPort,
    private readonly opens: OpenFiles,
    role: "leader" | "worker",
  ) {
    this.id = ctx.scheduler.add(this);
    const sb = ctx.machine.sharedBuffers;
    const table = ctx.table.index;
    this.env = { isBuffered: (block) => sb.isResident(table, block) };
    this.index = ctx.stats.perParticipant.length;
    ctx.stats.perParticipant.push({ blocks: 0, claims: 0, role });
    this.jitter = new CpuJitter(ctx.seed + this.id, ctx.machine.cpu.jitter);
  }

  start(nowUs: number): void {
    this.ctx.scheduler.schedule(this.id, nowUs);
  }

  fire(nowUs: number): void {
    if (this.done) return;
    const ctx = this.ctx;
    const { cpu, sharedBuffers: sb, os } = ctx.machine;
    const table = ctx.table;
    let t = nowUs;
    if (this.indexScan !== null) {
      const from = indexScanFirst(this.indexScan, ctx, this.id, t, () => {
        this.indexScan = null;
      });
      if (from === null) return;
      t = from;
    }
    for (;;) {
      if (this.page < 0) {
        const next = this.policy.beginPage();
        if (next === null) {
          this.done = true;
          ctx.participantDone(t);
          return;
        }
        this.page = next.page;
        this.lastPage = next.page;
        this.tuples = next.tuples;
        const b = next.page;
        const factor = ctx.cpuFactor();
        if (sb.isResident(table.index, b)) {
          const valid = sb.hit(table.index, b, false);
          ctx.stats.sharedHits++;
          t = (valid > t ? valid : t) + cpu.sharedBufferHitUs * factor;
        } else {
          const seg = Math.floor(b / table.segmentBlocks);
          const page = (b - seg * table.segmentBlocks) * PAGES_PER_BLOCK;
          const submitted = os.submittedPages;
          const ready = readWoken(ctx.machine, openSegment(ctx, this.opens, seg), page, PAGES_PER_BLOCK, t);
          const valid = ready > t ? ready : t;
          const firstUses = sb.installRun(table.index, b, 1, null, valid);
          ctx.stats.osBlocks++;
          // The pread into the buffer, which faults its memory in on its first use.
          const firstUseUs = firstUses * cpu.bufferFirstUseUs;
          let after = valid + (preadUs(cpu, BLOCK_BYTES) + firstUseUs) * factor;
          if (cpu.fillUsPerPage > 0) after += fillUs(cpu, os.submittedPages - submitted) * factor;
          if (after > t && !ctx.scheduler.canContinue(after)) {
            ctx.scheduler.schedule(this.id, after);
            return;
          }
          t = after;
          ctx.scheduler.advanceTo(t);
        }
      }
      // The page is read: prefetch, then the tuples.
      const factor = ctx.cpuFactor();
      for (const a of this.policy.pageRead(this.env)) t = this.advise(a.firstBlock, a.blocks, t, factor);
      for (const a of this.policy.restOfPage(this.env)) t = this.advise(a.firstBlock, a.blocks, t, factor);
      t += bitmapPageWorkUs(cpu, this.tuples) * factor * this.jitter.factor(1);
      ctx.stats.blocks++;
      ctx.stats.perParticipant[this.index]!.blocks++;
      this.page = -1;
      if (!ctx.scheduler.canContinue(t)) {
        ctx.scheduler.schedule(this.id, t);
        return;
      }
      ctx.scheduler.advanceTo(t);
    }
  }

  /*
   * The warp (speedups/warp.ts). A serial PG13-17 scan can be renumbered: its
   * policy's port has the warp's hooks (its bitmap and both iterators move,
   * seam/bitmap-adapters.ts); the page in hand and the last page taken move
   * here. Parallel scans (a shared iterator) and the adaptive policy have no
   * hooks and are never warped.
   */

  /** Whether the warp can renumber this scan. */
  get warpable(): boolean {
    return this.policy.warp !== undefined;
  }

  /** The lowest block the scan has not reached with either iterator (the end of its path once it has seen every page). */
  frontier(): number {
    return this.policy.warp!.frontier();
  }

  /** One past the bitmap's last page: where the scan's path ends. */
  pathEnd(): number {
    return this.policy.warp!.pathEnd();
  }

  /** The lowest block the scan has still to read: the page in hand, or the one after the last. */
  lowestPending(): number {
    return this.page >= 0 ? this.page : this.lastPage + 1;
  }

  /** Bitmap pages in blocks [at, at + blocks): what the scan would process there. */
  pagesIn(at: number, blocks: number): number {
    return this.policy.warp!.pagesIn(at, blocks);
  }

  /** Renumbers the scan after the warp cut a stretch out of the table or put one back (newest first). */
  renumber(change: Renumbering): void {
    this.policy.warp!.renumber(change);
    if (this.page >= 0) this.page = change.map(this.page);
    if (this.lastPage >= 0) this.lastPage = change.map(this.lastPage);
  }

  private advise(firstBlock: number, blocks: number, t: number, factor: number): number {
    const cpu = this.ctx.machine.cpu;
    this.adviceCalls++;
    return (
      t + adviseBlocks(this.ctx, this.opens, firstBlock, blocks, t, cpu.fadviseUs, cpu.readSyscallUs) * factor
    );
  }
}
