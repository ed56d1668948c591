/**
 * What the engine needs from each model package, in the engine's own terms:
 * every port the engine is written against, and the factories it is handed.
 *
 * The problem: the engine composes seven model packages, and each has an API
 * of its own that evolves. An engine that imports them wherever it needs
 * one changes whenever one of them does, and can only ever run the real
 * models.
 *
 * The insight: what the engine needs from a model is small (where the next
 * claim is, when a read is ready, which page the bitmap scan takes next), so
 * it can be said once, here, in the engine's terms (blocks, microseconds,
 * table changes). The adapters of this folder bind these ports to
 * @scanlab/block-allocator, @scanlab/syncscan, @scanlab/readahead,
 * @scanlab/device-profiles, @scanlab/bitmap-prefetch and @scanlab/read-stream;
 * @scanlab/buffer-manager's pool and rings pass through buffer-manager.ts as
 * they are. Nothing else in the engine imports a model package (a repo check
 * holds it to that).
 *
 * Design choices:
 * - Model constants the engine runs by (the syncscan report interval) come
 *   in through a port as a field, not as an import.
 * - Where a model's own object already has the port's shape (a read stream,
 *   the adaptive and parallel bitmap policies), the adapter hands it over as
 *   it is: no wrapper on the hot path.
 * - The warp's hooks are optional members of the ports (`warp`, `renumber`):
 *   a model without them is simply never warped. Every one of them takes the
 *   same {@link Renumbering} (core's renumbering protocol).
 */

import type { Renumbering } from "./shared-leaf.js";

export type { Renumbering };

import type { ResolvedScenario } from "../../scenario/resolve.js";
import type { QuerySpec } from "../../scenario/schema.js";
import type { BucketSeries } from "../loop/time-series.js";

/** What one allocation did to shared memory (mirrors @scanlab/block-allocator's SharedOp). */
export type SharedOpKind = "lock" | "atomic" | "none";

/** A claim of consecutive blocks handed to one participant (split where it wraps). */
export interface Claim {
  startBlock: number;
  blocks: number;
  op: SharedOpKind;
}

/** One participant's view of a parallel (or serial) scan's block allocation. */
export interface AllocatorParticipant {
  /** The next claim, or null when this participant is done. */
  next(): Claim | null;
}

/** One scan's shared allocation state. */
export interface ScanAllocation {
  join(): AllocatorParticipant;
  /**
   * Where the scan is, in counter space (counter value c is block
   * (c + startBlock) mod nblocks; every value below `counter` has been handed
   * out), or null before the start block is set. For the warp (speedups/warp.ts).
   */
  position?(): { counter: number; startBlock: number; nblocks: number } | null;
  /** Renumbers the scan (speedups/warp.ts): new size, start block mapped, counters moved. */
  renumber?(change: Renumbering): void;
  /** What the warp may not cut (speedups/warp.ts): see adapters.ts `warpLimits`. */
  warpLimits?(): WarpLimits;
  /**
   * For fixed-size policies (pg96, pg11, batch): blocks per claim, where the
   * next claim starts, and a way to hand out a stretch in bulk (the striding
   * gang's fast path). Absent for chunked policies.
   */
  striding?: {
    claimBlocks: number;
    op: "lock" | "atomic";
    /** Counter position, start block and size, or null before the start block is set. */
    position(): { counter: number; startBlock: number; nblocks: number } | null;
    fastForward(blocks: number): void;
  };
}

/** Where scans of a table start, and where they report (syncscan). */
export interface SyncScanPort {
  /** Scans report every this many blocks (ss_report_location's SYNC_SCAN_REPORT_INTERVAL, in blocks). */
  readonly reportIntervalBlocks: number;
  getLocation(key: number, nblocks: number): number;
  /** Reports that block `block` was handed out (the tracker keeps multiples of the interval only). */
  report(key: number, block: number): void;
  /** Renumbers the stored location of the table `key` in place (speedups/warp.ts). */
  renumber?(key: number, change: Renumbering): void;
}

/** Counters the OS adapter keeps, for the warp's credits (speedups/warp.ts). */
export interface OsCounters {
  deviceReads: number;
  deviceBytes: number;
  syncReads: number;
  requestedBytes: number;
  /** Device busy time and summed request latency, µs (utilisation and queue depth). */
  busyUs: number;
  latencyUs: number;
}

/** The OS: page cache + readahead model + device, behind one door. */
export interface OsPort {
  /** A new open of `file` by one process (PostgreSQL opens each segment separately in every process). */
  open(file: number): OsOpenFile;
  /** One read() of `pages` pages from `page`; submits what the OS decides; returns when the data is ready. */
  read(of: OsOpenFile, page: number, pages: number, nowUs: number): number;
  /** Pages submitted to the device so far by reads and advice (what the kernel brought into the page cache). */
  readonly submittedPages: number;
  /** How far `of` can read from `page` in reads of `pagesPerRead` with no OS decision, and when those pages are ready. */
  quietRun(
    of: OsOpenFile,
    page: number,
    maxPages: number,
    pagesPerRead: number,
    nowUs: number,
  ): { pages: number; readyAtUs: number };
  /**
   * Accounts a quiet run in the open file's state, as if each read had been issued. The reads
   * count as asked of the OS unless `counted` (they were already counted by {@link OsPort.touch}).
   */
  skipQuiet(
    of: OsOpenFile,
    page: number,
    pages: number,
    pagesPerRead: number,
    nowUs: number,
    counted?: boolean,
  ): void;
  /** posix_fadvise(WILLNEED). */
  willneed(of: OsOpenFile, page: number, pages: number, nowUs: number): void;
  /**
   * The run of pages from `page` that are present and carry no readahead
   * marker, with one readiness time: what any opener could read without the
   * OS deciding anything (for Linux, FreeBSD and direct I/O; not Windows,
   * whose per-handle pattern detection reacts to reads of cached pages).
   */
  cacheRun(file: number, page: number, maxPages: number, nowUs: number): { pages: number; readyAtUs: number };
  /** False when reading cached, unmarked pages can still make the OS act (Windows). */
  readonly cachedReadsAreQuiet: boolean;
  /**
   * Refreshes pages in the LRU and counts `readPages` of them as read from the page cache
   * (reads the engine accounted for in bulk; the rest were shared-buffer hits).
   */
  touch(file: number, page: number, pages: number, readPages: number): void;
  /** Whether a page is resident (valid or in flight) — for statistics only. */
  isResident(file: number, page: number): boolean;
  /** Makes `pages` pages of `file` valid from page 0 (a warm cache at the start). */
  warm(file: number, pages: number): void;
  /** The warp's hooks (speedups/warp.ts); an OS without them is never warped. */
  readonly warp?: OsWarpHooks;
}

/**
 * The warp's hooks into the OS. `renumberTable`: renames the table's cached
 * segment files and re-sizes its segments. `renumberOpen`: gives an open
 * segment file its new id (false for a segment cut out). `counters`/`credit`: read and add to the counters a
 * skipped stretch would have moved, `creditUs` of simulated time in all.
 */
export interface OsWarpHooks {
  /**
   * Pages still cached ahead of scans about to skip segments [fromSegment,
   * toSegment) of `table` and then read `beyond` (segment ranges): true when
   * the skipped reads would have pushed every one of them out before the
   * scans got to it (then, unless `dryRun`, they are forgotten); false when
   * some would still be there (nothing changes).
   */
  clearAhead(
    table: number,
    fromSegment: number,
    toSegment: number,
    beyond: [number, number][],
    nowUs: number,
    dryRun: boolean,
  ): boolean;
  /** The page cache's LRU epoch now (for a later {@link restoreAged}). */
  epochNow(): number;
  /** Segments [fromSegment, toSegment) of `table` come back valid with the LRU age `epoch` (no eviction). */
  restoreAged(table: number, fromSegment: number, toSegment: number, epoch: number): void;
  /** The least recently used pages over capacity go. */
  evictOverfull(nowUs: number): void;
  renumberTable(change: Renumbering, segmentBlocks: number): void;
  renumberOpen(of: OsOpenFile, change: Renumbering, segmentBlocks: number): boolean;
  counters(): OsCounters;
  credit(delta: OsCounters, creditUs: number, atUs: number): void;
}

/** An open file: opaque to the engine. */
export type OsOpenFile = unknown;

/** What a scan's allocation forbids a warp cut (speedups/warp.ts). */
export interface WarpLimits {
  /** Blocks at the end of the scan's path where claims change size: never cut. */
  tailBlocks: number;
  /** Blocks the table must keep (PG14's unsigned ramp-down threshold). */
  minNblocks: number;
  /**
   * Where, in blocks still to hand out, claims halve next (PG14: chunk x 64),
   * 0 for never: a cut that crosses it is credited twice the claims per
   * block beyond it.
   */
  halvesBelow: number;
  /** Blocks one claim hands out in a steady stretch (the largest chunk held); 0 when claims do not grow with blocks. */
  blocksPerClaim: number;
}

/** What the OS adapter reports at the end. */
export interface OsStats {
  deviceReads: number;
  deviceBytes: number;
  syncReads: number;
  /** Bytes processes asked the OS for (reads after shared-buffer misses). */
  requestedBytes: number;
  /** Device busy fraction over the run (from the device model). */
  utilisation: number;
  /** Mean number of requests in the device (from the device model). */
  meanQueueDepth: number;
  series: BucketSeries;
}

/** What the adaptive bitmap policy needs to know about the machine (physical figures, not fitted ones). */
export interface AdaptiveInputs {
  readLatencyUs: number;
  bandwidthMBps: number;
  saturatingQueueDepth: number;
  readaheadBlocks: number;
}

/** The OS and device of a scenario's machine, built by the OS adapter (os-adapter.ts). */
export interface BuiltOs {
  port: OsPort;
  stats(): OsStats;
  /** The readahead model's confidence label ("low" for Windows). */
  confidence: "high" | "medium" | "low";
  /** Device and readahead figures for the adaptive bitmap policy (measured once, when first asked). */
  adaptive(): AdaptiveInputs;
}

/** A shared-buffer lookup a prefetch policy or read stream makes (PrefetchBuffer's, StartReadBuffers' test). */
export interface BufferLookup {
  /** True when `block` is valid in shared buffers now. */
  isBuffered(block: number): boolean;
}

/** One posix_fadvise(WILLNEED) over `blocks` blocks from `firstBlock`. */
export interface Advice {
  readonly firstBlock: number;
  readonly blocks: number;
}

/**
 * One process's bitmap heap scan before PostgreSQL 18: the page order of the
 * bitmap, and the advice its prefetch policy issues (PG13-17's
 * PrefetchBuffer ramp, 8.4-12's, or the adaptive policy).
 */
export interface BitmapScanPort {
  /** Takes the next page and its tuples, or null when the bitmap is exhausted; the process then reads the page. */
  beginPage(): { readonly page: number; readonly tuples: number } | null;
  /** The page is read: the advice to issue now. */
  pageRead(env: BufferLookup): readonly Advice[];
  /** The advice of the page's tuple loop, in order. */
  restOfPage(env: BufferLookup): readonly Advice[];
  /** The warp's hooks (speedups/warp.ts); absent when the scan's state cannot be renumbered. */
  readonly warp?: BitmapScanWarp;
}

/** How the warp renumbers a bitmap heap scan (a serial PG13-17 one: its bitmap and both iterators). */
export interface BitmapScanWarp {
  /** The lowest block neither iterator has reached (the end of the path once one has seen every page). */
  frontier(): number;
  /** One past the bitmap's last page: where the scan's path ends. */
  pathEnd(): number;
  /** Bitmap pages in blocks [at, at + blocks): what the scan processes there. */
  pagesIn(at: number, blocks: number): number;
  /** The table was renumbered: the bitmap and both iterators follow (a cut, or the newest cut put back). */
  renumber(change: Renumbering): void;
}

/** PostgreSQL's bitmap prefetch settings of a PG 9.6-17 bitmap heap scan. */
export interface BitmapPrefetchSettings {
  effectiveIoConcurrency: number;
  /** "pg84": effective_io_concurrency counts spindles (8.4-12); "pg13": it is the distance. */
  eicFormula: "pg84" | "pg13";
  /** Whether the tuple-fetch iteration that finds a page exhausted prefetches (12+). */
  prefetchOnExhaustedIteration: boolean;
}

/** The adaptive bitmap policy's plan inputs: the machine's figures and the scan's CPU costs. */
export interface AdaptivePlanInputs extends AdaptiveInputs {
  cpuPerPageUs: number;
  cpuPerTupleUs: number;
  adviceCallUs: number;
}

/** Bitmap heap scans' models: the query's bitmap (from its data-set description) and the policies that walk it. */
export interface BitmapScanModels {
  /**
   * The query's bitmap pages in order, one per call (null at the end): the
   * block source of a PG18+ bitmap heap scan's read streams, shared by its processes.
   */
  pageSource(spec: QuerySpec, nblocks: number): () => number | null;
  /** The share of the table's tuples (`nblocks` pages of `tuplesPerPage`) the query's bitmap matches. */
  matchedShare(spec: QuerySpec, nblocks: number, tuplesPerPage: number): number;
  /**
   * A PG 9.6-17 scan's prefetch policies, one per process: alone, one the
   * warp can renumber; in parallel, participants of one shared iterator.
   */
  prefetch(
    spec: QuerySpec,
    nblocks: number,
    settings: BitmapPrefetchSettings,
    processes: number,
  ): BitmapScanPort[];
  /** The adaptive policy (serial scans only). */
  adaptive(spec: QuerySpec, nblocks: number, inputs: AdaptivePlanInputs): BitmapScanPort;
}

/** One I/O a read stream starts (read_stream.c's, in the engine's terms). */
export interface StreamIo {
  readonly firstBlock: number;
  readonly blocks: number;
  /** Issue posix_fadvise(WILLNEED) over the blocks when the I/O is started. */
  readonly advise: boolean;
  /** The read itself starts with the I/O (io_method worker / io_uring); else it is done when waited for. */
  readonly async: boolean;
  /** For an asynchronous read, what {@link StreamEnv.startRead} returned. */
  readonly readyAtUs: number | null;
}

/** The world a read stream runs in: shared buffers, and the reads themselves. */
export interface StreamEnv extends BufferLookup {
  /** The stream starts `io` at `nowUs`: advice, and for an asynchronous read when its blocks are valid (else null). */
  startRead(io: StreamIo, nowUs: number): number | null;
  /** The consumer reached `io` at `nowUs`: a synchronous read is done now; returns when its blocks are valid. */
  waitRead(io: StreamIo, nowUs: number): number;
}

/** What the consumer of a read stream gets next: a buffer, or a wait for an I/O. */
export type StreamStep =
  | { readonly kind: "buffer"; readonly block: number }
  | { readonly kind: "wait"; readonly untilUs: number };

/** A read stream (PostgreSQL 17+): look-ahead distance, I/O combining and advice. */
export interface ReadStreamPort {
  /** The next buffer at `nowUs`, a wait, or null at the end of the stream. */
  nextBuffer(nowUs: number, env: StreamEnv): StreamStep | null;
  /** After a wait: the buffer waited for (or another wait), or null at the end. */
  resume(nowUs: number, env: StreamEnv): StreamStep | null;
}

/** How PostgreSQL sets up a read stream (read_stream_begin_relation's inputs). */
export interface ReadStreamSettings {
  /** Which version's read_stream.c. */
  version: 17 | 18 | 19;
  effectiveIoConcurrency: number;
  ioCombineLimit: number;
  /** io_max_combine_limit (18+; undefined for 17). */
  ioMaxCombineLimit: number | undefined;
  ioMethod: "sync" | "worker" | "io_uring";
  /** READ_STREAM_SEQUENTIAL (sequential scans): never any advice. */
  sequential?: boolean;
  /** Per-buffer data in use (18+ bitmap heap scans). */
  perBufferData?: boolean;
  /** Read through a BAS_BULKREAD ring. */
  bulkread: boolean;
  nbuffers: number;
  /** max_connections, which sizes the backend's pin limit. */
  maxConnections: number;
}

/** Everything model-specific the engine is handed (adapters.ts binds it to the model packages). */
export interface ModelFactories {
  buildOs(resolved: ResolvedScenario): BuiltOs;
  syncscan(): SyncScanPort;
  parallelScan(
    spec: QuerySpec,
    nblocks: number,
    syncscan: boolean,
    hooks: { getStartBlock(nblocks: number): number; onScanEnd(startBlock: number): void },
  ): ScanAllocation;
  bitmapScans: BitmapScanModels;
  readStream(source: () => number | null, settings: ReadStreamSettings): ReadStreamPort;
}
