/**
 * One scan worker: a PostgreSQL backend's sequential scan, minus the tuples.
 *
 * A parallel seq scan participant in PostgreSQL opens the relation's segment
 * files itself (md.c, one file descriptor per segment per backend), asks the
 * shared allocator for its next block (table_block_parallelscan_nextpage,
 * apps/docs/src/reference/parallel-block-allocation.md#atomic-counter, apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation), reads that one block with a synchronous positioned
 * read into a buffer (pread(2) of BLCKSZ bytes, FileRead in fd.c, before
 * PG17's read streams combined reads), processes it, and asks again. Which
 * blocks each process reads, in what order and with what gaps, is exactly
 * what the kernel's readahead sees, so it is what this worker reproduces:
 *
 * - its own read-only descriptors (O_RDONLY: the scan never writes,
 *   truncates or sets timestamps; only the kernel's atime update can happen);
 * - one `fs.readSync(fd, buffer, 0, blockBytes, position)` per block, into
 *   one buffer allocated before the scan starts (no allocation, message or
 *   promise per block: the loop below is the measurement);
 * - blocks from the shared allocator, claimed as runs (`nextRun`), reported to
 *   the syncscan tracker as PostgreSQL's participants report what they are
 *   handed (apps/docs/src/reference/synchronized-scans.md#parallel-scans);
 * - after each read: the cover counter of the block (Atomics.add, so a block
 *   read twice at the same moment by two workers still counts 2), the
 *   progress word (a plain store: aligned 32-bit stores to shared memory
 *   never tear, ECMA-262 "Shared Memory Guidelines", and progress needs no
 *   ordering), the per-block work; before each read, the abort flag
 *   (Atomics.load, a plain load on x86 and ARM64).
 *
 * That is the one-block-per-read loop of PostgreSQL 16 and older. With
 * io_combine_limit above 1 or advice (a PG17 read stream), or for a prefetch
 * pattern, the worker reads through worker-modes.ts instead, with the same
 * descriptors, allocator, counters and per-block work.
 *
 * A read that returns fewer bytes than the block held when the scan started
 * means the file shrank under us: the rest is re-requested until the kernel
 * returns 0 (end of file), then the block counts as a short read (PostgreSQL
 * would raise "could not read block"; we finish and report it).
 */

import { closeSync, constants, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { attachSharedParallelScan, type ScanHooks } from "@scanlab/block-allocator";
import { errorClause } from "@scanlab/core";
import { parallelSyncScanHooks, SharedSyncScanTracker } from "@scanlab/syncscan";
import { blockChecksumWords, countNonZeroBytesWords } from "./block-work.js";
import { errnoCode, type FileScanErrorCode } from "./errors.js";
import { ReadRecorder, RunRecorder } from "./run-recorder.js";
import { BlockSink, type LoopOutcome, patternLoop, readStreamLoop } from "./worker-modes.js";
import {
  CONTROL_ABORT,
  CONTROL_PROGRESS_BYTE_OFFSET,
  CONTROL_START,
  nowUs,
  WORK_CHECKSUM,
  WORK_COUNT_BYTES,
  WORK_MODULE,
  type WorkerData,
  type WorkerMessage,
  type WorkerTotals,
} from "./worker-protocol.js";

/** 2^32, for the carry of the 64-bit checksum sum. */
const TWO_POW_32 = 4294967296;

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

function fail(code: FileScanErrorCode, message: string): void {
  post({ type: "error", code, message });
}

async function loadModule(
  url: string,
): Promise<{ fn: (bytes: Uint8Array, block: number) => unknown; finish: (() => unknown) | null } | string> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    return `the per-block work module ${url} could not be loaded (${errorClause(error)}).`;
  }
  const fn = mod.default;
  if (typeof fn !== "function") {
    return `the per-block work module ${url} must have a default export that is a function (bytes, blockNumber).`;
  }
  const finish = typeof mod.finish === "function" ? (mod.finish as () => unknown) : null;
  return { fn: fn as (bytes: Uint8Array, block: number) => unknown, finish };
}

async function main(): Promise<void> {
  const data = workerData as WorkerData;
  const { index, blockBytes, nblocks, lastBlockBytes, segmentBlocks, work, recordRuns } = data;

  // Per-block work module, loaded before the timed window.
  let moduleFn: ((bytes: Uint8Array, block: number) => unknown) | null = null;
  let moduleFinish: (() => unknown) | null = null;
  if (work === WORK_MODULE && data.workModule !== null) {
    const loaded = await loadModule(data.workModule);
    if (typeof loaded === "string") {
      fail("FILESCAN_BAD_WORK_MODULE", loaded);
      return;
    }
    moduleFn = loaded.fn;
    moduleFinish = loaded.finish;
  }

  // Own read-only descriptors, one per segment, as a backend's md.c opens them.
  const fds: number[] = [];
  for (const segment of data.segments) {
    try {
      fds.push(openSync(segment.path, constants.O_RDONLY));
    } catch (error) {
      for (const fd of fds) closeSync(fd);
      const code = errnoCode(error);
      if (code === "EACCES" || code === "EPERM") {
        fail(
          "FILESCAN_PERMISSION_DENIED",
          `${segment.path} cannot be opened for reading: permission denied.`,
        );
      } else if (code === "ENOENT") {
        fail("FILESCAN_NOT_FOUND", `${segment.path} disappeared before the scan started.`);
      } else {
        fail("FILESCAN_READ_FAILED", `${segment.path} cannot be opened (${errorClause(error)}).`);
      }
      return;
    }
  }

  let hooks: ScanHooks = {};
  let onRun: ((firstBlock: number, blocks: number) => boolean) | null = null;
  if (data.tracker !== null) {
    const tracker = SharedSyncScanTracker.attach(data.tracker);
    const h = parallelSyncScanHooks(tracker, { key: data.syncKey, nblocks, sync: true });
    hooks = h;
    onRun = h.onRun;
  }
  const me = attachSharedParallelScan(data.allocator, { hooks }).join();

  if (data.mode.kind !== "blocks") {
    const flags = new Int32Array(data.control, 0, 2);
    const sink = new BlockSink(
      work,
      moduleFn,
      data.cover === null ? null : new Uint8Array(data.cover),
      new Uint32Array(data.control, CONTROL_PROGRESS_BYTE_OFFSET + 4 * index, 1),
    );
    const ctx = {
      fds,
      segmentBlocks,
      blockBytes,
      nblocks,
      lastBlockBytes,
      flags,
      recordRuns,
      recordReads: data.recordReads,
      sink,
    };
    const mode = data.mode;
    const report = onRun;
    // pg96: the call that made the end-of-scan report does not report its own block (as in the loop below).
    const onClaim =
      report === null
        ? null
        : (first: number, blocks: number): void => {
            if (!(data.pg96 && me.endedScan)) report(first, blocks);
          };
    post({ type: "ready" });
    Atomics.wait(flags, CONTROL_START, 0);
    const startedAtUs = nowUs();
    let outcome: LoopOutcome;
    try {
      outcome = mode.kind === "read-stream" ? readStreamLoop(ctx, me, onClaim, mode) : patternLoop(ctx, mode);
    } catch (error) {
      for (const fd of fds) closeSync(fd);
      Atomics.store(flags, CONTROL_ABORT, 1); // the others stop too
      if (sink.inModule) {
        fail(
          "FILESCAN_WORK_FAILED",
          `the per-block work module threw on block ${sink.block} (${errorClause(error)}).`,
        );
      } else {
        fail("FILESCAN_READ_FAILED", `reading block ${sink.block} failed (${errorClause(error)}).`);
      }
      return;
    }
    const endedAtUs = nowUs();
    for (const fd of fds) closeSync(fd);
    const { runs, reads, claimList } = outcome;
    finishWorker(
      {
        blocks: sink.blocksRead,
        bytes: sink.bytesRead,
        claims: outcome.claims,
        runCount: runs.count,
        minRunBlocks: runs.minBlocks,
        maxRunBlocks: runs.maxBlocks,
        runStarts: runs.starts,
        runLengths: runs.lengths,
        shortReads: sink.shortReads,
        firstShortBlock: sink.firstShortBlock,
        startedAtUs,
        endedAtUs,
        ops: me.opsPerformed,
        aborted: outcome.aborted,
        nonZeroBytes: sink.nonZero,
        checksumLo: sink.sumLo,
        checksumHi: sink.sumHi,
        moduleTotal: sink.moduleTotal,
        moduleFinish: undefined,
        readCalls: reads.count,
        maxReadBlocks: reads.maxBlocks,
        adviceCalls: outcome.adviceCalls,
        adviceFailed: outcome.adviceFailed,
        adviceErrno: outcome.adviceErrno,
        adviceUnavailable: outcome.adviceUnavailable,
        readStarts: reads.starts,
        readLengths: reads.lengths,
        readAdvised: reads.advised,
        claimStarts: claimList?.starts ?? null,
        claimLengths: claimList?.lengths ?? null,
      },
      moduleFinish,
      [...runs.buffers(), ...reads.buffers(), ...(claimList?.buffers() ?? [])],
    );
    return;
  }

  // The one buffer: 4-byte aligned so the checksum and byte counting can read words.
  const storage = new ArrayBuffer(Math.ceil(blockBytes / 4) * 4);
  const bytes = new Uint8Array(storage, 0, blockBytes);
  const words = new Uint32Array(storage);
  const lastBytes = new Uint8Array(storage, 0, lastBlockBytes);
  const flags = new Int32Array(data.control, 0, 2);
  const progress = new Uint32Array(data.control, CONTROL_PROGRESS_BYTE_OFFSET + 4 * index, 1);
  const cover = data.cover === null ? null : new Uint8Array(data.cover);
  const lastBlock = nblocks - 1;

  const runs = new RunRecorder(recordRuns);
  // The run being read, [curStart, curEnd): kept in locals (not in a closure) so the claim path touches
  // registers only. curEnd is where the last claim ended; the blocks actually read are [curStart, block).
  let curStart = -1;
  let curEnd = -1;

  let blocksRead = 0;
  let bytesRead = 0;
  let claims = 0;
  let shortReads = 0;
  let firstShortBlock = -1;
  let aborted = false;
  let nonZero = 0;
  let sumLo = 0;
  let sumHi = 0;
  let moduleTotal = 0;
  let block = -1;
  let inModule = false;

  post({ type: "ready" });
  Atomics.wait(flags, CONTROL_START, 0);
  const startedAtUs = nowUs();

  try {
    scan: for (;;) {
      if (Atomics.load(flags, CONTROL_ABORT) !== 0) {
        aborted = true;
        break;
      }
      const run = me.nextRun();
      if (run === null) break;
      claims++;
      // pg96: the call that made the end-of-scan report does not report its own block (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 5).
      if (onRun !== null && !(data.pg96 && me.endedScan)) onRun(run.startBlock, run.blocks);
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
          const want = block === lastBlock ? lastBlockBytes : blockBytes;
          let got = readSync(fd, bytes, 0, want, pos);
          if (got !== want) {
            // The file shrank (or a rare short read): ask for the rest until end of file.
            while (got < want) {
              const n = readSync(fd, bytes, got, want - got, pos + got);
              if (n === 0) break;
              got += n;
            }
            if (got < want) {
              shortReads++;
              if (firstShortBlock < 0) firstShortBlock = block;
            }
          }
          bytesRead += got;
          blocksRead++;
          if (cover !== null) Atomics.add(cover, block, 1);
          progress[0] = blocksRead; // a plain aligned store cannot tear; the main thread reads it with Atomics.load
          if (work !== 0) {
            if (work === WORK_CHECKSUM) {
              sumLo += blockChecksumWords(bytes, words, got, block);
              if (sumLo >= TWO_POW_32) {
                sumLo -= TWO_POW_32;
                sumHi++;
              }
            } else if (work === WORK_COUNT_BYTES) {
              nonZero += countNonZeroBytesWords(bytes, words, got);
            } else if (moduleFn !== null) {
              const view =
                got === blockBytes ? bytes : got === lastBlockBytes ? lastBytes : bytes.subarray(0, got);
              inModule = true;
              const r = moduleFn(view, block);
              inModule = false;
              if (typeof r === "number") moduleTotal += r;
            }
          }
        }
      }
    }
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    Atomics.store(flags, CONTROL_ABORT, 1); // the others stop too
    if (inModule) {
      fail(
        "FILESCAN_WORK_FAILED",
        `the per-block work module threw on block ${block} (${errorClause(error)}).`,
      );
    } else {
      fail("FILESCAN_READ_FAILED", `reading block ${block} failed (${errorClause(error)}).`);
    }
    return;
  }
  const endedAtUs = nowUs();
  // An abort stops before reading `block`, so the last run ends there, not at its claim's end.
  if (block > curStart) runs.push(curStart, block - curStart);
  for (const fd of fds) closeSync(fd);

  // One read per block: the reads are the blocks, in the order of the runs.
  const reads = data.recordReads ? new ReadRecorder(true) : null;
  if (reads !== null && runs.starts !== null && runs.lengths !== null) {
    for (let i = 0; i < runs.count; i++) {
      for (let b = runs.starts[i]!, e = b + runs.lengths[i]!; b < e; b++) reads.pushRead(b, 1, false);
    }
  }
  finishWorker(
    {
      blocks: blocksRead,
      bytes: bytesRead,
      claims,
      runCount: runs.count,
      minRunBlocks: runs.minBlocks,
      maxRunBlocks: runs.maxBlocks,
      runStarts: runs.starts,
      runLengths: runs.lengths,
      shortReads,
      firstShortBlock,
      startedAtUs,
      endedAtUs,
      ops: me.opsPerformed,
      aborted,
      nonZeroBytes: nonZero,
      checksumLo: sumLo,
      checksumHi: sumHi,
      moduleTotal,
      moduleFinish: undefined,
      readCalls: blocksRead,
      maxReadBlocks: blocksRead > 0 ? 1 : 0,
      adviceCalls: 0,
      adviceFailed: 0,
      adviceErrno: 0,
      adviceUnavailable: null,
      readStarts: reads?.starts ?? null,
      readLengths: reads?.lengths ?? null,
      readAdvised: reads?.advised ?? null,
      claimStarts: null,
      claimLengths: null,
    },
    moduleFinish,
    [...runs.buffers(), ...(reads?.buffers() ?? [])],
  );
}

/** Calls the module's finish(), then sends the totals (their lists transferred, not copied). */
function finishWorker(
  totals: WorkerTotals,
  moduleFinish: (() => unknown) | null,
  transfer: ArrayBuffer[],
): void {
  if (moduleFinish !== null) {
    try {
      totals.moduleFinish = moduleFinish();
    } catch (error) {
      fail("FILESCAN_WORK_FAILED", `the per-block work module's finish() threw (${errorClause(error)}).`);
      return;
    }
  }
  try {
    post({ type: "done", totals }, transfer);
  } catch (error) {
    // Only finish()'s value can fail to clone: everything else in the totals is numbers and typed arrays.
    fail(
      "FILESCAN_WORK_FAILED",
      `the per-block work module's finish() returned a value that cannot be sent to the main thread (${errorClause(error)}).`,
    );
  }
}

main().catch((error: unknown) => {
  fail("FILESCAN_READ_FAILED", `the scan worker failed (${errorClause(error)}).`);
});
