/**
 * The worker's read loop, compiled before the timed window.
 *
 * Problem. A scan worker is a fresh V8 isolate: its read loop starts in the
 * bytecode interpreter and runs optimised only after some thousands of
 * iterations and a background compilation that competes for the CPU. On a warm file the
 * first tens of MiB of a scan then take about twice their steady time (10 ms
 * or more of a 512 MiB scan at 3 to 10 GB/s), a cost a PostgreSQL backend,
 * compiled ahead of time, does not have. Compiling is set-up, and set-up is
 * not timed (scan-workers.ts).
 *
 * Design choices.
 * - Before saying "ready", the worker runs the very loop function it will
 *   scan with, on /dev/zero: the same block size, work, recording and
 *   allocator policy, with a private allocator of at most
 *   {@link WARM_UP_READS} reads' worth of blocks and its own cover
 *   counters, progress word and abort flag in a private SharedArrayBuffer. The target's files, the
 *   scan's allocator, the syncscan tracker and the shared counters are not
 *   touched, so the scan's reads, counters and results are those of a worker
 *   without warm-up; `setupUs` grows by the warm-up's time.
 * - The warm-up's context is built where the scan's is (`loopContext`), and
 *   its participant is attached to its allocator as the worker attaches to
 *   the scan's, so the loop sees objects of the same shapes and its compiled
 *   code still holds for the scan (V8 discards code whose assumptions about
 *   shapes break).
 * - A user's per-block module is not called (it may count or keep state):
 *   the warm-up sink does no work in its place. Advice is not given (no
 *   posix_fadvise of /dev/zero). A scan that differs from its warm-up there
 *   compiles that part of the loop as it runs, as it would without warm-up.
 * - What runs once per read or per claim is a function of its own, called
 *   by the loop (block-loop.ts readBlocks, worker-modes.ts StreamReader):
 *   V8 compiles such a function as a whole after enough calls, and the scan
 *   calls the same compiled function. Code inside the loop function itself
 *   would be compiled only by on-stack replacement of the running call, and
 *   the scan's call is a new one, which starts over in the interpreter.
 * - The loop runs {@link WARM_UP_PASSES} times, so that the compilations the
 *   first run started have finished before the window opens.
 * - Where /dev/zero cannot be opened, or a warm-up run throws, there is no
 *   warm-up: it only moves compilation out of the timed window.
 *
 * Interface: {@link warmUp}, {@link warmUpMode}.
 */
import { closeSync, constants, openSync } from "node:fs";
import {
  attachSharedParallelScan,
  createSharedParallelScan,
  type Participant,
  type ResolvedPolicy,
} from "@scanlab/block-allocator";
import type { ReadMode } from "./scan-options.js";
import { BlockSink, type LoopContext, type LoopOutcome, loopContext } from "./worker-modes.js";
import { CONTROL_PROGRESS_BYTE_OFFSET, controlBytes, WORK_MODULE, WORK_NONE } from "./worker-protocol.js";

/**
 * Reads per warm-up run, at most (no more blocks than the target has).
 * scanlab's choice: V8 needs a few thousand iterations and, on a 2-core
 * machine, some milliseconds of background compilation before the loop runs
 * optimised; three runs of 8192 reads leave it the time, for some 40 to
 * 70 ms of set-up per worker in 8 kB mode (more with checksum or count-bytes
 * work, which the warm-up runs too). Two runs of 4096 reads are not enough:
 * the loop is then still being compiled when the window opens. Counted in
 * reads, not blocks, because the loop's iterations are reads: a read stream
 * combining 16 blocks a read needs as many reads as 8 kB mode does.
 */
export const WARM_UP_READS = 8192;
/** Warm-up runs of the loop (scanlab's choice: the loop is compiled during the first, entered compiled by the others). */
export const WARM_UP_PASSES = 3;

/** A scan's loop: the function the worker scans with, on a context and a participant. */
export type ScanLoop = (
  ctx: LoopContext,
  participant: Participant,
  onClaim: ((firstBlock: number, blocks: number) => void) | null,
) => LoopOutcome;

/** The read mode a warm-up runs: the scan's, without advice. */
export function warmUpMode(mode: ReadMode): ReadMode {
  if (mode.kind === "read-stream") return { ...mode, advice: false };
  if (mode.kind === "pattern") return { ...mode, adviseDistance: 0 };
  return mode;
}

/**
 * Runs `loop` over /dev/zero as the scan described by `scan` will run it
 * (block size, work, recording, allocator `policy`), so that it is compiled
 * when the timed window opens. Touches nothing of the scan's.
 */
export function warmUp(scan: LoopContext, policy: ResolvedPolicy, mode: ReadMode, loop: ScanLoop): void {
  let fd: number;
  try {
    fd = openSync("/dev/zero", constants.O_RDONLY);
  } catch {
    return;
  }
  try {
    const blocksPerRead = mode.kind === "read-stream" ? mode.ioCombineLimit : 1;
    const blocks = Math.min(WARM_UP_READS * blocksPerRead, scan.nblocks);
    const control = new SharedArrayBuffer(controlBytes(1));
    const cover = scan.sink.cover === null ? null : new Uint8Array(new SharedArrayBuffer(blocks));
    const work = scan.sink.work === WORK_MODULE ? WORK_NONE : scan.sink.work;
    for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
      const ctx = loopContext({
        ...scan,
        fds: [fd],
        segmentBlocks: blocks,
        nblocks: blocks,
        lastBlockBytes: scan.blockBytes,
        flags: new Int32Array(control, 0, 2),
        sink: new BlockSink(work, null, cover, new Uint32Array(control, CONTROL_PROGRESS_BYTE_OFFSET, 1)),
      });
      // Attached as the worker attaches to the scan's allocator, so the participant is built the same way.
      const allocator = createSharedParallelScan(policy, { nblocks: blocks });
      loop(ctx, attachSharedParallelScan(allocator.buffer, { hooks: {} }).join(), null);
    }
  } catch {
    // No warm-up: the scan compiles its loop as it runs.
  } finally {
    closeSync(fd);
  }
}
