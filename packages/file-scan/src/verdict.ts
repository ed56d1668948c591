/**
 * The verdict of a scan: what each worker read, how fast, whether every
 * block was read exactly once, what the cache and the device did, and
 * whether the file changed underneath.
 *
 * Problem. The workers hand back raw totals (worker-protocol.ts): counts,
 * clock stamps, run lists, halves of a 64-bit checksum. A reader wants
 * numbers that mean something on their own (times from the window's start,
 * one checksum, MiB/s), and sentences for anything unusual, and must be able
 * to trust that the numbers describe one whole scan of a file that held
 * still.
 *
 * Design choices.
 * - Times are reported from the start flag (timed-window.ts); the window
 *   closes at the latest last read of any worker, and the throughput is
 *   bytes over that window in MiB/s (2^20 bytes per second, scanlab's one
 *   unit: `THROUGHPUT_UNIT` of @scanlab/core; dd's MB/s is 10^6 bytes).
 * - The scan counts as aborted only when it was stopped and some block was
 *   left unread: an abort that came after the last read (say from the final
 *   progress call) stopped nothing.
 * - The size is sampled again after the scan: PostgreSQL's scan would not
 *   see a relation grow (phs_nblocks is sampled once,
 *   apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state)
 *   and would fail on one that shrank; this one reads to the old size,
 *   counts short reads, and says which happened.
 * - Residency after the scan and the cache verdict come from
 *   cache-report.ts, the cover verdict from cover-check.ts.
 *
 * Interface: {@link verdict}.
 */
import { statSync } from "node:fs";
import { INVALID_BLOCK, type ResolvedPolicy } from "@scanlab/block-allocator";
import { mibPerS } from "@scanlab/core";
import type { DeviceReport } from "@scanlab/host";
import { formatChecksum } from "./block-work.js";
import { type CacheReport, type PreparedCache, reportCache } from "./cache-report.js";
import { type CoverCheck, checkCover } from "./cover-check.js";
import { modeAdvises, type ReadMode, type ResolvedWork, type ScanRequest } from "./scan-options.js";
import type { SettledTarget } from "./scan-target.js";
import type { SharedMemory } from "./shared-memory.js";
import type { ScanTarget } from "./target.js";
import type { TimedWindow } from "./timed-window.js";
import { WORK_CHECKSUM, WORK_COUNT_BYTES, WORK_MODULE, type WorkerTotals } from "./worker-protocol.js";

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

/** The read system calls one worker made (pread, or preadv of combined blocks). */
export interface ReadSummary {
  /** Reads made. */
  readonly count: number;
  /** Mean blocks per read (0 when none). */
  readonly meanBlocks: number;
  /** Most blocks in one read. */
  readonly maxBlocks: number;
  /** posix_fadvise(WILLNEED) calls made. */
  readonly adviceCalls: number;
  /** Each read's first block, in order (with `recordReads`). */
  readonly starts: Uint32Array | null;
  /** Each read's length in blocks (with `recordReads`). */
  readonly lengths: Uint32Array | null;
  /** 1 where the read was advised before it was made (with `recordReads`). */
  readonly advised: Uint8Array | null;
}

/** The claims one worker took from the allocator, in order (with `recordReads`; a prefetch pattern takes none). */
export interface ClaimList {
  /** Each claim's first block. */
  readonly starts: Uint32Array;
  /** Each claim's length in blocks. */
  readonly lengths: Uint32Array;
}

/** Whether advice was asked for, given, and how often. */
export interface AdviceReport {
  /** The mode asked for advice (a read stream with advice, or a pattern with a distance above 0). */
  readonly requested: boolean;
  /** posix_fadvise was bound and used (false when not asked, or asked and not available here: `reason` says why). */
  readonly available: boolean;
  /** posix_fadvise(WILLNEED) calls made, all workers. */
  readonly calls: number;
  /** Of those, calls that returned an error. */
  readonly failed: number;
  /** Why advice was not given, or what the failed calls returned. */
  readonly reason?: string;
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
  /** Its read system calls. */
  readonly reads: ReadSummary;
  /** Its claims, in order (with `recordReads`), else null. */
  readonly claimList: ClaimList | null;
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
  /** Bytes over the timed window in MiB/s (2^20 bytes per second); 0 when the window is empty. */
  readonly mibPerS: number;
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
  /** How the workers read: one block per read, a PG17 read stream, or a prefetch pattern. */
  readonly mode: ReadMode;
  /** Read system calls, all workers: count, and mean size in blocks and bytes. */
  readonly reads: {
    /** Reads made. */
    readonly count: number;
    /** Mean blocks per read. */
    readonly meanBlocks: number;
    /** Mean bytes per read. */
    readonly meanBytes: number;
  };
  /** Advice asked for and given. */
  readonly advice: AdviceReport;
  /** Sentences about anything unusual (shrunk file, eviction that did not run, residency unknown, advice not available). */
  readonly warnings: readonly string[];
}

/**
 * The result of a scan from what the earlier steps produced: measures
 * residency after the scan and the target's size again, and reads the
 * workers' totals.
 */
export function verdict(
  request: ScanRequest,
  settled: SettledTarget,
  cache: PreparedCache,
  shared: SharedMemory,
  window: TimedWindow,
): ScanResult {
  const { target, allocator } = settled;
  const { totals } = window;
  let lastEnd = window.startUs;
  let blocks = 0;
  let bytes = 0;
  let shortReads = 0;
  for (const t of totals) {
    if (t.endedAtUs > lastEnd) lastEnd = t.endedAtUs;
    blocks += t.blocks;
    bytes += t.bytes;
    shortReads += t.shortReads;
  }
  const cacheReport = reportCache(cache, window.deviceReadBytes, bytes);
  const bytesAfter = currentBytes(target);
  const stopped = request.signal?.aborted === true || totals.some((t) => t.aborted);
  const wallUs = Math.max(0, lastEnd - window.startUs);

  const warnings = [...cache.warnings];
  if (cacheReport.methodReason !== undefined) warnings.push(cacheReport.methodReason);
  const sizeChange = sizeChangeWarning(target.bytes, bytesAfter, shortReads);
  if (sizeChange !== null) warnings.push(sizeChange);
  const advice = adviceReport(request.mode, totals);
  if (advice.reason !== undefined) warnings.push(advice.reason);
  const readFallback = totals.find((t) => t.readFallback !== null)?.readFallback;
  if (readFallback != null) warnings.push(readFallback);
  let readCount = 0;
  for (const t of totals) readCount += t.readCalls;

  return {
    target,
    policy: request.policy,
    workers: request.workers,
    blockBytes: request.blockBytes,
    startBlock: allocator.startBlock === INVALID_BLOCK ? 0 : allocator.startBlock,
    // An abort that came after every block had been read (say from the final onProgress call) stopped nothing.
    aborted: stopped && blocks < target.nblocks,
    blocks,
    bytes,
    wallUs,
    setupUs: window.setupUs,
    mibPerS: wallUs > 0 ? mibPerS(bytes, wallUs / 1e6) : 0,
    perWorker: totals.map((t, i) => workerResult(t, i, window.startUs, request.work)),
    device: window.device,
    cache: cacheReport,
    cover: checkCover(settled.cover, shared.cover, target.nblocks, totals),
    work: workResult(request.work, totals),
    syncscanKey: request.tracker === null ? null : settled.syncKey,
    shortReads,
    bytesAfter,
    mode: request.mode,
    reads: {
      count: readCount,
      meanBlocks: readCount === 0 ? 0 : blocks / readCount,
      meanBytes: readCount === 0 ? 0 : bytes / readCount,
    },
    advice,
    warnings,
  };
}

/** Advice as asked for by the mode and reported by the workers. */
function adviceReport(mode: ReadMode, totals: readonly WorkerTotals[]): AdviceReport {
  const requested = modeAdvises(mode);
  let calls = 0;
  let failed = 0;
  let errno = 0;
  let unavailable: string | null = null;
  for (const t of totals) {
    calls += t.adviceCalls;
    failed += t.adviceFailed;
    if (errno === 0) errno = t.adviceErrno;
    unavailable ??= t.adviceUnavailable;
  }
  if (unavailable !== null) return { requested, available: false, calls, failed, reason: unavailable };
  if (failed > 0) {
    return {
      requested,
      available: true,
      calls,
      failed,
      reason: `${failed} of ${calls} posix_fadvise calls failed (the first returned error number ${errno}).`,
    };
  }
  return { requested, available: requested, calls, failed };
}

/** One worker's totals as reported, times from `windowStart`. */
function workerResult(
  t: WorkerTotals,
  worker: number,
  windowStart: number,
  work: ResolvedWork,
): WorkerResult {
  const result: WorkerResult = {
    worker,
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
    reads: {
      count: t.readCalls,
      meanBlocks: t.readCalls === 0 ? 0 : t.blocks / t.readCalls,
      maxBlocks: t.maxReadBlocks,
      adviceCalls: t.adviceCalls,
      starts: t.readStarts === null ? null : t.readStarts.subarray(0, t.readCalls),
      lengths: t.readLengths === null ? null : t.readLengths.subarray(0, t.readCalls),
      advised: t.readAdvised === null ? null : t.readAdvised.subarray(0, t.readCalls),
    },
    claimList:
      t.claimStarts === null || t.claimLengths === null
        ? null
        : { starts: t.claimStarts.subarray(0, t.claims), lengths: t.claimLengths.subarray(0, t.claims) },
  };
  return work.code === WORK_MODULE ? { ...result, finish: t.moduleFinish } : result;
}

/** The per-block work's result, summed over the workers. */
function workResult(work: ResolvedWork, totals: readonly WorkerTotals[]): WorkResult {
  if (work.code === WORK_COUNT_BYTES) {
    let nonZero = 0;
    for (const t of totals) nonZero += t.nonZeroBytes;
    return { kind: "count-bytes", nonZeroBytes: nonZero };
  }
  if (work.code === WORK_CHECKSUM) {
    let checksum = 0n;
    // hi * 2^32 + lo: worker.ts splits the 64-bit sum
    for (const t of totals) checksum += BigInt(t.checksumHi) * 4294967296n + BigInt(t.checksumLo);
    return { kind: "checksum", checksum: formatChecksum(checksum) };
  }
  if (work.code === WORK_MODULE) {
    let total = 0;
    for (const t of totals) total += t.moduleTotal;
    return { kind: "module", module: work.module!, total };
  }
  return { kind: "none" };
}

/** The target's size now: the sum of its files' sizes (a file that vanished counts 0). */
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

/** A sentence when the target shrank or grew during the scan, else null. */
function sizeChangeWarning(bytesBefore: number, bytesAfter: number, shortReads: number): string | null {
  if (shortReads > 0 || bytesAfter < bytesBefore) {
    return `the file shrank during the scan (${bytesBefore} bytes at the start, ${bytesAfter} after): ${shortReads} block reads came back short.`;
  }
  if (bytesAfter > bytesBefore) {
    return `the file grew during the scan (${bytesBefore} bytes at the start, ${bytesAfter} after); only the first ${bytesBefore} bytes were scanned.`;
  }
  return null;
}
