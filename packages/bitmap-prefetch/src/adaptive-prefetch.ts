/**
 * An adaptive bitmap heap scan prefetcher: the heuristic Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) asks for.
 *
 * No PostgreSQL version has this. PG13-17 advise one 8 kB block per bitmap
 * page, up to effective_io_concurrency pages ahead, whatever the bitmap looks
 * like; Vondra's 2022 benchmark measured that this loses to no prefetching at all as soon as
 * the bitmap is dense or sequential, because kernel readahead (and the SSD)
 * already handle sequential runs with large reads, and per-page advice turns
 * them into many small ones. This policy looks at the bitmap first.
 *
 * How it works. A planning cursor runs ahead of the scan over the bitmap and
 * cuts it into *regions*: matching pages joined across gaps that are cheaper
 * to read through than to skip (gap x t < L / Q, see adaptive-cost-model.ts).
 * For each region the cost model compares getting through it with OS
 * readahead (synchronous 8 kB reads, Linux's window ramp, QD ~1-2) against
 * advising its whole span early in calls of at most `maxAdviceBlocks`
 * (default: the readahead window, which is what one WILLNEED call reads on
 * Linux) and picks the cheaper:
 *
 * - `advise` regions are advised as ranges: an isolated page is one 1-block
 *   call; a run of 8 is one 8-block call; a long run is a chain of
 *   readahead-window-sized calls. Blocks already in shared buffers are left out
 *   (the range is split around them, as PrefetchBuffer would skip them).
 * - `readahead` regions get no advice: OS readahead reads them. The cursor
 *   waits at such a region until the scan reaches it, so advice for the
 *   regions after it is issued while the scan works through it.
 *
 * How far ahead: the cursor keeps advised ranges the scan has not reached yet
 * below two physical limits: `saturatingQueueDepth` ranges (Q small reads in
 * flight saturate the device; more only queue) and max(Q, 2 x maxAdviceBlocks)
 * blocks (two maximal reads in flight keep the bandwidth busy while one is being
 * consumed). Both limits count I/Os and blocks, not bitmap pages, so a
 * sparse bitmap is advised as many pages ahead as a dense one needs.
 *
 * Cost model, parameters and the consequences are in adaptive-cost-model.ts.
 * Like the PG13-17 prefetcher it advises after the current page's read (so
 * its advice does not queue ahead of that read) and never per tuple; the page
 * reads themselves stay ordinary synchronous 8 kB reads done by the caller.
 * Serial scans only.
 */
import {
  type AdaptiveCostParameters,
  chooseRegionMode,
  gapMergeLimitBlocks,
  INTEL_320_LINUX_DEFAULTS,
  type RegionMode,
  type ResolvedCostParameters,
  resolveCostParameters,
} from "./adaptive-cost-model.js";
import {
  type AdviceCall,
  type BitmapHeapPage,
  type BitmapHeapScanStep,
  type BitmapPrefetchStats,
  type BitmapScanPolicy,
  emptyPrefetchStats,
  type PrefetchEnv,
  restOfPageByTuples,
  runWholePage,
} from "./bitmap-scan-policy.js";
import { INVALID_BLOCK_NUMBER } from "./constants.js";
import type { HeapBitmap, HeapBitmapIterator } from "./heap-bitmap.js";

/** Counters of the adaptive prefetcher. */
export interface AdaptivePrefetchStats extends BitmapPrefetchStats {
  /** Regions the cost model sent to advice. */
  adviseRegions: number;
  /** Matching pages in those regions. */
  adviseRegionPages: number;
  /** Regions left to OS readahead. */
  readaheadRegions: number;
  /** Matching pages in those regions. */
  readaheadRegionPages: number;
  /** Unmatched blocks advised because a gap was read through. */
  gapBlocksAdvised: number;
}

/** A region planned by the cursor. */
export interface PlannedRegion {
  /** First matching block. */
  readonly startBlock: number;
  /** One past the last matching block. */
  readonly endBlock: number;
  /** Matching pages. */
  readonly pages: number;
  /** Tuples on them. */
  readonly tuples: number;
  /** The cost model's choice. */
  readonly mode: RegionMode;
}

interface Outstanding {
  firstBlock: number;
  blocks: number;
}

/**
 * The adaptive policy for a serial bitmap heap scan. Parameters are physical
 * (device latency, bandwidth and saturating queue depth, OS readahead window,
 * optional CPU costs); defaults describe the 2022 eic benchmark's Intel 320 with Linux's
 * 128 kB readahead.
 *
 * @example
 * ```ts
 * // Two 8-page runs of a 1000-block table.
 * const bitmap = HeapBitmap.fromPages(1000, [8, 9, 10, 11, 12, 13, 14, 15, 40, 41, 42, 43, 44, 45, 46, 47], { tuples: 27 });
 * const scan = new AdaptiveBitmapPrefetcher(bitmap, {
 *   readLatencyUs: 100, bandwidthMBps: 270, saturatingQueueDepth: 4, readaheadBlocks: 16,
 * });
 * const step = scan.nextPage({ isBuffered: () => false });
 * // step.advice: [{ firstBlock, blocks: 8, afterTuples: 0 }, ...] - whole 8-page runs, up to 4 ranges ahead
 * ```
 */
export class AdaptiveBitmapPrefetcher implements BitmapScanPolicy {
  /** Resolved parameters. */
  readonly parameters: ResolvedCostParameters;
  /** Largest gap read through. */
  readonly gapMergeLimitBlocks: number;
  private readonly main: HeapBitmapIterator;
  private readonly planner: HeapBitmapIterator;
  private readonly maxAheadIos: number;
  private readonly maxAheadBlocks: number;
  private readonly counters: AdaptivePrefetchStats = {
    ...emptyPrefetchStats(),
    adviseRegions: 0,
    adviseRegionPages: 0,
    readaheadRegions: 0,
    readaheadRegionPages: 0,
    gapBlocksAdvised: 0,
  };
  private readonly outstanding: Outstanding[] = [];
  private outstandingHead = 0;
  private outstandingBlocks = 0;
  private region: PlannedRegion | null = null;
  private regionCursor = 0;
  private current: BitmapHeapPage | null = null;
  private iterationsDone = 0;
  private readonly onRegion: ((r: PlannedRegion) => void) | undefined;

  /**
   * @param bitmap pages to scan
   * @param parameters physical parameters (see {@link AdaptiveCostParameters}); default {@link INTEL_320_LINUX_DEFAULTS}
   * @param onRegion optional observer of each planned region (for inspection and tests)
   */
  constructor(
    readonly bitmap: HeapBitmap,
    parameters: AdaptiveCostParameters = INTEL_320_LINUX_DEFAULTS,
    onRegion?: (r: PlannedRegion) => void,
  ) {
    this.parameters = resolveCostParameters(parameters);
    this.gapMergeLimitBlocks = gapMergeLimitBlocks(this.parameters);
    this.main = bitmap.iterate();
    this.planner = bitmap.iterate();
    this.maxAheadIos = this.parameters.saturatingQueueDepth;
    this.maxAheadBlocks = Math.max(this.parameters.saturatingQueueDepth, 2 * this.parameters.maxAdviceBlocks);
    this.onRegion = onRegion;
  }

  /** Counters so far. */
  get stats(): Readonly<AdaptivePrefetchStats> {
    return this.counters;
  }

  /** Advised ranges the scan has not reached yet. */
  get rangesAhead(): number {
    return this.outstanding.length - this.outstandingHead;
  }

  /** Takes the next page; the caller reads it. */
  beginPage(): BitmapHeapPage | null {
    if (this.current !== null && this.iterationsDone <= this.current.tuples) {
      throw new Error("beginPage called before the current page's tuple iterations were done");
    }
    const b = this.main.next();
    if (b === INVALID_BLOCK_NUMBER) {
      this.current = null;
      return null;
    }
    const page: BitmapHeapPage = { page: b, lossy: this.main.lossy, tuples: this.main.tuples };
    this.current = page;
    this.iterationsDone = 0;
    this.counters.pages++;
    if (page.lossy) this.counters.lossyPages++;
    else this.counters.exactPages++;
    return page;
  }

  /** The page was read: top up the advice ahead of it. */
  pageRead(env: PrefetchEnv): AdviceCall[] {
    const page = this.current;
    if (page === null || this.iterationsDone !== 0) throw new Error("pageRead without a fresh page");
    this.iterationsDone = 1;
    const out: AdviceCall[] = [];
    this.topUp(page.page, env, out);
    return out;
  }

  /** A further tuple fetch: this policy never advises per tuple. */
  nextTuple(_env: PrefetchEnv): AdviceCall[] {
    const page = this.current;
    if (page === null || this.iterationsDone === 0) throw new Error("nextTuple without a page that was read");
    if (this.iterationsDone > page.tuples)
      throw new Error("nextTuple called more than `tuples` times on a page");
    this.iterationsDone++;
    return [];
  }

  /** All iterations of one page. */
  nextPage(env: PrefetchEnv): BitmapHeapScanStep | null {
    return runWholePage(this, env);
  }

  /** The page's remaining tuple iterations at once; see {@link BitmapScanPolicy.restOfPage}. */
  restOfPage(env: PrefetchEnv): AdviceCall[] {
    const page = this.current;
    if (page === null || this.iterationsDone === 0)
      throw new Error("restOfPage without a page that was read");
    return restOfPageByTuples(this, page.tuples + 1 - this.iterationsDone, env);
  }

  private retireReached(page: number): void {
    const q = this.outstanding;
    while (this.outstandingHead < q.length && (q[this.outstandingHead] as Outstanding).firstBlock <= page) {
      this.outstandingBlocks -= (q[this.outstandingHead] as Outstanding).blocks;
      this.outstandingHead++;
    }
    if (this.outstandingHead > 1024 && this.outstandingHead * 2 > q.length) {
      q.splice(0, this.outstandingHead);
      this.outstandingHead = 0;
    }
  }

  /** Plans the next region from the planner cursor, or null at the end of the bitmap. */
  private planRegion(): PlannedRegion | null {
    const it = this.planner;
    const first = it.peek();
    if (first === INVALID_BLOCK_NUMBER) return null;
    const gapLimit = this.gapMergeLimitBlocks;
    let pages = 0;
    let tuples = 0;
    let end = first;
    for (;;) {
      const next = it.peek();
      if (next === INVALID_BLOCK_NUMBER || (pages > 0 && next - end > gapLimit)) break;
      const n = it.skip(it.peekRunRemaining());
      pages += n;
      tuples += n * it.tuples;
      end = next + n;
    }
    const mode = chooseRegionMode({ spanBlocks: end - first, pages, tuples }, this.parameters);
    const region: PlannedRegion = { startBlock: first, endBlock: end, pages, tuples, mode };
    if (mode === "advise") {
      this.counters.adviseRegions++;
      this.counters.adviseRegionPages += pages;
    } else {
      this.counters.readaheadRegions++;
      this.counters.readaheadRegionPages += pages;
    }
    this.onRegion?.(region);
    return region;
  }

  private topUp(page: number, env: PrefetchEnv, out: AdviceCall[]): void {
    this.retireReached(page);
    const maxAdvice = this.parameters.maxAdviceBlocks;
    while (this.rangesAhead < this.maxAheadIos && this.outstandingBlocks < this.maxAheadBlocks) {
      if (this.region === null) {
        this.region = this.planRegion();
        if (this.region === null) return;
        this.regionCursor = this.region.startBlock;
      }
      const r = this.region;
      if (r.mode === "readahead") {
        // Leave it to the OS; move past it only once the scan has reached it.
        if (page < r.startBlock) return;
        this.region = null;
        continue;
      }
      const start = Math.max(this.regionCursor, page + 1);
      if (start >= r.endBlock) {
        this.region = null;
        continue;
      }
      // Whole calls of up to maxAdviceBlocks; the limits are checked before each call, never by clipping one.
      const end = Math.min(start + maxAdvice, r.endBlock);
      this.regionCursor = end;
      this.adviseRange(start, end, env, out);
    }
  }

  /**
   * Advises [start, end) minus buffered blocks, as one call per unbuffered
   * stretch. The range counts as one outstanding read-ahead unit however many
   * calls buffered blocks split it into (the queue-depth limit is on planned
   * ranges: a split adds at most a few small calls beside it), retired when
   * the scan reaches its first block.
   */
  private adviseRange(start: number, end: number, env: PrefetchEnv, out: AdviceCall[]): void {
    const bitmap = this.bitmap;
    const gapsPossible = this.gapMergeLimitBlocks > 0;
    let runStart = -1;
    let first = -1;
    let advisedBlocks = 0;
    const flush = (stop: number): void => {
      if (runStart < 0) return;
      const blocks = stop - runStart;
      out.push({ firstBlock: runStart, blocks, afterTuples: 0 });
      if (first < 0) first = runStart;
      advisedBlocks += blocks;
      this.counters.adviceCalls++;
      this.counters.adviceBlocks += blocks;
      runStart = -1;
    };
    for (let b = start; b < end; b++) {
      if (env.isBuffered(b)) {
        this.counters.adviceSkippedBuffered++;
        flush(b);
        continue;
      }
      if (runStart < 0) runStart = b;
      if (gapsPossible && !bitmap.has(b)) this.counters.gapBlocksAdvised++;
    }
    flush(end);
    if (first >= 0) {
      this.outstanding.push({ firstBlock: first, blocks: advisedBlocks });
      this.outstandingBlocks += advisedBlocks;
    }
  }
}
