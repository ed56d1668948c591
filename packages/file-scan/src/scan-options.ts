/**
 * A scan's options, checked and filled in before anything is touched.
 *
 * Problem. `scanFile` is called from JavaScript as often as from
 * TypeScript (the CLI hands it parsed flags; a script can hand it anything).
 * An option found wrong after the workers started would leave threads
 * waiting on the start flag and keep the process alive; one found wrong after
 * eviction would have emptied the page cache for nothing.
 *
 * Design choices.
 * - Every option is checked here, in one pass, before the target is
 *   resolved or any thread starts; a refusal is one sentence with the code
 *   FILESCAN_BAD_OPTION (errors.ts), or FILESCAN_TOO_MANY_WORKERS
 *   (worker-limit.ts), or FILESCAN_BAD_WORK_MODULE.
 * - Defaults are filled in once, so the later steps read plain values
 *   ({@link ScanRequest}) rather than `options.x ?? default` again.
 * - The options whose bounds depend on the target itself (the cover method
 *   and the policy's own options on its size, the syncscan key on its
 *   identity) are checked as soon as the target is resolved, still before
 *   anything is touched (scan-target.ts).
 * - A per-block work module is named by a file URL for the workers, and its
 *   file is checked here with @scanlab/host's guarded reader: `import()` of a
 *   FIFO would hang every worker, of /dev/zero would read until memory runs
 *   out, and a file far larger than a module can be is not one.
 *
 * Interface: {@link checkScanOptions}, whose {@link ScanRequest} every later
 * step of scan-file.ts reads.
 */
import { isAbsolute, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type AllocatorPolicy, type ResolvedPolicy, resolvePolicy } from "@scanlab/block-allocator";
import { BLCKSZ, MAX_IO_CONCURRENCY } from "@scanlab/core";
import { checkInputFile, InputFileError, type KernelPaths } from "@scanlab/host";
import { SharedSyncScanTracker } from "@scanlab/syncscan";
import type { BlockWork } from "./block-work.js";
import type { CoverMethod } from "./cover-check.js";
import { badOption, FileScanError } from "./errors.js";
import type { ReadPattern } from "./read-plan.js";
import { RELSEG_BLOCKS } from "./target.js";
import { checkWorkerCount } from "./worker-limit.js";
import { WORK_CHECKSUM, WORK_COUNT_BYTES, WORK_MODULE, WORK_NONE } from "./worker-protocol.js";

/** BLCKSZ, PostgreSQL's default block size (pg_config.h; apps/docs/src/reference/index.md#block-size-and-units assumes it throughout). */
export const DEFAULT_BLOCK_BYTES: number = BLCKSZ;
/** Largest block size accepted: 64 MiB (scanlab's bound; PostgreSQL's BLCKSZ goes up to 32 kB). */
export const MAX_BLOCK_BYTES = 64 * 1024 * 1024;
/** Most workers accepted: 1024, MAX_PARALLEL_WORKER_LIMIT (src/include/postmaster/bgworker.h), the upper bound of max_parallel_workers and max_parallel_workers_per_gather. */
export const MAX_WORKERS = 1024;
/** Default progress sampling interval: 100 ms, ten updates a second for a progress bar (scanlab's choice). */
export const DEFAULT_PROGRESS_INTERVAL_MS = 100;

/** Largest io_combine_limit accepted: 128 blocks, MAX_IO_COMBINE_LIMIT of PG18's src/include/storage/bufmgr.h (PG17's is 32). */
export const MAX_IO_COMBINE_LIMIT = 128;

/** The orders a prefetch experiment ({@link ScanOptions.pattern}) reads a file in. */
export const READ_PATTERNS: readonly ReadPattern[] = ["forward", "backward", "random"];

/** The syncscan tracker to share a start location through. */
export interface SyncScanOption {
  /** A tracker from `SharedSyncScanTracker.create()`, or its `buffer`. */
  tracker: SharedSyncScanTracker | SharedArrayBuffer;
  /** Tracker key of the target; default `fileIdentityKey({ dev, ino })` of the (first) file. */
  key?: number;
}

/** Progress of a running scan, as sampled from shared memory. */
export interface ScanProgress {
  /** Blocks read so far by each worker. */
  readonly workerBlocks: readonly number[];
  /** Sum of workerBlocks. */
  readonly blocks: number;
  /** Blocks in the target. */
  readonly nblocks: number;
  /** Microseconds since the timed window opened. */
  readonly elapsedUs: number;
}

/** Options of {@link scanFile}. Every field is optional. */
export interface ScanOptions {
  /** Worker threads reading the file, 1 to 1024 (default 1). */
  workers?: number;
  /** Allocator policy (default `{ kind: "pg14" }`, PostgreSQL 14 and later). */
  policy?: AllocatorPolicy;
  /** Start at this block instead of 0 or the syncscan location (PG19's caller-supplied start block). */
  startBlock?: number;
  /** Block size in bytes, 1 to 64 MiB (default 8192). */
  blockBytes?: number;
  /** true: `target` is a relation's first segment; false: one file; "auto" (default): a relation when its name is all digits and `<name>.1` exists. */
  relation?: boolean | "auto";
  /** Blocks per relation segment (default 131072, RELSEG_SIZE: 1 GB of 8 kB blocks). */
  segmentBlocks?: number;
  /** Per-block work (default "none"). */
  work?: BlockWork;
  /** Evict the target from the page cache before the scan (default false). */
  evict?: boolean;
  /** Share the start location with other scans through a syncscan tracker (the scan then synchronizes). */
  syncscan?: SyncScanOption;
  /** Stop promptly; the promise resolves with a partial result marked `aborted`. */
  signal?: AbortSignal;
  /** Called about every `progressIntervalMs` during the scan, and once at the end. */
  onProgress?: (progress: ScanProgress) => void;
  /** Progress sampling interval in milliseconds (default 100). */
  progressIntervalMs?: number;
  /** Keep every run's start and length in the result (default true); counts and sizes are always kept. */
  recordRuns?: boolean;
  /** How to verify the cover (default "counter" up to 2^28 blocks, then "runs"). */
  cover?: CoverMethod;
  /**
   * io_combine_limit in blocks, 1 to 128 (default 1: one block per read, as PostgreSQL 16 and older read).
   * Above 1 each worker reads through a PG17 read stream: consecutive blocks it was handed are combined
   * into one `preadv` of up to this many blocks (README, "Read-stream mode").
   */
  ioCombineLimit?: number;
  /** effective_io_concurrency, 0 to 1000 (default 1): the read stream's max_ios, and so how far ahead it advises. */
  effectiveIoConcurrency?: number;
  /**
   * Advise reads that do not continue the previous one with posix_fadvise(WILLNEED), as a read stream
   * without READ_STREAM_SEQUENTIAL does (default false: PostgreSQL's sequential scans never advise).
   * Needs effectiveIoConcurrency above 0.
   */
  advice?: boolean;
  /**
   * A prefetch experiment instead of a scan: one worker reads every block once in this order, one block
   * per read, advising the block `adviseDistance` reads ahead (README, "Prefetch reader").
   */
  pattern?: ReadPattern;
  /** With `pattern`: advise the block this many reads ahead, 0 (no advice, the default) to nblocks - 1. */
  adviseDistance?: number;
  /** With pattern "random": the seed of the permutation (default 1). */
  patternSeed?: number;
  /** Keep every read (first block, blocks, advised) and every claim of each worker in the result (default false). */
  recordReads?: boolean;
  /** @internal Kernel interface paths, for tests. */
  kernel?: KernelPaths;
}

/** The per-block work as the workers take it: a WORK_* code, and the module's file URL for WORK_MODULE. */
export interface ResolvedWork {
  readonly code: number;
  readonly module: string | null;
}

/** How the workers read: one block per read, through a PG17 read stream, or a prefetch pattern. */
export type ReadMode =
  | {
      /** One positioned read per block, as PostgreSQL 16 and older. */
      readonly kind: "blocks";
    }
  | {
      /** A PG17 read stream per worker. */
      readonly kind: "read-stream";
      /** Most blocks per read. */
      readonly ioCombineLimit: number;
      /** max_ios of the stream. */
      readonly effectiveIoConcurrency: number;
      /** Whether reads that do not continue the previous one are advised. */
      readonly advice: boolean;
    }
  | {
      /** A prefetch experiment: one reader, one block per read, in a fixed order. */
      readonly kind: "pattern";
      /** The order. */
      readonly pattern: ReadPattern;
      /** Advise the block this many reads ahead (0: no advice). */
      readonly adviseDistance: number;
      /** Seed of the random order. */
      readonly seed: number;
    };

/** Whether a scan in `mode` gives advice: a read stream with advice on, or the prefetch reader at a distance above 0. */
export function modeAdvises(mode: ReadMode): boolean {
  return (mode.kind === "read-stream" && mode.advice) || (mode.kind === "pattern" && mode.adviseDistance > 0);
}

/** A scan as asked: the options checked, defaults filled in (fields without a comment are the {@link ScanOptions} of the same name). */
export interface ScanRequest {
  /** The target path as given (resolved in scan-target.ts). */
  readonly path: string;
  readonly workers: number;
  readonly blockBytes: number;
  readonly segmentBlocks: number;
  readonly relation: boolean | "auto";
  /** The policy as given (default pg14): the allocator checks its options against the size. */
  readonly policyOption: AllocatorPolicy;
  /** The policy with its defaults filled in, as the result reports it. */
  readonly policy: ResolvedPolicy;
  readonly startBlock: number | undefined;
  readonly work: ResolvedWork;
  readonly recordRuns: boolean;
  /** Asked-for cover method, or undefined for the default of the size (cover-check.ts). */
  readonly cover: CoverMethod | undefined;
  readonly evict: boolean;
  /** The syncscan tracker's buffer, or null without syncscan. */
  readonly tracker: SharedArrayBuffer | null;
  /** The syncscan key as given, or undefined for the target's identity key. */
  readonly syncKey: number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: ScanProgress) => void) | undefined;
  readonly progressIntervalMs: number;
  readonly kernel: KernelPaths | undefined;
  /** How the workers read (adviseDistance is checked against the size in scan-target.ts). */
  readonly mode: ReadMode;
  readonly recordReads: boolean;
}

/**
 * Checks `target` and `options` and fills in the defaults.
 *
 * @throws FileScanError for a bad option or work module, or too many workers;
 *   AllocatorError for a bad policy; SyncScanError for a syncscan tracker that is none.
 */
export function checkScanOptions(target: string, options: ScanOptions): ScanRequest {
  if (typeof target !== "string" || target === "") {
    throw badOption(`the target must be a file path (got ${JSON.stringify(target)}).`);
  }
  if (target.includes("\0")) {
    throw badOption(
      `the target path ${JSON.stringify(target)} contains a NUL byte, which no file name can hold.`,
    );
  }
  const workers = intOption("workers", options.workers ?? 1, 1, MAX_WORKERS);
  checkWorkerCount(workers);
  const blockBytes = intOption("blockBytes", options.blockBytes ?? DEFAULT_BLOCK_BYTES, 1, MAX_BLOCK_BYTES);
  // At most 2^31 blocks per segment (scanlab's bound, inside the uint32 block numbers of MAX_SCAN_BLOCKS).
  const segmentBlocks = intOption("segmentBlocks", options.segmentBlocks ?? RELSEG_BLOCKS, 1, 2 ** 31);
  // Up to one hour between progress samples (scanlab's bound: longer is no progress report at all).
  const progressIntervalMs = intOption(
    "progressIntervalMs",
    options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    1,
    3_600_000,
  );
  const relation = options.relation ?? "auto";
  if (relation !== true && relation !== false && relation !== "auto") {
    throw badOption(`relation must be true, false or "auto" (got ${JSON.stringify(relation)}).`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw badOption("onProgress must be a function.");
  }
  // Checked before any worker starts: a signal that cannot be listened to would otherwise throw after the
  // workers were started and leave them waiting for the start flag, keeping the process alive.
  const signal = options.signal;
  if (
    signal !== undefined &&
    (typeof signal !== "object" ||
      signal === null ||
      typeof signal.aborted !== "boolean" ||
      typeof signal.addEventListener !== "function" ||
      typeof signal.removeEventListener !== "function")
  ) {
    throw badOption("signal must be an AbortSignal (from an AbortController).");
  }
  const policyOption = options.policy ?? { kind: "pg14" };
  const policy = resolvePolicy(policyOption);
  const work = resolveWork(options.work);
  const recordRuns = options.recordRuns ?? true;

  let tracker: SharedArrayBuffer | null = null;
  if (options.syncscan !== undefined) {
    const t = options.syncscan.tracker;
    const buffer = t instanceof SharedSyncScanTracker ? t.buffer : t;
    SharedSyncScanTracker.attach(buffer); // throws SyncScanError for anything that is not a tracker
    tracker = buffer;
  }

  const mode = resolveMode(options, workers, blockBytes);
  if (mode.kind === "pattern" && options.syncscan !== undefined) {
    throw badOption("a prefetch pattern reads the file in its own order: it cannot take part in syncscan.");
  }
  if (mode.kind === "pattern" && options.startBlock !== undefined) {
    throw badOption("a prefetch pattern reads the file in its own order: startBlock does not apply to it.");
  }

  return {
    path: target,
    workers,
    blockBytes,
    segmentBlocks,
    relation,
    policyOption,
    policy,
    startBlock: options.startBlock,
    work,
    recordRuns,
    cover: options.cover,
    evict: options.evict === true,
    tracker,
    syncKey: options.syncscan?.key,
    signal,
    onProgress: options.onProgress,
    progressIntervalMs,
    kernel: options.kernel,
    mode,
    recordReads: options.recordReads === true,
  };
}

/** The read mode the options ask for (the advise distance is checked against the size later). */
function resolveMode(options: ScanOptions, workers: number, blockBytes: number): ReadMode {
  const ioCombineLimit = intOption("ioCombineLimit", options.ioCombineLimit ?? 1, 1, MAX_IO_COMBINE_LIMIT);
  // Each worker holds one read's buffers: never more than the largest single block accepted.
  if (ioCombineLimit * blockBytes > MAX_BLOCK_BYTES) {
    throw badOption(
      `ioCombineLimit ${ioCombineLimit} of ${blockBytes}-byte blocks makes reads of ${ioCombineLimit * blockBytes} bytes: at most ${MAX_BLOCK_BYTES} (64 MiB) per read.`,
    );
  }
  const eic = intOption("effectiveIoConcurrency", options.effectiveIoConcurrency ?? 1, 0, MAX_IO_CONCURRENCY);
  if (options.advice !== undefined && typeof options.advice !== "boolean") {
    throw badOption(`advice must be true or false (got ${String(options.advice)}).`);
  }
  const advice = options.advice === true;
  if (advice && eic === 0) {
    throw badOption(
      "advice needs effectiveIoConcurrency of at least 1: with 0 a read stream gives no advice (read_stream.c).",
    );
  }
  if (options.pattern === undefined) {
    if (options.adviseDistance !== undefined || options.patternSeed !== undefined) {
      throw badOption("adviseDistance and patternSeed belong to a prefetch pattern: give pattern too.");
    }
    if (ioCombineLimit === 1 && !advice) return { kind: "blocks" };
    return { kind: "read-stream", ioCombineLimit, effectiveIoConcurrency: eic, advice };
  }
  const pattern = options.pattern;
  if (!READ_PATTERNS.includes(pattern)) {
    throw badOption(`pattern must be "forward", "backward" or "random" (got ${JSON.stringify(pattern)}).`);
  }
  if (workers !== 1) {
    throw badOption(`a prefetch pattern is read by one worker (got workers ${workers}).`);
  }
  if (ioCombineLimit !== 1 || advice) {
    throw badOption(
      "a prefetch pattern reads one block per read and advises by adviseDistance: ioCombineLimit and advice do not apply to it.",
    );
  }
  const adviseDistance = options.adviseDistance ?? 0;
  if (typeof adviseDistance !== "number" || !Number.isInteger(adviseDistance) || adviseDistance < 0) {
    throw badOption(
      `adviseDistance must be a whole number of blocks, 0 or more (got ${String(adviseDistance)}).`,
    );
  }
  const seed = intOption("patternSeed", options.patternSeed ?? 1, 0, 0xffffffff);
  return { kind: "pattern", pattern, adviseDistance, seed };
}

function intOption(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw badOption(`${name} must be an integer from ${min} to ${max} (got ${String(value)}).`);
  }
  return value;
}

/** A work module's file, checked before any worker imports it (see the file header). */
function checkWorkModuleFile(path: string): void {
  try {
    checkInputFile(path, "work-module", { what: "per-block work module" });
  } catch (e) {
    if (e instanceof InputFileError) throw new FileScanError("FILESCAN_BAD_WORK_MODULE", e.message);
    throw e;
  }
}

function resolveWork(work: BlockWork | undefined): ResolvedWork {
  if (work === undefined || work === "none") return { code: WORK_NONE, module: null };
  if (work === "count-bytes") return { code: WORK_COUNT_BYTES, module: null };
  if (work === "checksum") return { code: WORK_CHECKSUM, module: null };
  if (typeof work === "object" && work !== null && typeof work.module === "string" && work.module !== "") {
    const m = work.module;
    if (/^[a-z][a-z0-9+.-]*:/i.test(m) && !/^[a-z]:[\\/]/i.test(m)) {
      // A URL: a file: URL names a file like a path does; other schemes (data:) are Node's to load.
      if (/^file:/i.test(m)) {
        let path: string;
        try {
          path = fileURLToPath(m);
        } catch {
          throw new FileScanError(
            "FILESCAN_BAD_WORK_MODULE",
            `the per-block work module ${m} is not a valid file URL.`,
          );
        }
        checkWorkModuleFile(path);
      }
      return { code: WORK_MODULE, module: m };
    }
    const path = isAbsolute(m) ? m : resolvePath(m);
    checkWorkModuleFile(path);
    return { code: WORK_MODULE, module: pathToFileURL(path).href };
  }
  throw badOption(
    `work must be "none", "count-bytes", "checksum" or { module: "<path or file URL>" } (got ${JSON.stringify(work)}).`,
  );
}
