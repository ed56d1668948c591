/**
 * What the engine needs from each model package, in the engine's own terms.
 *
 * The engine is written against these small interfaces; `adapters.ts` binds
 * them to @scanlab/block-allocator, @scanlab/syncscan, @scanlab/readahead,
 * @scanlab/device-profiles and @scanlab/bitmap-prefetch. Keeping the seam
 * here means a model package can evolve its public API without the event
 * loop changing, and tests can drive the engine with scripted models.
 */
import type { SharedOpKind } from "../pg/shared-memory.js";

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
  /** Renumbers the scan for a {@link TableChange} (speedups/warp.ts): new size, start block mapped, counters shifted. */
  relabel?(nblocks: number, mapBlock: (block: number) => number, counterShift: number): void;
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
  getLocation(key: number, nblocks: number): number;
  /** Reports that block `block` was handed out (the tracker keeps multiples of the interval only). */
  report(key: number, block: number): void;
  /** Renumbers the stored location of `key` in place (speedups/warp.ts). */
  relocate?(key: number, map: (block: number) => number): void;
}

/** A table renumbered under running scans (the warp's cut or restore, speedups/warp.ts). */
export interface TableChange {
  /** Table index. */
  table: number;
  /** "cut": blocks [at, at + blocks) leave the table; "restore": that many blocks come back at `at`. */
  kind: "cut" | "restore";
  at: number;
  blocks: number;
  segmentBlocks: number;
  newNblocks: number;
  /** Where a block is now (a cut block: the first block after the cut). */
  map(block: number): number;
  /** Where the end of a range [x, end) is now. */
  mapEnd(end: number): number;
  /** Where a segment file is now, or -1 for a segment cut out. */
  mapSegment(segment: number): number;
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
  /**
   * The warp's hooks (speedups/warp.ts); an OS without them is never warped.
   * `relabelTable`: renames the table's cached files and re-sizes its segments.
   * `renameOpen`: gives an open file its renamed file id. `counters`/`credit`:
   * read and add to the counters a skipped stretch would have moved, `creditUs`
   * of simulated time in all.
   */
  warp?: {
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
    relabelTable(change: TableChange): void;
    renameOpen(of: OsOpenFile, file: number): void;
    counters(): OsCounters;
    credit(delta: OsCounters, creditUs: number, atUs: number): void;
  };
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
