/**
 * A process running a sequential scan (PostgreSQL 9.6 to 16): it asks its
 * allocator for blocks, looks each one up in shared buffers, reads misses
 * with one synchronous 8 kB pread each, and spends CPU on the page and its
 * tuples (apps/docs/src/reference/parallel-block-allocation.md, apps/docs/src/reference/synchronized-scans.md#serial-scans; apps/docs/src/reference/design.md#how-data-flows).
 *
 * Event discipline. One wake-up of a participant does, in this order:
 *   1. the syncscan report left over from the stretch it just finished
 *      (reported at the time its last block was processed, as PostgreSQL
 *      reports each block as it is handed out during processing);
 *   2. a block claim if its current one is used up (the claim's cache-line
 *      or lock cost may make it wait: then it sleeps until it holds the line);
 *   3. at most one read the OS must decide on (a miss, a readahead marker),
 *      submitted at exactly this instant;
 *   4. the longest following stretch of blocks that needs no decision: all
 *      present in the page cache, no marker, one readiness time (a window in
 *      flight, or pages already valid). The process waits for that readiness
 *      once and then spends CPU on each block, in one step.
 * It then sleeps until the end of the stretch. Everything that changes shared
 * state (claims, device submissions, page-cache inserts, syncscan reports)
 * therefore happens in global time order; only pure lookups are made ahead of
 * time, and those cannot be invalidated by other processes: a page present
 * now stays present (the stretch touches it in the LRU), and Linux places
 * markers only on pages it newly allocates. A steady sequential stream costs
 * one event per readahead window, not one per 8 kB block.
 */
import { BLOCK_BYTES } from "../../units.js";
import type { Entity } from "../loop/scheduler.js";
import { BufferRing } from "../seam/buffer-manager.js";
import type { AllocatorParticipant, Renumbering } from "../seam/ports.js";
import { fillUs, pageWorkUs, preadUs } from "./cpu-costs.js";
import { CpuJitter } from "./cpu-jitter.js";
import { PAGES_PER_BLOCK } from "./machine.js";
import { type OpenFiles, openSegment, readWoken, type ScanRunCtx } from "./scan-run.js";

/**
 * Longest stretch handled in one step, so reports and CPU sharing stay timely (8 MB of blocks).
 * An engine step size chosen for this simulator, not a PostgreSQL, OS or device figure.
 */
const MAX_STRETCH_BLOCKS = 1024;
const NO_RUN = { pages: 0, readyAtUs: 0 };

export class SeqScanParticipant implements Entity {
  readonly id: number;
  /** Next block of the current claim. */
  cur = 0;
  /** Blocks left in the current claim (0: the next step claims). */
  remaining = 0;
  /** A syncscan report waiting for the next wake-up (-1: none). */
  pendingReport = -1;
  /** True once the allocator had nothing left for this process. */
  done = false;
  /** This process's BAS_BULKREAD ring, or null. */
  readonly ring: BufferRing | null;
  /** CPU per block read from the OS page cache (pread + page work), before CPU sharing. */
  readonly missUs: number;
  /** CPU per block found in shared buffers (pin + page work), before CPU sharing. */
  readonly hitUs: number;
  /** Index of this process in the run's per-participant statistics. */
  readonly index: number;
  /** Kernel CPU per page this process's reads bring into the page cache (0: not charged). */
  private readonly fillUsPerPage: number;
  private readonly jitter: CpuJitter;
  /** Syncscan's report interval, in blocks (the syncscan port's). */
  private readonly reportEvery: number;

  constructor(
    private readonly ctx: ScanRunCtx,
    private readonly alloc: AllocatorParticipant,
    /** The process's open segment files. */
    readonly opens: OpenFiles,
    role: "leader" | "worker",
  ) {
    this.id = ctx.scheduler.add(this);
    this.ring = ctx.ringBuffers > 0 ? new BufferRing(ctx.ringBuffers) : null;
    const cpu = ctx.machine.cpu;
    const work = pageWorkUs(cpu, ctx.table.tuplesPerPage);
    this.missUs = preadUs(cpu, BLOCK_BYTES) + work;
    this.hitUs = cpu.sharedBufferHitUs + work;
    this.fillUsPerPage = cpu.fillUsPerPage;
    this.index = ctx.stats.perParticipant.length;
    ctx.stats.perParticipant.push({ blocks: 0, claims: 0, role });
    this.jitter = new CpuJitter(ctx.seed + this.id, cpu.jitter);
    this.reportEvery = ctx.machine.syncscan.reportIntervalBlocks;
  }

  /** The table was renumbered under the scan (the warp's cut or restore, speedups/warp.ts). */
  renumber(change: Renumbering): void {
    if (this.remaining > 0) {
      const end = change.mapEnd(this.cur + this.remaining);
      this.cur = change.map(this.cur);
      this.remaining = end - this.cur;
    }
    if (this.pendingReport >= 0) this.pendingReport = change.map(this.pendingReport);
  }

  /** Starts the participant at `nowUs`. */
  start(nowUs: number): void {
    this.ctx.scheduler.schedule(this.id, nowUs);
  }

  fire(nowUs: number): void {
    let t = nowUs;
    const scheduler = this.ctx.scheduler;
    for (;;) {
      t = this.step(t);
      if (t < 0) return;
      if (!scheduler.canContinue(t)) {
        scheduler.schedule(this.id, t);
        return;
      }
      scheduler.advanceTo(t);
    }
  }

  /** One wake-up's worth of work from `nowUs` (see the header); returns when to continue, or -1 when done. */
  step(nowUs: number): number {
    if (this.done) return -1;
    const ctx = this.ctx;
    const table = ctx.table;
    let t = nowUs;
    if (this.pendingReport >= 0) {
      ctx.machine.syncscan.report(table.syncKey, this.pendingReport);
      this.pendingReport = -1;
    }
    if (this.remaining === 0) {
      const claim = this.alloc.next();
      if (claim === null) {
        this.done = true;
        ctx.participantDone(t);
        return -1;
      }
      ctx.stats.claims++;
      ctx.stats.perParticipant[this.index]!.claims++;
      this.cur = claim.startBlock;
      this.remaining = claim.blocks;
      const t1 = ctx.line.acquire(claim.op, t);
      if (t1 > t) return t1;
    }

    const b = this.cur;
    const segBlocks = table.segmentBlocks;
    const seg = Math.floor(b / segBlocks);
    const segEnd = (seg + 1) * segBlocks;
    let lim = b + this.remaining;
    if (lim > segEnd) lim = segEnd;
    if (lim > b + MAX_STRETCH_BLOCKS) lim = b + MAX_STRETCH_BLOCKS;
    const factor = ctx.cpuFactor();
    const sb = ctx.machine.sharedBuffers;
    const resident = sb.firstResident(table.index, b, lim);

    let n: number;
    if (resident === b) {
      // Shared-buffer hits: a run of resident blocks costs no I/O.
      let e = b + 1;
      while (e < lim && sb.isResident(table.index, e)) e++;
      n = e - b;
      const viaRing = this.ring !== null;
      const hitUs = this.hitUs * factor * this.jitter.factor(n);
      for (let x = b; x < e; x++) {
        const valid = sb.hit(table.index, x, viaRing);
        t = (valid > t ? valid : t) + hitUs;
      }
      ctx.stats.sharedHits += n;
    } else {
      const missEnd = resident < 0 ? lim : resident;
      const os = ctx.machine.os;
      const of = openSegment(ctx, this.opens, seg);
      const page = (b - seg * segBlocks) * PAGES_PER_BLOCK;
      n = 0;
      let validAt = t;
      let q = os.quietRun(of, page, (missEnd - b) * PAGES_PER_BLOCK, PAGES_PER_BLOCK, t);
      if (q.pages < PAGES_PER_BLOCK) {
        const submitted = os.submittedPages;
        const ready = readWoken(ctx.machine, of, page, PAGES_PER_BLOCK, t);
        validAt = ready > t ? ready : t;
        t = validAt + this.missUs * factor * this.jitter.factor(1);
        if (this.fillUsPerPage > 0) t += fillUs(ctx.machine.cpu, os.submittedPages - submitted) * factor;
        n = 1;
        if (b + 1 < missEnd) {
          q = os.quietRun(
            of,
            page + PAGES_PER_BLOCK,
            (missEnd - b - 1) * PAGES_PER_BLOCK,
            PAGES_PER_BLOCK,
            t,
          );
        } else q = NO_RUN;
      }
      const m = q.pages >> 1;
      if (m > 0) {
        os.skipQuiet(of, page + n * PAGES_PER_BLOCK, m * PAGES_PER_BLOCK, PAGES_PER_BLOCK, t);
        if (q.readyAtUs > validAt) validAt = q.readyAtUs;
        t = (q.readyAtUs > t ? q.readyAtUs : t) + m * this.missUs * factor * this.jitter.factor(m);
        n += m;
      }
      const firstUses = sb.installRun(table.index, b, n, this.ring, validAt);
      // Buffers used for the first time since the server started fault their memory in (cpu-costs.ts).
      if (firstUses > 0) t += firstUses * ctx.machine.cpu.bufferFirstUseUs * factor;
      ctx.stats.osBlocks += n;
    }

    if (ctx.syncReport) {
      const last = b + n - 1;
      const m16 = last - (last % this.reportEvery);
      if (m16 >= b) this.pendingReport = m16;
    }
    ctx.stats.blocks += n;
    ctx.stats.perParticipant[this.index]!.blocks += n;
    this.cur += n;
    this.remaining -= n;
    return t;
  }
}
