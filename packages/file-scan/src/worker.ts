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
 * The reading itself is one of three loops: one `pread` per block, PostgreSQL
 * 16 and older (block-loop.ts); a PG17 read stream, or the prefetch
 * experiment's fixed order (worker-modes.ts). This file sets the worker up
 * (descriptors, per-block work, allocator, syncscan), has the loop compiled
 * before the timed window (warm-up.ts), runs it between the start flag and
 * its last read, and sends the totals.
 */

import { closeSync, constants, openSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { attachSharedParallelScan, type ScanHooks } from "@scanlab/block-allocator";
import { errorClause } from "@scanlab/core";
import { parallelSyncScanHooks, SharedSyncScanTracker } from "@scanlab/syncscan";
import { blockLoop } from "./block-loop.js";
import { errnoCode, type FileScanErrorCode } from "./errors.js";
import { loadFadvise } from "./fadvise.js";
import { loadPread } from "./pread.js";
import { modeAdvises, type ReadMode } from "./scan-options.js";
import { type ScanLoop, warmUp, warmUpMode } from "./warm-up.js";
import { BlockSink, type LoopOutcome, loopContext, patternLoop, readStreamLoop } from "./worker-modes.js";
import {
  CONTROL_ABORT,
  CONTROL_PROGRESS_BYTE_OFFSET,
  CONTROL_START,
  nowUs,
  WORK_MODULE,
  type WorkerData,
  type WorkerMessage,
  type WorkerTotals,
} from "./worker-protocol.js";

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
  const scan = attachSharedParallelScan(data.allocator, { hooks });
  const me = scan.join();

  const flags = new Int32Array(data.control, 0, 2);
  const sink = new BlockSink(
    work,
    moduleFn,
    data.cover === null ? null : new Uint8Array(data.cover),
    new Uint32Array(data.control, CONTROL_PROGRESS_BYTE_OFFSET + 4 * index, 1),
  );
  const pread = loadPread();
  const ctx = loopContext({
    fds,
    segmentBlocks,
    blockBytes,
    nblocks,
    lastBlockBytes,
    flags,
    recordRuns,
    recordReads: data.recordReads,
    sink,
    fadvise: modeAdvises(data.mode) ? loadFadvise() : null,
    pread: pread.read,
  });
  const mode = data.mode;
  const report = onRun;
  // pg96: the call that made the end-of-scan report does not report its own block
  // (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 5).
  const onClaim =
    report === null
      ? null
      : (first: number, blocks: number): void => {
          if (!(data.pg96 && me.endedScan)) report(first, blocks);
        };
  const warmUpReadMode = warmUpMode(mode);
  warmUp(ctx, scan.policy, warmUpReadMode, scanLoop(warmUpReadMode));
  const loop = scanLoop(mode);
  post({ type: "ready" });
  Atomics.wait(flags, CONTROL_START, 0);
  const startedAtUs = nowUs();
  let outcome: LoopOutcome;
  try {
    outcome = loop(ctx, me, onClaim);
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
      readFallback: pread.fallback,
      readStarts: reads.starts,
      readLengths: reads.lengths,
      readAdvised: reads.advised,
      claimStarts: claimList?.starts ?? null,
      claimLengths: claimList?.lengths ?? null,
    },
    moduleFinish,
    [...runs.buffers(), ...reads.buffers(), ...(claimList?.buffers() ?? [])],
  );
}

/** The loop that reads in `mode`. */
function scanLoop(mode: ReadMode): ScanLoop {
  if (mode.kind === "read-stream")
    return (ctx, participant, onClaim) => readStreamLoop(ctx, participant, onClaim, mode);
  if (mode.kind === "pattern") return (ctx) => patternLoop(ctx, mode);
  return blockLoop;
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
