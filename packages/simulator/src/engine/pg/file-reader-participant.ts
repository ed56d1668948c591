/**
 * The plain-file reader of a `kind: "file"` query: the classic user-level
 * prefetch experiment. One process reads every 8 kB block of the file once,
 * one `pread` per block, forward, backward or in a seeded random permutation,
 * and before reading the i-th block advises `posix_fadvise(WILLNEED)` on the
 * (i + d)-th; the first d blocks are advised before the first read. d = 0
 * reads without advice. It is what `scanlab scan --pattern P
 * --advise-distance d` does on a real file (@scanlab/file-scan's prefetch
 * reader), so the two can be set side by side.
 *
 * What the kernel does with it (Linux; the OS model, @scanlab/readahead's
 * `linux.ts`, plays each step):
 *
 * - `posix_fadvise(WILLNEED)` is `generic_fadvise()` (mm/fadvise.c), which
 *   calls `force_page_cache_readahead()` → `force_page_cache_ra()`
 *   (mm/readahead.c): the advised range is capped at
 *   `max(bdi->io_pages, ra->ra_pages)` pages and read in 2 MiB chunks through
 *   `do_page_cache_ra(ractl, chunk, 0)`: a lookahead of 0, so no page gets
 *   `PG_readahead`, and the open file's `file_ra_state` is not touched.
 * - A `read()` goes through `filemap_read()` → `filemap_get_pages()`
 *   (mm/filemap.c). Only a page missing from the cache calls
 *   `page_cache_sync_ra()`, and only a page carrying `PG_readahead` calls
 *   `page_cache_async_ra()` (through `filemap_readahead()`); a page that is
 *   present (or still under the advised read) is just waited for.
 * - So a forward reader that advises block i + 1 finds every block already
 *   in the cache: the sync path never runs, no window is ever opened, no
 *   marker is ever set, and every advised block is its own small device read,
 *   where the same reader without advice gets readahead windows of up to
 *   read_ahead_kb. Advice at a larger distance keeps more reads in flight
 *   but they stay one block each.
 *
 * CPU: each read is a pread that copies 8 kB (`preadUs` of cpu-costs.ts),
 * plus the page-cache fill of whatever that read made the kernel read
 * (`fillUsPerPage`);
 * each advice call costs one system call, `adviceCallUs` (simulate.ts: the
 * scenario's `fadviseUs` when it sets one, else the read-syscall cost a
 * calibrated device profile measured, else cpu-costs.ts's `fadviseUs`
 * default). The reader does no page or tuple work and has no shared buffers:
 * it reads into its own memory. Advice is issued at the instant before its
 * cost is spent, the read right after it.
 *
 * The file is the table's file, read as its segment files (scan-run.ts
 * `osBlocks`): give the table `segmentBlocks` at least its size to model one
 * plain file with one readahead state. A run is not warped.
 */
import { BLOCK_BYTES } from "../../units.js";
import type { Entity } from "../loop/scheduler.js";
import { mulberry32, type ReadPattern, readOrder } from "../seam/shared-leaf.js";
import { fillUs, preadUs } from "./cpu-costs.js";
import { adviseBlocks, type OpenFiles, osBlocks, type ScanRunCtx } from "./scan-run.js";

/** The reader's block order. */
export type FilePattern = ReadPattern;

/**
 * The blocks of a file of `nblocks` in `pattern` order, drawing from
 * mulberry32(seed): @scanlab/core's `readOrder`, the same permutation
 * @scanlab/file-scan's prefetch reader uses for the same seed.
 */
export function filePatternOrder(pattern: FilePattern, nblocks: number, seed: number): Uint32Array {
  return readOrder(pattern, nblocks, mulberry32(seed).below);
}

/** The reader's settings. */
export interface FileReaderSettings {
  pattern: FilePattern;
  /** Blocks ahead each read advises (0: no advice). */
  adviseDistance: number;
  /** Seed of a random order. */
  seed: number;
  /** CPU time of one posix_fadvise call, us. */
  adviceCallUs: number;
}

export class FileReaderParticipant implements Entity {
  readonly id: number;
  private readonly order: Uint32Array | null;
  private readonly n: number;
  private readonly d: number;
  private readonly readUs: number;
  private readonly index: number;
  /** Next read (0-based position in the order). */
  private i = 0;
  /** Whether the advice that goes with read `i` has been given. */
  private advised = false;
  private done = false;

  constructor(
    private readonly ctx: ScanRunCtx,
    private readonly settings: FileReaderSettings,
    private readonly opens: OpenFiles,
    role: "leader" | "worker",
  ) {
    this.id = ctx.scheduler.add(this);
    this.n = ctx.table.nblocks;
    this.d = settings.adviseDistance;
    // Forward and backward are computed; only a permutation is stored.
    this.order = settings.pattern === "random" ? filePatternOrder("random", this.n, settings.seed) : null;
    this.readUs = preadUs(ctx.machine.cpu, BLOCK_BYTES);
    this.index = ctx.stats.perParticipant.length;
    ctx.stats.perParticipant.push({ blocks: 0, claims: 0, role });
  }

  start(nowUs: number): void {
    this.ctx.scheduler.schedule(this.id, nowUs);
  }

  private blockAt(i: number): number {
    if (this.order !== null) return this.order[i]!;
    return this.settings.pattern === "backward" ? this.n - 1 - i : i;
  }

  /** posix_fadvise(WILLNEED) of the block at position `i`; returns when the call returns. */
  private advise(i: number, t: number, factor: number): number {
    this.ctx.stats.adviceCalls++;
    const callUs = this.settings.adviceCallUs;
    return (
      t +
      adviseBlocks(this.ctx, this.opens, this.blockAt(i), 1, t, callUs, this.ctx.machine.cpu.readSyscallUs) *
        factor
    );
  }

  fire(nowUs: number): void {
    if (this.done) return;
    const ctx = this.ctx;
    const scheduler = ctx.scheduler;
    let t = nowUs;
    for (;;) {
      if (this.i >= this.n) {
        this.done = true;
        ctx.participantDone(t);
        return;
      }
      const factor = ctx.cpuFactor();
      if (!this.advised) {
        this.advised = true;
        const d = this.d;
        const before = t;
        if (d > 0) {
          // Before the first read, the first d blocks; before read i, block i + d.
          if (this.i === 0) for (let k = 0; k < d && k < this.n; k++) t = this.advise(k, t, factor);
          if (this.i + d < this.n) t = this.advise(this.i + d, t, factor);
          if (t > before && !scheduler.canContinue(t)) {
            scheduler.schedule(this.id, t);
            return;
          }
          scheduler.advanceTo(t);
        }
      }
      const submitted = ctx.machine.os.submittedPages;
      const ready = osBlocks(ctx, this.opens, this.blockAt(this.i), 1, t, false);
      ctx.stats.osBlocks++;
      let after = (ready > t ? ready : t) + this.readUs * factor;
      if (ctx.machine.cpu.fillUsPerPage > 0)
        after += fillUs(ctx.machine.cpu, ctx.machine.os.submittedPages - submitted) * factor;
      ctx.stats.blocks++;
      ctx.stats.perParticipant[this.index]!.blocks++;
      this.i++;
      this.advised = false;
      if (!scheduler.canContinue(after)) {
        scheduler.schedule(this.id, after);
        return;
      }
      scheduler.advanceTo(after);
      t = after;
    }
  }
}
