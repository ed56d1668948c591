/**
 * scanFile: a real parallel sequential scan of a real file, measured.
 *
 * The story of one scan, in the order things happen:
 *
 * 1. **Target** (scan-target.ts). The path is resolved to one file or a
 *    relation's segment files (target.ts); its size is sampled once, into
 *    the allocator's shared state (createSharedParallelScan from
 *    @scanlab/block-allocator, with the chosen policy), as PostgreSQL's
 *    leader samples phs_nblocks into the parallel scan's record
 *    (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state).
 *    What depends on the target (cover method, syncscan key, the policy's
 *    options against the size) is settled here, before anything is touched.
 * 2. **Cache** (cache-report.ts). If asked, the files are evicted from the
 *    page cache; then `fincore` measures what is resident. That measurement,
 *    not the option, decides whether the scan is called cold, warm or mixed
 *    (or, where the kernel hides residency from this caller, the bytes the
 *    device read for the scan do: residency-visibility.ts).
 * 3. **Shared memory** (shared-memory.ts). A control block
 *    (worker-protocol.ts) and one cover counter per block are created.
 * 4. **Workers** (scan-workers.ts). N worker_threads start (worker.ts), each
 *    opens its own read-only descriptors, loads the per-block work, attaches
 *    to the allocator and the syncscan tracker, and says "ready". Set-up is
 *    not timed: a PostgreSQL worker's fork and relation open are not part of
 *    what `iostat` showed either.
 * 5. **Timed window** (timed-window.ts). The device counters are sampled
 *    (@scanlab/host block-device.ts), the start flag is raised, and every
 *    worker reads its blocks; progress is sampled from shared memory, never
 *    sent per block. The window closes when the last worker has read its
 *    last block (each worker timestamps its own first and last read with the
 *    process-wide monotonic clock); the device counters are sampled again as
 *    soon as the main thread hears the last worker is done.
 * 6. **Verdict.** Residency after, the cover counters (every block read
 *    exactly once?), each worker's runs of consecutive blocks as it actually
 *    read them, the device's read count and average request size, and
 *    whether the file changed size underneath.
 *
 * An AbortSignal raises the abort flag: workers stop before their next read
 * and the promise resolves with what was read so far, `aborted: true`.
 *
 * All participants are workers; the calling thread only coordinates (in
 * PostgreSQL the leader also scans unless parallel_leader_participation is
 * off: count it as one of the workers).
 */
import { statSync } from "node:fs";
import { INVALID_BLOCK, type ResolvedPolicy } from "@scanlab/block-allocator";
import type { DeviceReport } from "@scanlab/host";
import { formatChecksum } from "./block-work.js";
import { type CacheReport, prepareCache, reportCache } from "./cache-report.js";
import { type CoverCheck, checkCover } from "./cover-check.js";
import { FileScanError } from "./errors.js";
import { checkScanOptions, type ScanOptions } from "./scan-options.js";
import { settleTarget } from "./scan-target.js";
import { startWorkers } from "./scan-workers.js";
import { createSharedMemory } from "./shared-memory.js";
import type { ScanTarget } from "./target.js";
import { runTimedWindow } from "./timed-window.js";
import { WORK_CHECKSUM, WORK_COUNT_BYTES, WORK_MODULE } from "./worker-protocol.js";

/** Sizes of the runs of consecutive blocks one worker read. */
export interface RunSummary {
  /** Number of runs. */
  readonly count: number;
  /** Shortest run in blocks (0 when the worker read nothing). */
  readonly minBlocks: number;
  /** Longest run in blocks. */
  readonly maxBlocks: number;
  /** Mean run length in blocks (0 when none). */
  readonly meanBlocks: number;
  /** Each run's first block, in the order read (when `recordRuns`). */
  readonly starts: Uint32Array | null;
  /** Each run's length in blocks (when `recordRuns`). */
  readonly lengths: Uint32Array | null;
}

/** What one worker did. */
export interface WorkerResult {
  /** 0-based worker number. */
  readonly worker: number;
  /** Blocks read. */
  readonly blocks: number;
  /** Bytes read. */
  readonly bytes: number;
  /** Times the worker went to the allocator and came back with blocks (claims, split at the wrap). */
  readonly claims: number;
  /** Runs of consecutive blocks as read (adjacent claims merge into one run). */
  readonly runs: RunSummary;
  /** Shared-memory operations the allocator performed for this worker (PG 9.6 spinlock vs atomics, T4). */
  readonly ops: {
    /** Lock acquisitions (pg96 and batch claims, start-up). */
    readonly locks: number;
    /** Atomic fetch-and-adds (pg11, munro2020, pg14), including the last one that finds the scan done. */
    readonly atomics: number;
  };
  /** First read, in microseconds after the window opened. */
  readonly startUs: number;
  /** Last read finished, in microseconds after the window opened. */
  readonly endUs: number;
  /** Reads that came back short because the file shrank. */
  readonly shortReads: number;
  /** What the user's work module's finish() returned (module work only). */
  readonly finish?: unknown;
}

/** The result of the per-block work. */
export type WorkResult =
  | {
      /** No per-block work. */
      readonly kind: "none";
    }
  | {
      /** The "count-bytes" work. */
      readonly kind: "count-bytes";
      /** Non-zero bytes in the blocks read. */
      readonly nonZeroBytes: number;
    }
  | {
      /** The "checksum" work. */
      readonly kind: "checksum";
      /** Sum of the per-block checksums mod 2^64 (16 hex digits): independent of order, policy and workers. */
      readonly checksum: string;
    }
  | {
      /** A user module. */
      readonly kind: "module";
      /** The module's file URL. */
      readonly module: string;
      /** Sum of the numbers the module returned. */
      readonly total: number;
    };

/** Everything {@link scanFile} measured. */
export interface ScanResult {
  /** The resolved target (files, sizes, block count). */
  readonly target: ScanTarget;
  /** The allocator policy, with defaults filled in. */
  readonly policy: ResolvedPolicy;
  /** Number of workers. */
  readonly workers: number;
  /** Block size in bytes. */
  readonly blockBytes: number;
  /** The block counter value 0 maps to (0, the syncscan location, or `startBlock`). */
  readonly startBlock: number;
  /** True when the scan was stopped by its AbortSignal before every block was read (the numbers are what was read until then). */
  readonly aborted: boolean;
  /** Blocks read (all workers). */
  readonly blocks: number;
  /** Bytes read (a partial last block counts its real size). */
  readonly bytes: number;
  /** The timed window: from the start flag to the end of the last read, in microseconds. */
  readonly wallUs: number;
  /** Worker start-up before the window (spawn, open, module load), in microseconds. */
  readonly setupUs: number;
  /** bytes / wallUs: megabytes (10^6 bytes, as dd prints them) per second. */
  readonly mbPerSec: number;
  /** Per worker. */
  readonly perWorker: readonly WorkerResult[];
  /** What the device did in the window, or why that is unknown. */
  readonly device: DeviceReport;
  /** Page cache state. */
  readonly cache: CacheReport;
  /** Exact-cover verification. */
  readonly cover: CoverCheck;
  /** The per-block work's result. */
  readonly work: WorkResult;
  /** The syncscan key used, or null without a tracker. */
  readonly syncscanKey: number | null;
  /** Reads that came back short (the file shrank during the scan). */
  readonly shortReads: number;
  /** The target's size after the scan, in bytes (compare with target.bytes). */
  readonly bytesAfter: number;
  /** Sentences about anything unusual (shrunk file, eviction that did not run, residency unknown). */
  readonly warnings: readonly string[];
}

function currentBytes(target: ScanTarget): number {
  let total = 0;
  for (const s of target.segments) {
    try {
      total += statSync(s.path).size;
    } catch {
      // a segment that vanished holds nothing now
    }
  }
  return total;
}

/**
 * Scans a file (or a PostgreSQL relation's segment files) with `workers`
 * worker threads that take blocks from a shared PostgreSQL-style allocator
 * and read each one with a synchronous positioned read, and reports what
 * they read, how fast, what the page cache held and what the device did.
 *
 * @param target path of the file, or of a relation's first segment.
 * @param options workers, policy, block size, work, eviction, syncscan, abort, progress.
 * @throws {@link FileScanError} for a missing, unreadable, empty or
 *   non-regular target, a bad option, a work module that does not load or
 *   throws, or a read error; `AllocatorError` (from
 *   `@scanlab/block-allocator`) for a bad policy option. Both carry
 *   `userError = true`.
 * @example
 * ```ts
 * import { scanFile } from "@scanlab/file-scan";
 *
 * const r = await scanFile("/var/lib/postgresql/15/main/base/5/16384", {
 *   workers: 2,
 *   policy: { kind: "pg14" },
 *   evict: true,
 * });
 * console.log(r.cache.state, r.mbPerSec.toFixed(0), "MB/s", r.cover.exact);
 * if (r.device.available) console.log(r.device.reads, "reads of", r.device.avgRequestBytes, "bytes");
 * ```
 */
export async function scanFile(target: string, options: ScanOptions = {}): Promise<ScanResult> {
  const request = checkScanOptions(target, options);
  const { workers, blockBytes, policy, work, tracker, signal } = request;

  const settled = settleTarget(request);
  const { target: resolved, allocator, cover, syncKey } = settled;
  const { nblocks } = resolved;

  const cache = prepareCache(resolved, request);

  const shared = createSharedMemory(workers, cover, nblocks);
  const { cover: coverBuffer } = shared;

  const running = startWorkers(request, settled, shared);

  const window = await runTimedWindow(running, shared, resolved, request);
  const { totals, startUs: windowStart } = window;

  let lastEnd = windowStart;
  let blocks = 0;
  let bytes = 0;
  let shortReads = 0;
  let stopped = false;
  let nonZero = 0;
  let checksum = 0n;
  let moduleTotal = 0;
  const perWorker: WorkerResult[] = totals.map((t, i) => {
    if (t.endedAtUs > lastEnd) lastEnd = t.endedAtUs;
    blocks += t.blocks;
    bytes += t.bytes;
    shortReads += t.shortReads;
    if (t.aborted) stopped = true;
    nonZero += t.nonZeroBytes;
    checksum += BigInt(t.checksumHi) * 4294967296n + BigInt(t.checksumLo); // hi * 2^32 + lo: worker.ts splits the 64-bit sum
    moduleTotal += t.moduleTotal;
    const result: WorkerResult = {
      worker: i,
      blocks: t.blocks,
      bytes: t.bytes,
      claims: t.claims,
      runs: {
        count: t.runCount,
        minBlocks: t.minRunBlocks,
        maxBlocks: t.maxRunBlocks,
        meanBlocks: t.runCount === 0 ? 0 : t.blocks / t.runCount,
        starts: t.runStarts === null ? null : t.runStarts.subarray(0, t.runCount),
        lengths: t.runLengths === null ? null : t.runLengths.subarray(0, t.runCount),
      },
      ops: t.ops,
      startUs: t.startedAtUs - windowStart,
      endUs: t.endedAtUs - windowStart,
      shortReads: t.shortReads,
    };
    return work.code === WORK_MODULE ? { ...result, finish: t.moduleFinish } : result;
  });
  const wallUs = Math.max(0, lastEnd - windowStart);
  const cacheReport = reportCache(cache, window.deviceReadBytes, bytes);
  const bytesAfter = currentBytes(resolved);
  if (signal?.aborted) stopped = true;
  const warnings = [...cache.warnings];
  if (cacheReport.methodReason !== undefined) warnings.push(cacheReport.methodReason);
  // An abort that came after every block had been read (say from the final onProgress call) stopped nothing.
  const aborted = stopped && blocks < nblocks;

  const coverCheck = checkCover(cover, coverBuffer, nblocks, totals);

  if (shortReads > 0 || bytesAfter < resolved.bytes) {
    warnings.push(
      `the file shrank during the scan (${resolved.bytes} bytes at the start, ${bytesAfter} after): ${shortReads} block reads came back short.`,
    );
  } else if (bytesAfter > resolved.bytes) {
    warnings.push(
      `the file grew during the scan (${resolved.bytes} bytes at the start, ${bytesAfter} after); only the first ${resolved.bytes} bytes were scanned.`,
    );
  }

  let workResult: WorkResult;
  if (work.code === WORK_COUNT_BYTES) workResult = { kind: "count-bytes", nonZeroBytes: nonZero };
  else if (work.code === WORK_CHECKSUM) workResult = { kind: "checksum", checksum: formatChecksum(checksum) };
  else if (work.code === WORK_MODULE)
    workResult = { kind: "module", module: work.module!, total: moduleTotal };
  else workResult = { kind: "none" };

  return {
    target: resolved,
    policy,
    workers,
    blockBytes,
    startBlock: allocator.startBlock === INVALID_BLOCK ? 0 : allocator.startBlock,
    aborted,
    blocks,
    bytes,
    wallUs,
    setupUs: window.setupUs,
    mbPerSec: wallUs > 0 ? bytes / wallUs : 0,
    perWorker,
    device: window.device,
    cache: cacheReport,
    cover: coverCheck,
    work: workResult,
    syncscanKey: tracker === null ? null : syncKey,
    shortReads,
    bytesAfter,
    warnings,
  };
}
