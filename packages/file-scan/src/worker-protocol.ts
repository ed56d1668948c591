/**
 * What the main thread and the scan workers share, and what they say to each
 * other.
 *
 * A PostgreSQL parallel scan coordinates its processes through dynamic shared
 * memory, not messages: the block counter, the start block and the syncscan
 * list live in shared memory and every process reads blocks on its own
 * (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state). file-scan does the same with SharedArrayBuffers:
 *
 * - the allocator's shared state (`@scanlab/block-allocator`,
 *   createSharedParallelScan), from which each worker claims blocks;
 * - the syncscan tracker (`@scanlab/syncscan`, SharedSyncScanTracker), when
 *   several scans should share a start location;
 * - a control block (this file): a start flag all workers wait on, so the
 *   timed window starts when every worker has opened its files and is ready,
 *   an abort flag every worker checks before each read, and one progress word
 *   per worker (blocks read so far, stored after each read) that the main
 *   thread samples for progress bars. Per-block postMessage would cost more
 *   than the read itself on a warm cache; a plain store does not;
 * - the cover counters: one byte per block, incremented with Atomics.add by
 *   whichever worker read it, so the main thread can check afterwards that
 *   every block was read exactly once.
 *
 * Messages are few: "ready" after set-up, "done" with the worker's totals
 * (its run list travels as transferred ArrayBuffers, not copied), or "error"
 * with a code and one sentence.
 */
import type { FileScanErrorCode } from "./errors.js";
import type { ReadMode } from "./scan-options.js";

/** Int32 index of the start flag in the control block: 0 = wait, 1 = go. */
export const CONTROL_START = 0;
/** Int32 index of the abort flag: 0 = run, 1 = stop before the next read. */
export const CONTROL_ABORT = 1;
/** Byte offset of the per-worker progress words (Uint32, blocks read), on their own cache line. */
export const CONTROL_PROGRESS_BYTE_OFFSET = 64;

/**
 * The process-wide monotonic clock in microseconds (process.hrtime). The
 * workers stamp their first and last read with it and the main thread opens
 * the window with it, so all of them must read this same clock.
 */
export function nowUs(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

/** Bytes of the control block for `workers` workers. */
export function controlBytes(workers: number): number {
  return CONTROL_PROGRESS_BYTE_OFFSET + 4 * workers;
}

/** Built-in work codes used inside the worker. */
export const WORK_NONE = 0;
/** `"count-bytes"`. */
export const WORK_COUNT_BYTES = 1;
/** `"checksum"`. */
export const WORK_CHECKSUM = 2;
/** A user module. */
export const WORK_MODULE = 3;

/** One file a worker opens. */
export interface WorkerSegment {
  /** Absolute path. */
  path: string;
}

/** Everything a worker needs (its workerData). */
export interface WorkerData {
  /** 0-based worker number. */
  index: number;
  /** The allocator's SharedArrayBuffer. */
  allocator: SharedArrayBuffer;
  /** The control block. */
  control: SharedArrayBuffer;
  /** The cover counters (one byte per block), or null when not verifying that way. */
  cover: SharedArrayBuffer | null;
  /** The syncscan tracker's SharedArrayBuffer, or null. */
  tracker: SharedArrayBuffer | null;
  /** Tracker key of the target (only used with a tracker). */
  syncKey: number;
  /** The target's files in block order. */
  segments: WorkerSegment[];
  /** Blocks per file (the last one may hold fewer). */
  segmentBlocks: number;
  /** Block size in bytes. */
  blockBytes: number;
  /** Total blocks. */
  nblocks: number;
  /** Bytes in the last block. */
  lastBlockBytes: number;
  /** WORK_* code. */
  work: number;
  /** File URL of the user's work module (WORK_MODULE only). */
  workModule: string | null;
  /** Whether to keep every run (start, length), not only their count and sizes. */
  recordRuns: boolean;
  /** Whether the policy is pg96 (whose end-of-scan call does not report its block to syncscan). */
  pg96: boolean;
  /** How to read: one block per read, a read stream, or a prefetch pattern. */
  mode: ReadMode;
  /** Whether to keep every read and claim. */
  recordReads: boolean;
}

/** A worker's totals, sent once at the end. */
export interface WorkerTotals {
  /** Blocks read. */
  blocks: number;
  /** Bytes read. */
  bytes: number;
  /** Runs the allocator handed out (nextRun results). */
  claims: number;
  /** Runs of consecutive blocks as read. */
  runCount: number;
  /** Shortest run in blocks (0 when none). */
  minRunBlocks: number;
  /** Longest run. */
  maxRunBlocks: number;
  /** Run starts, when recorded (a transferred buffer, `runCount` used entries). */
  runStarts: Uint32Array | null;
  /** Run lengths, when recorded. */
  runLengths: Uint32Array | null;
  /** Reads that returned fewer bytes than the block held when the scan started. */
  shortReads: number;
  /** First block that read short, or -1. */
  firstShortBlock: number;
  /** Process-wide monotonic clock (process.hrtime) at the worker's first and last read, in microseconds. */
  startedAtUs: number;
  /** See startedAtUs. */
  endedAtUs: number;
  /** Shared-memory operations (locks, atomics) the allocator performed for this worker. */
  ops: { locks: number; atomics: number };
  /** Whether the worker stopped because of the abort flag. */
  aborted: boolean;
  /** Non-zero bytes (count-bytes work). */
  nonZeroBytes: number;
  /** Low and high 32-bit halves of the 64-bit checksum sum (checksum work). */
  checksumLo: number;
  /** See checksumLo. */
  checksumHi: number;
  /** Sum of the numbers the user's module returned. */
  moduleTotal: number;
  /** What the user's finish() returned. */
  moduleFinish: unknown;
  /** Read system calls made (pread or preadv; re-requests after a short read not counted). */
  readCalls: number;
  /** Most blocks in one read. */
  maxReadBlocks: number;
  /** posix_fadvise(WILLNEED) calls made. */
  adviceCalls: number;
  /** Of those, calls that returned an error number. */
  adviceFailed: number;
  /** The first error number a failed advice call returned, or 0. */
  adviceErrno: number;
  /** Why advice was asked for but could not be given (no binding here), or null. */
  adviceUnavailable: string | null;
  /** Why the worker read through fs.readSync instead of libc's pread (pread.ts), or null. */
  readFallback: string | null;
  /** Each read's first block, when recording reads (`readCalls` entries). */
  readStarts: Uint32Array | null;
  /** Each read's length in blocks. */
  readLengths: Uint32Array | null;
  /** 1 for each read that was advised, else 0. */
  readAdvised: Uint8Array | null;
  /** Each claim's first block, when recording reads (`claims` entries). */
  claimStarts: Uint32Array | null;
  /** Each claim's length in blocks. */
  claimLengths: Uint32Array | null;
}

/** Messages from a worker. */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "done"; totals: WorkerTotals }
  | { type: "error"; code: FileScanErrorCode; message: string };
