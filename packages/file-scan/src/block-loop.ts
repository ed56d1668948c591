/**
 * The one-block-per-read loop of a scan worker: PostgreSQL 16 and older.
 *
 * A parallel seq scan participant asks the shared allocator for its next
 * block, reads that one block with a synchronous positioned read into a
 * buffer (pread(2) of BLCKSZ bytes, FileRead in fd.c), processes it, and
 * asks again. This loop does the same with the worker's own descriptors:
 *
 * - blocks from the shared allocator, claimed as runs (`nextRun`), each
 *   claim passed to `onClaim` (the syncscan report) before its blocks are read;
 * - one pread(fd, buffer, blockBytes, position) per block (pread.ts), into
 *   one buffer allocated before the scan starts (no allocation, message or
 *   promise per block);
 * - before each read, the abort flag (Atomics.load, a plain load on x86 and
 *   ARM64); after it, the block's accounting through the {@link BlockSink}
 *   (cover counter, progress word, per-block work).
 *
 * A read that returns fewer bytes than the block held when the scan started
 * means the file shrank under us: the rest is re-requested until the kernel
 * returns 0 (end of file), then the block counts as a short read (PostgreSQL
 * would raise "could not read block"; we finish and report it).
 */
import type { Participant } from "@scanlab/block-allocator";
import { ReadRecorder, RunRecorder } from "./run-recorder.js";
import { type LoopContext, type LoopOutcome, refill } from "./worker-modes.js";
import { CONTROL_ABORT } from "./worker-protocol.js";

/** The one buffer: 4-byte aligned so the checksum and byte counting can read words. */
class BlockBuffer {
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;
  /** The buffer as the one slot `refill` fills. */
  readonly slots: Uint8Array[];

  constructor(blockBytes: number) {
    const storage = new ArrayBuffer(Math.ceil(blockBytes / 4) * 4);
    this.bytes = new Uint8Array(storage, 0, blockBytes);
    this.words = new Uint32Array(storage);
    this.slots = [this.bytes];
  }
}

/**
 * Reads blocks [from, to) of the segment file `fd`, `pos` being the first
 * one's offset in it, one pread each, and accounts them; returns the block it
 * stopped at: `to`, or the block it did not read because the scan was
 * aborted. A function of its own, called once per claim (and segment), so
 * that V8 compiles it as a whole during the warm-up (warm-up.ts), where a
 * loop inside the scan's one long call would be compiled by on-stack
 * replacement, in the timed window.
 */
function readBlocks(
  ctx: LoopContext,
  buffer: BlockBuffer,
  fd: number,
  from: number,
  to: number,
  pos: number,
): number {
  const { blockBytes, nblocks, lastBlockBytes, flags, sink, pread } = ctx;
  const { bytes, words } = buffer;
  const lastBlock = nblocks - 1;
  let block = from;
  for (; block < to; block++, pos += blockBytes) {
    if (Atomics.load(flags, CONTROL_ABORT) !== 0) break;
    sink.block = block;
    const want = block === lastBlock ? lastBlockBytes : blockBytes;
    let got = pread(fd, bytes, want, pos);
    // The file shrank (or a rare short read): ask for the rest until end of file.
    if (got < want) got = refill(pread, fd, buffer.slots, blockBytes, got, want, pos);
    sink.take(bytes, words, got, want, block);
  }
  return block;
}

/** The worker's blocks from the allocator, one `pread` per block. */
export function blockLoop(
  ctx: LoopContext,
  participant: Participant,
  onClaim: ((firstBlock: number, blocks: number) => void) | null,
): LoopOutcome {
  const { fds, segmentBlocks, blockBytes, flags, sink } = ctx;
  const buffer = new BlockBuffer(blockBytes);
  const runs = new RunRecorder(ctx.recordRuns);

  // The run being read, [curStart, curEnd): curEnd is where the last claim
  // ended; the blocks actually read are [curStart, block).
  let curStart = -1;
  let curEnd = -1;
  let block = -1;
  let claims = 0;
  let aborted = false;

  scan: for (;;) {
    if (Atomics.load(flags, CONTROL_ABORT) !== 0) {
      aborted = true;
      break;
    }
    const run = participant.nextRun();
    if (run === null) break;
    claims++;
    onClaim?.(run.startBlock, run.blocks);
    block = run.startBlock;
    const end = block + run.blocks;
    if (block !== curEnd) {
      if (curEnd > curStart) runs.push(curStart, curEnd - curStart);
      curStart = block;
    }
    curEnd = end;
    while (block < end) {
      const seg = Math.floor(block / segmentBlocks);
      const segEnd = Math.min(end, (seg + 1) * segmentBlocks);
      const from = block;
      block = readBlocks(ctx, buffer, fds[seg]!, from, segEnd, (from - seg * segmentBlocks) * blockBytes);
      if (block < segEnd) {
        aborted = true;
        break scan;
      }
    }
  }
  // An abort stops before reading `block`, so the last run ends there, not at its claim's end.
  if (block > curStart) runs.push(curStart, block - curStart);

  // One read per block: the reads are the blocks, in the order of the runs.
  const reads = new ReadRecorder(ctx.recordReads);
  if (ctx.recordReads && runs.starts !== null && runs.lengths !== null) {
    for (let i = 0; i < runs.count; i++) reads.pushOneBlockReads(runs.starts[i]!, runs.lengths[i]!);
  } else {
    reads.countOneBlockReads(sink.blocksRead);
  }
  return {
    aborted,
    claims,
    runs,
    reads,
    claimList: null,
    adviceCalls: 0,
    adviceFailed: 0,
    adviceErrno: 0,
    adviceUnavailable: null,
  };
}
