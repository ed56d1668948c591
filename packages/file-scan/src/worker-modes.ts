/**
 * The read loops of a scan worker besides one block per read (block-loop.ts):
 * a PG17 read stream, and the prefetch experiment's fixed order.
 *
 * - **Read stream.** The worker's blocks come from the shared allocator as
 *   before, but through {@link ReadStreamPlan} (read-plan.ts), which decides
 *   which consecutive blocks form one read, which reads are advised and how
 *   far ahead. The slots, one per block, are one allocation made before the
 *   scan, each starting on a 4-byte boundary so the per-block work can read
 *   words. As PostgreSQL's md.c does with buffers that are contiguous in
 *   memory (buffers_to_iovec), slots that follow each other go in one iovec,
 *   which for block sizes that are a multiple of 4 bytes is all of them, and
 *   a read of one iovec is one pread(2) (pread.ts), as pg_preadv makes it.
 * - **Prefetch pattern.** One worker reads every block once, one block per
 *   `pread`, forward, backward, or in a seeded random permutation, and before
 *   reading the i-th block advises the (i + d)-th (the first d are advised
 *   before the first read): the plain user-level prefetcher whose benefit,
 *   or loss, against the kernel's own readahead it measures.
 *
 * Advice is posix_fadvise(WILLNEED) of the read's byte range on the segment
 * file that holds it (fadvise.ts), through the binding the worker loaded
 * during set-up: loading it takes milliseconds, which the timed window
 * must not contain. Every loop, the one-block loop too, accounts its blocks
 * through a {@link BlockSink}: cover counter, progress word, per-block work.
 */
import { readvSync } from "node:fs";
import type { Participant } from "@scanlab/block-allocator";
import { mulberry32 } from "@scanlab/core";
import { blockChecksumWords, countNonZeroBytesWords } from "./block-work.js";
import type { Fadvise } from "./fadvise.js";
import type { PreadFn } from "./pread.js";
import { patternOrder, ReadStreamPlan, type SourceRun, type StreamClient } from "./read-plan.js";
import { ReadRecorder, RunRecorder } from "./run-recorder.js";
import { modeAdvises, type ReadMode } from "./scan-options.js";
import { CONTROL_ABORT, WORK_CHECKSUM, WORK_COUNT_BYTES, WORK_NONE } from "./worker-protocol.js";

/** 2^32, for the carry of the 64-bit checksum sum. */
const TWO_POW_32 = 4294967296;

/** What a read loop works with. */
export interface LoopContext {
  readonly fds: readonly number[];
  readonly segmentBlocks: number;
  readonly blockBytes: number;
  readonly nblocks: number;
  readonly lastBlockBytes: number;
  readonly flags: Int32Array;
  readonly recordRuns: boolean;
  readonly recordReads: boolean;
  readonly sink: BlockSink;
  /** The posix_fadvise binding, loaded at set-up when the scan advises (else null: no advice). */
  readonly fadvise: Fadvise | null;
  /** The read call (pread.ts), bound at set-up. */
  readonly pread: PreadFn;
}

/** What happens to each block read: cover counter, progress, per-block work, totals. */
export class BlockSink {
  blocksRead = 0;
  bytesRead = 0;
  shortReads = 0;
  firstShortBlock = -1;
  nonZero = 0;
  sumLo = 0;
  sumHi = 0;
  moduleTotal = 0;
  /** The block being read or worked on (for error messages). */
  block = -1;
  /** True while the user's module runs (an exception then is the module's). */
  inModule = false;

  constructor(
    /** WORK_* code. */
    readonly work: number,
    private readonly moduleFn: ((bytes: Uint8Array, block: number) => unknown) | null,
    /** One cover counter per block, or null. */
    readonly cover: Uint8Array | null,
    private readonly progress: Uint32Array,
  ) {}

  /** Accounts block `block`, of which `got` of `want` bytes were read into `bytes` (`words` views the same memory). */
  take(bytes: Uint8Array, words: Uint32Array, got: number, want: number, block: number): void {
    this.block = block;
    if (got < want) {
      this.shortReads++;
      if (this.firstShortBlock < 0) this.firstShortBlock = block;
    }
    this.bytesRead += got;
    this.blocksRead++;
    if (this.cover !== null) Atomics.add(this.cover, block, 1);
    this.progress[0] = this.blocksRead;
    const work = this.work;
    if (work === 0) return;
    if (work === WORK_CHECKSUM) {
      this.sumLo += blockChecksumWords(bytes, words, got, block);
      if (this.sumLo >= TWO_POW_32) {
        this.sumLo -= TWO_POW_32;
        this.sumHi++;
      }
    } else if (work === WORK_COUNT_BYTES) {
      this.nonZero += countNonZeroBytesWords(bytes, words, got);
    } else if (this.moduleFn !== null) {
      this.inModule = true;
      const r = this.moduleFn(got === bytes.length ? bytes : bytes.subarray(0, got), block);
      this.inModule = false;
      if (typeof r === "number") this.moduleTotal += r;
    }
  }

  /**
   * Accounts `blocks` whole blocks from `first`, read by one read of `bytes`
   * bytes, when there is no per-block work: each block's cover counter, then
   * the totals and the progress word once for the read.
   */
  takeWholeBlocks(first: number, blocks: number, bytes: number): void {
    const end = first + blocks;
    this.block = end - 1;
    const cover = this.cover;
    if (cover !== null) for (let b = first; b < end; b++) Atomics.add(cover, b, 1);
    this.bytesRead += bytes;
    this.blocksRead += blocks;
    this.progress[0] = this.blocksRead;
  }
}

/**
 * A loop context. Every context is built here, so that all of them (the
 * scan's and the warm-up's, warm-up.ts) have one shape and the loop's
 * compiled code serves both.
 */
export function loopContext(c: LoopContext): LoopContext {
  return {
    fds: c.fds,
    segmentBlocks: c.segmentBlocks,
    blockBytes: c.blockBytes,
    nblocks: c.nblocks,
    lastBlockBytes: c.lastBlockBytes,
    flags: c.flags,
    recordRuns: c.recordRuns,
    recordReads: c.recordReads,
    sink: c.sink,
    fadvise: c.fadvise,
    pread: c.pread,
  };
}

/** What a read loop did, beyond its sink. */
export interface LoopOutcome {
  readonly aborted: boolean;
  readonly claims: number;
  readonly runs: RunRecorder;
  readonly reads: ReadRecorder;
  readonly claimList: RunRecorder | null;
  readonly adviceCalls: number;
  readonly adviceFailed: number;
  readonly adviceErrno: number;
  readonly adviceUnavailable: string | null;
}

/** posix_fadvise(WILLNEED) of blocks of the target, counted; or the reason it cannot be given. */
class Advisor {
  calls = 0;
  failed = 0;
  errno = 0;
  readonly unavailable: string | null;
  private readonly willNeed: ((fd: number, offset: number, len: number) => number) | null;

  constructor(
    wanted: boolean,
    private readonly ctx: LoopContext,
  ) {
    const f = wanted ? ctx.fadvise : null;
    if (f === null) {
      this.willNeed = null;
      this.unavailable = null;
      return;
    }
    this.willNeed = f.ok ? f.willNeed : null;
    this.unavailable = f.ok ? null : f.reason;
  }

  /** Whether advice is asked for and can be given. */
  get on(): boolean {
    return this.willNeed !== null;
  }

  /** Advises `blocks` blocks from `first` (all in one segment file). */
  advise(first: number, blocks: number): void {
    if (this.willNeed === null) return;
    const { segmentBlocks, blockBytes, fds } = this.ctx;
    const seg = Math.floor(first / segmentBlocks);
    const rc = this.willNeed(fds[seg]!, (first - seg * segmentBlocks) * blockBytes, blocks * blockBytes);
    this.calls++;
    if (rc !== 0) {
      this.failed++;
      if (this.errno === 0) this.errno = rc;
    }
  }
}

/**
 * Reads the rest of a short read, block slot by block slot, until end of
 * file; returns the bytes now read in total.
 */
export function refill(
  pread: PreadFn,
  fd: number,
  slots: readonly Uint8Array[],
  blockBytes: number,
  got: number,
  want: number,
  pos: number,
): number {
  while (got < want) {
    const k = Math.floor(got / blockBytes);
    const off = got - k * blockBytes;
    const slot = slots[k]!;
    const n = pread(
      fd,
      off === 0 ? slot : slot.subarray(off),
      Math.min(slot.length - off, want - got),
      pos + got,
    );
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * One worker's read stream: the plan's client (claims from the allocator,
 * advice through the Advisor) and the reader of each read the plan starts.
 * A class, and not closures made per loop, so that the warm-up's loop and
 * the scan's call the very same functions, and the code V8 compiled during
 * the warm-up (warm-up.ts) still serves the scan.
 */
class StreamReader implements StreamClient {
  claims = 0;
  readonly plan: ReadStreamPlan;
  readonly reads: ReadRecorder;
  readonly runs: RunRecorder;
  readonly claimList: RunRecorder | null;
  readonly advisor: Advisor;
  private readonly perBlock: boolean;
  private readonly slots: Uint8Array[] = [];
  private readonly slotWords: Uint32Array[] = [];
  private readonly iovecs: Uint8Array[][] = [[]];
  /** Whether every read is one buffer (then read with pread, as pg_preadv does with one iovec). */
  private readonly contiguous: boolean;
  private readonly lastBlock: number;
  private readonly partialTail: number;
  private runStart = -1;
  private runEnd = -1;

  constructor(
    private readonly ctx: LoopContext,
    private readonly participant: Participant,
    private readonly onClaim: ((firstBlock: number, blocks: number) => void) | null,
    mode: Extract<ReadMode, { kind: "read-stream" }>,
  ) {
    const { blockBytes, nblocks, lastBlockBytes } = ctx;
    const N = mode.ioCombineLimit;
    this.advisor = new Advisor(modeAdvises(mode), ctx);
    this.claimList = ctx.recordReads ? new RunRecorder(true) : null;
    this.reads = new ReadRecorder(ctx.recordReads);
    this.runs = new RunRecorder(ctx.recordRuns);
    this.perBlock = this.advisor.on;
    this.lastBlock = nblocks - 1;
    this.partialTail = blockBytes - lastBlockBytes;

    // One slot per block of the largest read, each on a 4-byte boundary.
    const stride = Math.ceil(blockBytes / 4) * 4;
    const storage = new ArrayBuffer(stride * N);
    for (let k = 0; k < N; k++) {
      this.slots.push(new Uint8Array(storage, k * stride, blockBytes));
      this.slotWords.push(new Uint32Array(storage, k * stride, stride / 4));
    }
    // The iovec array of a read of `len` blocks: the first len slots. Slots that follow each other in
    // memory go in one iovec, as md.c's buffers_to_iovec coalesces contiguous buffers; with a block size
    // that is a multiple of 4 bytes every slot does, and a read is one buffer.
    const contiguous = stride === blockBytes;
    this.contiguous = contiguous;
    for (let len = 1; len <= N; len++)
      this.iovecs.push(
        contiguous ? [new Uint8Array(storage, 0, len * blockBytes)] : this.slots.slice(0, len),
      );

    this.plan = new ReadStreamPlan(
      {
        ioCombineLimit: N,
        effectiveIoConcurrency: mode.effectiveIoConcurrency,
        advice: this.advisor.on,
        segmentBlocks: ctx.segmentBlocks,
      },
      this,
    );
  }

  nextRun(out: SourceRun): boolean {
    if (Atomics.load(this.ctx.flags, CONTROL_ABORT) !== 0) return false;
    const run = this.participant.nextRun();
    if (run === null) return false;
    this.claims++;
    this.claimList?.push(run.startBlock, run.blocks);
    this.onClaim?.(run.startBlock, run.blocks);
    out.start = run.startBlock;
    out.blocks = run.blocks;
    return true;
  }

  advise(firstBlock: number, blocks: number): void {
    this.advisor.advise(firstBlock, blocks);
  }

  /** Performs the read `plan.waitHead()` just moved to and hands its blocks to the sink. */
  read(): void {
    const { fds, segmentBlocks, blockBytes, lastBlockBytes, sink, pread } = this.ctx;
    const plan = this.plan;
    const perBlock = this.perBlock;
    const lastBlock = this.lastBlock;
    const start = plan.ioStart;
    const len = plan.ioBlocks;
    const seg = Math.floor(start / segmentBlocks);
    const fd = fds[seg]!;
    const pos = (start - seg * segmentBlocks) * blockBytes;
    const want = len * blockBytes - (start + len - 1 === lastBlock ? this.partialTail : 0);
    sink.block = start;
    const iovec = this.iovecs[len]!;
    let got = this.contiguous ? pread(fd, iovec[0]!, len * blockBytes, pos) : readvSync(fd, iovec, pos);
    if (got < want) got = refill(pread, fd, this.slots, blockBytes, got, want, pos);
    this.reads.pushRead(start, len, plan.ioAdvised);
    if (start !== this.runEnd) {
      if (this.runEnd > this.runStart) this.runs.push(this.runStart, this.runEnd - this.runStart);
      this.runStart = start;
    }
    this.runEnd = start + len;
    if (!perBlock && got === want && sink.work === WORK_NONE) {
      sink.takeWholeBlocks(start, len, got);
    } else {
      for (let k = 0; k < len; k++) {
        // With advice, look ahead after each block as PostgreSQL does: it decides how far ahead advice goes.
        if (perBlock) plan.release(1);
        const b = start + k;
        const blockWant = b === lastBlock ? lastBlockBytes : blockBytes;
        const left = got - k * blockBytes;
        sink.take(
          this.slots[k]!,
          this.slotWords[k]!,
          left <= 0 ? 0 : Math.min(left, blockWant),
          blockWant,
          b,
        );
      }
    }
    if (!perBlock) plan.release(len);
  }

  /** Records the run being read when the stream ends. */
  finish(): void {
    if (this.runEnd > this.runStart) this.runs.push(this.runStart, this.runEnd - this.runStart);
  }
}

/**
 * The worker's blocks through a PG17 read stream: claims from the allocator
 * (`participant.nextRun`), combined reads of up to io_combine_limit blocks,
 * advice per the stream's rule.
 */
export function readStreamLoop(
  ctx: LoopContext,
  participant: Participant,
  onClaim: ((firstBlock: number, blocks: number) => void) | null,
  mode: Extract<ReadMode, { kind: "read-stream" }>,
): LoopOutcome {
  const reader = new StreamReader(ctx, participant, onClaim, mode);
  const { plan, advisor } = reader;
  let aborted = false;
  while (plan.waitHead()) {
    if (Atomics.load(ctx.flags, CONTROL_ABORT) !== 0) {
      aborted = true;
      break;
    }
    reader.read();
  }
  reader.finish();
  return {
    aborted,
    claims: reader.claims,
    runs: reader.runs,
    reads: reader.reads,
    claimList: reader.claimList,
    adviceCalls: advisor.calls,
    adviceFailed: advisor.failed,
    adviceErrno: advisor.errno,
    adviceUnavailable: advisor.unavailable,
  };
}

/** The prefetch experiment: every block once in `mode.pattern` order, advising `mode.adviseDistance` reads ahead. */
export function patternLoop(ctx: LoopContext, mode: Extract<ReadMode, { kind: "pattern" }>): LoopOutcome {
  const { fds, segmentBlocks, blockBytes, nblocks, lastBlockBytes, flags, sink, pread } = ctx;
  const d = mode.adviseDistance;
  const advisor = new Advisor(modeAdvises(mode), ctx);
  const reads = new ReadRecorder(ctx.recordReads);
  const runs = new RunRecorder(ctx.recordRuns);
  const order = patternOrder(mode.pattern, nblocks, mulberry32(mode.seed).below);

  const storage = new ArrayBuffer(Math.ceil(blockBytes / 4) * 4);
  const bytes = new Uint8Array(storage, 0, blockBytes);
  const words = new Uint32Array(storage);
  const slots = [bytes];
  const lastBlock = nblocks - 1;
  const advised = advisor.on;
  if (advised) for (let i = 0; i < d; i++) advisor.advise(order[i]!, 1);

  let aborted = false;
  let runStart = -1;
  let runEnd = -1;
  for (let i = 0; i < nblocks; i++) {
    if (Atomics.load(flags, CONTROL_ABORT) !== 0) {
      aborted = true;
      break;
    }
    if (advised && i + d < nblocks) advisor.advise(order[i + d]!, 1);
    const b = order[i]!;
    const seg = Math.floor(b / segmentBlocks);
    const fd = fds[seg]!;
    const pos = (b - seg * segmentBlocks) * blockBytes;
    const want = b === lastBlock ? lastBlockBytes : blockBytes;
    sink.block = b;
    let got = pread(fd, bytes, want, pos);
    if (got < want) got = refill(pread, fd, slots, blockBytes, got, want, pos);
    reads.pushRead(b, 1, advised);
    if (b !== runEnd) {
      if (runEnd > runStart) runs.push(runStart, runEnd - runStart);
      runStart = b;
    }
    runEnd = b + 1;
    sink.take(bytes, words, got, want, b);
  }
  if (runEnd > runStart) runs.push(runStart, runEnd - runStart);
  return {
    aborted,
    claims: 0,
    runs,
    reads,
    claimList: null,
    adviceCalls: advisor.calls,
    adviceFailed: advisor.failed,
    adviceErrno: advisor.errno,
    adviceUnavailable: advisor.unavailable,
  };
}
