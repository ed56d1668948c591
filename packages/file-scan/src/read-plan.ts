/**
 * The reads a PG17 read stream makes of one worker's blocks: which blocks go
 * into one `preadv`, which reads are advised, and how far ahead.
 *
 * Problem. Up to PostgreSQL 16 a sequential scan reads one block per
 * `pread`. From 17 it reads through a read stream (read_stream.c,
 * apps/docs/src/reference/read-streams.md#pg17-look-ahead): the stream asks
 * its callback (for a parallel scan, the shared allocator) for blocks ahead
 * of the one being consumed, merges consecutive blocks into one read of up to
 * io_combine_limit blocks, and advises the kernel (posix_fadvise WILLNEED)
 * about reads that do not continue the previous one, as far ahead as its
 * look-ahead distance allows. A real scan that wants to show the kernel and
 * the device what PG17 shows them has to make the same reads, in the same
 * order, with the same advice.
 *
 * Insight. For a file scan nothing is ever in shared buffers (there are
 * none), so every block the stream asks for needs I/O and every read the
 * stream starts is an I/O in progress until the consumer reaches it. Under
 * that condition the stream reduces to a few counters and a queue of started
 * reads, and can run inside the worker's read loop at the cost of a few
 * comparisons per block.
 *
 * Design choices (PG17's read_stream.c; the reference page cited above).
 * - Look-ahead runs once at the start with advice suppressed (the first read
 *   is waited for at once), then after blocks are handed to the consumer:
 *   after every block, as PostgreSQL does, when the stream advises (that
 *   timing decides how far ahead advice goes); once per read otherwise,
 *   which forms exactly the same reads (their boundaries depend only on the
 *   block sequence, io_combine_limit and the distance, which changes only
 *   when a read is reached) and keeps the worker's per-block cost at that
 *   of one-block reads; claims are then taken up to one read later:
 *   while fewer than max_ios reads are in progress and the pinned blocks
 *   plus the pending read are fewer than the distance, take the next block;
 *   a block that directly follows the pending read joins it, any other block
 *   starts the pending read first. A pending read of io_combine_limit blocks
 *   is started at once; a shorter one only when it reaches the distance with
 *   nothing pinned, or at the end of the stream.
 * - Consecutive blocks join whatever claim of the allocator they came from:
 *   PostgreSQL's callback hands the stream one block at a time, so two
 *   adjacent claims of one worker make one read there too. A read never
 *   crosses a segment file (PG18's StartReadBuffers stops there; in PG17 md.c
 *   splits such a read into one preadv per file, the same system calls).
 * - A read is advised when advice is on and it does not begin at the block
 *   after the end of the last read started (`seq_blocknum`): sequential
 *   continuations are left to the kernel's readahead.
 * - The distance starts at 1. After the consumer reaches an advised read it
 *   doubles up to max_pinned_buffers; after an unadvised one it moves toward
 *   io_combine_limit (doubling up to it, or one less from above).
 * - max_ios is effective_io_concurrency (0 counts as 1, with advice off);
 *   max_pinned_buffers is max(4 x effective_io_concurrency, io_combine_limit),
 *   PG17's formula. The limits that come from shared buffers (the BULKREAD
 *   ring, the backend's share of pins) are not applied: a file scan has no
 *   buffer pool, the reads land in the worker's own memory.
 *
 * Scope. PG17's behaviour with io_method=sync. PG18's changes to the distance
 * and to when advice is given, and asynchronous I/O, are not reproduced.
 *
 * Interface: {@link ReadStreamPlan}. The worker calls `waitHead()` when it
 * needs the next read (then performs it: `ioStart`, `ioBlocks`) and
 * `release(n)` for the blocks handed out: `release(1)` per block with
 * advice, `release(ioBlocks)` per read without. Blocks come from the
 * {@link StreamClient}'s `nextRun`, one allocator claim at a time; runs of
 * consecutive blocks are added to the pending read in one step. Advice goes
 * to its `advise`.
 */

/** A span of blocks the source hands out (one allocator claim). */
export interface SourceRun {
  /** First block. */
  start: number;
  /** Blocks, at least 1. */
  blocks: number;
}

/**
 * Where a {@link ReadStreamPlan} gets its blocks and sends its advice (the
 * read stream's callback and its posix_fadvise). An object rather than two
 * functions: the worker's client is one class, so the plan's calls have one
 * target in every loop the worker runs, warm-up and scan alike.
 */
export interface StreamClient {
  /** Fills `run` with the worker's next claim and returns true, or returns false when there is none. */
  nextRun(run: SourceRun): boolean;
  /** The stream advises a read: posix_fadvise(WILLNEED) of these blocks. */
  advise(firstBlock: number, blocks: number): void;
}

/** Settings of a {@link ReadStreamPlan}. */
export interface ReadStreamPlanOptions {
  /** io_combine_limit: most blocks in one read, at least 1. */
  readonly ioCombineLimit: number;
  /** effective_io_concurrency: reads in progress at most (0 counts as 1 and turns advice off). */
  readonly effectiveIoConcurrency: number;
  /** Whether the stream advises (a stream without READ_STREAM_SEQUENTIAL). */
  readonly advice: boolean;
  /** Blocks per segment file: a read never crosses a multiple of this. */
  readonly segmentBlocks: number;
}

/** max_pinned_buffers of a PG17 stream without buffer-pool limits: max(4 x eic, io_combine_limit). */
export function planMaxPinned(ioCombineLimit: number, effectiveIoConcurrency: number): number {
  return Math.max(4 * effectiveIoConcurrency, ioCombineLimit, 1);
}

/** A PG17 read stream over a worker's blocks, where every block needs I/O (see the file header). */
export class ReadStreamPlan {
  /** First block of the read `waitHead()` returned. */
  ioStart = -1;
  /** Blocks in that read. */
  ioBlocks = 0;
  /** Whether that read was advised when it was started. */
  ioAdvised = false;
  /** The look-ahead distance now (0 once the source is exhausted). */
  distance = 1;

  private readonly combine: number;
  private readonly maxIos: number;
  private readonly maxPinned: number;
  private readonly adviceOn: boolean;
  private readonly segmentBlocks: number;
  private readonly client: StreamClient;
  private readonly run: SourceRun = { start: 0, blocks: 0 };
  private claimNext = 0;
  private claimEnd = 0;

  // Started reads not yet reached by the consumer (FIFO ring of maxIos entries).
  // Block numbers fit 32 bits (target.ts refuses more), and a Uint32Array hands them back as small
  // integers: a Float64Array would hand back doubles, and the worker's objects that keep the block
  // would change field representation, so that V8 discards the loop compiled before the timed window.
  private readonly qStart: Uint32Array;
  private readonly qBlocks: Int32Array;
  private readonly qAdvised: Uint8Array;
  private qHead = 0;
  private qLen = 0;

  private pinned = 0;
  private pendingStart = -1;
  private pendingBlocks = 0;
  private pendingSegmentEnd = 0;
  private seqBlock = -1;
  private started = false;

  constructor(options: ReadStreamPlanOptions, client: StreamClient) {
    const { ioCombineLimit, effectiveIoConcurrency, advice, segmentBlocks } = options;
    this.combine = ioCombineLimit;
    this.maxIos = Math.max(1, effectiveIoConcurrency);
    this.maxPinned = planMaxPinned(ioCombineLimit, effectiveIoConcurrency);
    this.adviceOn = advice && effectiveIoConcurrency > 0;
    this.segmentBlocks = segmentBlocks;
    this.client = client;
    this.qStart = new Uint32Array(this.maxIos);
    this.qBlocks = new Int32Array(this.maxIos);
    this.qAdvised = new Uint8Array(this.maxIos);
  }

  /**
   * Moves to the next read (sets ioStart, ioBlocks, ioAdvised and adjusts the
   * distance, as the consumer reaching it does); false at the end of the stream.
   */
  waitHead(): boolean {
    if (this.qLen === 0) {
      if (this.started && this.distance === 0) return false;
      this.started = true;
      this.lookAhead(true);
      if (this.qLen === 0) return false;
    }
    const h = this.qHead;
    this.ioStart = this.qStart[h]!;
    this.ioBlocks = this.qBlocks[h]!;
    this.ioAdvised = this.qAdvised[h] === 1;
    this.qHead = h + 1 === this.maxIos ? 0 : h + 1;
    this.qLen--;
    if (this.ioAdvised) {
      this.distance = Math.min(this.distance * 2, this.maxPinned);
    } else if (this.distance > this.combine) {
      this.distance--;
    } else {
      this.distance = Math.min(this.distance * 2, this.combine, this.maxPinned);
    }
    return true;
  }

  /** The consumer has taken `blocks` more blocks of the current read: that many pins fewer, then look ahead. */
  release(blocks: number): void {
    this.pinned -= blocks;
    this.lookAhead(false);
  }

  private lookAhead(suppressAdvice: boolean): void {
    let suppress = suppressAdvice;
    while (this.qLen < this.maxIos && this.pinned + this.pendingBlocks < this.distance) {
      if (this.pendingBlocks === this.combine) {
        this.startPending(suppress);
        suppress = false;
        continue;
      }
      if (this.claimNext === this.claimEnd) {
        if (!this.client.nextRun(this.run)) {
          this.distance = 0;
          break;
        }
        this.claimNext = this.run.start;
        this.claimEnd = this.run.start + this.run.blocks;
      }
      const b = this.claimNext;
      if (
        this.pendingBlocks > 0 &&
        b === this.pendingStart + this.pendingBlocks &&
        b < this.pendingSegmentEnd
      ) {
        // As many following blocks as the one-at-a-time loop would add before any of its conditions changes.
        const take = Math.min(
          this.claimEnd - b,
          this.combine - this.pendingBlocks,
          this.distance - this.pinned - this.pendingBlocks,
          this.pendingSegmentEnd - b,
        );
        this.pendingBlocks += take;
        this.claimNext += take;
        continue;
      }
      if (this.pendingBlocks > 0) {
        this.startPending(suppress);
        suppress = false;
        // At max_ios the block stays with the source (PostgreSQL "ungets" it) until a read is waited for.
        if (this.qLen === this.maxIos) return;
      }
      this.pendingStart = b;
      this.pendingBlocks = 1;
      this.pendingSegmentEnd = (Math.floor(b / this.segmentBlocks) + 1) * this.segmentBlocks;
      this.claimNext++;
    }
    if (
      this.pendingBlocks > 0 &&
      (this.pendingBlocks === this.combine ||
        (this.pendingBlocks === this.distance && this.pinned === 0) ||
        this.distance === 0) &&
      this.qLen < this.maxIos
    ) {
      this.startPending(suppress);
    }
  }

  private startPending(suppressAdvice: boolean): void {
    const start = this.pendingStart;
    const blocks = this.pendingBlocks;
    const advised = !suppressAdvice && this.adviceOn && start !== this.seqBlock;
    if (advised) this.client.advise(start, blocks);
    let tail = this.qHead + this.qLen;
    if (tail >= this.maxIos) tail -= this.maxIos;
    this.qStart[tail] = start;
    this.qBlocks[tail] = blocks;
    this.qAdvised[tail] = advised ? 1 : 0;
    this.qLen++;
    this.pinned += blocks;
    this.seqBlock = start + blocks;
    this.pendingBlocks = 0;
  }
}

/** The order of a prefetch experiment (@scanlab/core's, shared with the simulator's plain-file reader). */
export type { ReadPattern } from "@scanlab/core";
/** Block numbers in a prefetch experiment's order (@scanlab/core `readOrder`). */
export { readOrder as patternOrder } from "@scanlab/core";
