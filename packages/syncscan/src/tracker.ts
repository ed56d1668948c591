/**
 * The tracker: where should a new scan of this relation start?
 *
 * This is PostgreSQL's syncscan.c (apps/docs/src/reference/synchronized-scans.md#syncscan-constants, apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations) around the LRU list in
 * lru.ts. A scan that is about to start asks getLocation(key, nblocks): under
 * an exclusive lock the list is searched (moving the relation to the head and,
 * on a miss, inserting it with location 0 in place of the least recently used
 * relation), and a stored location at or past nblocks - the table was
 * truncated since - is answered with 0. A running scan calls
 * reportLocation(key, block) for every block it moves to; only multiples of
 * SYNC_SCAN_REPORT_INTERVAL (16) are kept, and the report only *tries* the
 * lock: if another backend holds it, the report is dropped, because a scan
 * must never wait for bookkeeping that is only a hint. Readers, who need an
 * answer, wait.
 *
 * The lock is the only thing the two backings do differently: the in-process
 * tracker (the simulator, one thread) keeps a flag, the shared tracker
 * (shared-tracker.ts, worker threads) a futex-style word driven by Atomics.
 * Because a single thread never finds its own lock taken, the in-process
 * tracker offers holdLock() so a caller can model a backend sitting inside
 * SyncScanLock and see reports dropped.
 */
import { SYNC_SCAN_NELEM, SYNC_SCAN_REPORT_INTERVAL_BLOCKS } from "./constants.js";
import {
  DROPPED_WORD,
  initLru,
  LOCK_WORD,
  lruEntries,
  lruProblem,
  lruRelocate,
  lruSearch,
  lruWords,
  NELEM_WORD,
  REPORT_INTERVAL_WORD,
  type SyncScanEntry,
} from "./lru.js";
import { lastReportInRun } from "./report-run.js";
import { checkBlock, checkKey, checkNblocks, checkNelem, checkReportInterval } from "./validate.js";

export type { SyncScanEntry } from "./lru.js";

/** The key of the tracker's renumbering hook, reached only through `@scanlab/syncscan/sim`. */
export const RENUMBER: unique symbol = Symbol("@scanlab/syncscan renumber");

/** Options shared by both trackers. */
export interface SyncScanTrackerOptions {
  /** LRU slots; PostgreSQL's SYNC_SCAN_NELEM = 20 (apps/docs/src/reference/synchronized-scans.md#syncscan-constants). Must be > 1. */
  nelem?: number;
  /** Only blocks that are multiples of this are stored; SYNC_SCAN_REPORT_INTERVAL = 16 (apps/docs/src/reference/synchronized-scans.md#syncscan-constants). */
  reportIntervalBlocks?: number;
}

/** Releases a lock taken with {@link SyncScanTracker.holdLock}; calling it again does nothing. */
export type SyncScanLockRelease = () => void;

/**
 * What both backings offer: PostgreSQL's ss_get_location / ss_report_location
 * plus a run-level report, a snapshot, and a way to hold the lock.
 */
export interface SyncScanTracker {
  /** Number of LRU slots. */
  readonly nelem: number;
  /** Report interval in blocks (16 in PostgreSQL). */
  readonly reportIntervalBlocks: number;
  /** Reports of a multiple of the interval that were dropped because the lock was busy (wraps at 2^32). */
  readonly droppedReports: number;
  /**
   * ss_get_location: the block a new scan of `key` should start at. Waits for
   * the lock; moves `key` to the head of the list, inserting it with location
   * 0 on a miss (evicting the least recently used relation); answers 0 when the
   * stored location is >= `nblocks`.
   */
  getLocation(key: number, nblocks: number): number;
  /**
   * ss_report_location: a scan of `key` is now at `block`. Stored only when
   * `block` is a multiple of the report interval and the lock is free at once;
   * returns whether it was stored.
   */
  reportLocation(key: number, block: number): boolean;
  /**
   * Report `blocks` consecutive blocks starting at `firstBlock` (wrapping at
   * `nblocks` to 0) in one call. With a free lock the result is the same as
   * calling {@link reportLocation} for each block in order: the last multiple
   * of the interval in the run is stored. It takes the lock at most once; if the
   * lock is busy that one report is dropped. Returns whether a location was stored.
   */
  reportRun(key: number, firstBlock: number, blocks: number, nblocks: number): boolean;
  /** The occupied slots from most to least recently used (takes the lock). */
  entries(): SyncScanEntry[];
  /**
   * Take the lock and keep it until the returned function is called, as a
   * backend inside SyncScanLock would: meanwhile reports are dropped and
   * readers wait (in-process: a reader throws, since it would wait forever).
   */
  holdLock(): SyncScanLockRelease;
}

/**
 * @internal The options of either tracker checked and defaulted (PostgreSQL's
 * SYNC_SCAN_NELEM and SYNC_SCAN_REPORT_INTERVAL, apps/docs/src/reference/synchronized-scans.md#syncscan-constants), and an empty
 * list laid out in a buffer from `allocate`.
 */
export function newTrackerWords<B extends ArrayBufferLike>(
  options: SyncScanTrackerOptions,
  allocate: (bytes: number) => B,
): Int32Array<B> {
  const nelem = checkNelem(options.nelem ?? SYNC_SCAN_NELEM);
  const interval = checkReportInterval(options.reportIntervalBlocks ?? SYNC_SCAN_REPORT_INTERVAL_BLOCKS);
  const words = new Int32Array(allocate(lruWords(nelem) * Int32Array.BYTES_PER_ELEMENT));
  initLru(words, nelem, interval);
  return words;
}

/**
 * The LRU logic over an Int32Array, with the lock left to the backing.
 * Internal base of {@link InProcessSyncScanTracker} and `SharedSyncScanTracker`.
 */
export abstract class SyncScanTrackerBase implements SyncScanTracker {
  /** The list and its header (lru.ts layout). */
  protected readonly words: Int32Array;
  /** @inheritDoc */
  readonly nelem: number;
  /** @inheritDoc */
  readonly reportIntervalBlocks: number;

  /** Wraps an initialised list. */
  protected constructor(words: Int32Array) {
    this.words = words;
    this.nelem = words[NELEM_WORD]!;
    this.reportIntervalBlocks = words[REPORT_INTERVAL_WORD]!;
  }

  /** Take the lock, waiting if needed (LWLockAcquire). */
  protected abstract lock(): void;
  /** Take the lock only if it is free now (LWLockConditionalAcquire). */
  protected abstract tryLock(): boolean;
  /** Release the lock. */
  protected abstract unlock(): void;
  /** Count a dropped report. */
  protected abstract countDropped(): void;

  /** @inheritDoc */
  get droppedReports(): number {
    return this.words[DROPPED_WORD]! >>> 0;
  }

  /** @inheritDoc */
  getLocation(key: number, nblocks: number): number {
    checkKey(key);
    checkNblocks(nblocks);
    this.lock();
    let location: number;
    try {
      location = lruSearch(this.words, key, 0, false);
    } finally {
      this.unlock();
    }
    // The table may have been truncated since the location was stored (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations).
    return location >= nblocks ? 0 : location;
  }

  /** @inheritDoc */
  reportLocation(key: number, block: number): boolean {
    checkKey(key);
    checkBlock(block);
    if (block % this.reportIntervalBlocks !== 0) return false;
    return this.store(key, block);
  }

  /** @inheritDoc */
  reportRun(key: number, firstBlock: number, blocks: number, nblocks: number): boolean {
    checkKey(key);
    const block = lastReportInRun(firstBlock, blocks, nblocks, this.reportIntervalBlocks);
    return block === null ? false : this.store(key, block);
  }

  private store(key: number, block: number): boolean {
    if (!this.tryLock()) {
      this.countDropped();
      return false;
    }
    try {
      lruSearch(this.words, key, block, true);
    } finally {
      this.unlock();
    }
    return true;
  }

  /** `renumberLocation` (sim.ts): renumbers the location of `key` in place, keeping its LRU place. */
  [RENUMBER](key: number, map: (location: number) => number): boolean {
    checkKey(key);
    this.lock();
    try {
      return lruRelocate(this.words, key, (location) => {
        const moved = map(location);
        checkBlock(moved);
        return moved;
      });
    } finally {
      this.unlock();
    }
  }

  /** @inheritDoc */
  entries(): SyncScanEntry[] {
    this.lock();
    try {
      return lruEntries(this.words);
    } finally {
      this.unlock();
    }
  }

  /**
   * Check the list's links (for tests and debugging): a description of the
   * first inconsistency, or `null` when the list is sound. Takes the lock.
   */
  structureProblem(): string | null {
    this.lock();
    try {
      return lruProblem(this.words);
    } finally {
      this.unlock();
    }
  }

  /** @inheritDoc */
  holdLock(): SyncScanLockRelease {
    this.lock();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.unlock();
    };
  }
}

/**
 * The tracker for one thread: the simulator, tests, a single process. Same
 * LRU code as the shared tracker, over a plain ArrayBuffer.
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker } from "@scanlab/syncscan";
 * const tracker = new InProcessSyncScanTracker(); // 20 slots, reports every 16 blocks
 * tracker.getLocation(42, 10_000); // 0: first scan of relation 42 (inserts it)
 * tracker.reportLocation(42, 100); // false: not a multiple of 16
 * tracker.reportLocation(42, 112); // true
 * tracker.getLocation(42, 10_000); // 112: the next scan starts where the last one was
 * tracker.getLocation(42, 50);     // 0: the table shrank below the stored location
 * ```
 */
export class InProcessSyncScanTracker extends SyncScanTrackerBase {
  /** Creates an empty tracker. Throws {@link SyncScanError} for a bad `nelem` or interval. */
  constructor(options: SyncScanTrackerOptions = {}) {
    super(newTrackerWords(options, (bytes) => new ArrayBuffer(bytes)));
  }

  protected lock(): void {
    if (this.words[LOCK_WORD] !== 0) {
      throw new Error(
        "InProcessSyncScanTracker: the lock is held (holdLock) and this thread would wait for itself forever",
      );
    }
    this.words[LOCK_WORD] = 1;
  }

  protected tryLock(): boolean {
    if (this.words[LOCK_WORD] !== 0) return false;
    this.words[LOCK_WORD] = 1;
    return true;
  }

  protected unlock(): void {
    this.words[LOCK_WORD] = 0;
  }

  protected countDropped(): void {
    this.words[DROPPED_WORD] = (this.words[DROPPED_WORD]! + 1) | 0;
  }
}
