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
 * - one `fs.readSync(fd, buffer, 0, blockBytes, position)` per block, into
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
import { readSync } from "node:fs";
import type { Participant } from "@scanlab/block-allocator";
import { ReadRecorder, RunRecorder } from "./run-recorder.js";
import type { LoopContext, LoopOutcome } from "./worker-modes.js";
import { CONTROL_ABORT } from "./worker-protocol.js";

/** The worker's blocks from the allocator, one `pread` per block. */
export function blockLoop(
  ctx: LoopContext,
  participant: Participant,
  onClaim: ((firstBlock: number, blocks: number) => void) | null,
): LoopOutcome {
  const { fds, segmentBlocks, blockBytes, nblocks, lastBlockBytes, flags, sink } = ctx;
  // The one buffer: 4-byte aligned so the checksum and byte counting can read words.
  const storage = new ArrayBuffer(Math.ceil(blockBytes / 4) * 4);
  const bytes = new Uint8Array(storage, 0, blockBytes);
  const words = new Uint32Array(storage);
  const lastBlock = nblocks - 1;
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
      const fd = fds[seg]!;
      let pos = (block - seg * segmentBlocks) * blockBytes;
      const segEnd = Math.min(end, (seg + 1) * segmentBlocks);
      for (; block < segEnd; block++, pos += blockBytes) {
        if (Atomics.load(flags, CONTROL_ABORT) !== 0) {
          aborted = true;
          break scan;
        }
        sink.block = block;
        const want = block === lastBlock ? lastBlockBytes : blockBytes;
        let got = readSync(fd, bytes, 0, want, pos);
        while (got < want) {
          // The file shrank (or a rare short read): ask for the rest until end of file.
          const n = readSync(fd, bytes, got, want - got, pos + got);
          if (n === 0) break;
          got += n;
        }
        sink.take(bytes, words, got, want, block);
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
