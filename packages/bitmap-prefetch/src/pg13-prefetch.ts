/**
 * PostgreSQL 13-17 bitmap heap scan prefetching (nodeBitmapHeapscan.c),
 * serial and parallel.
 *
 * The story (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch, apps/docs/src/reference/bitmap-heap-scan-prefetch.md#parallel-bitmap-heap-scans). A bitmap heap scan walks the
 * bitmap with a main iterator and reads each page synchronously. To hide the
 * latency of those reads it keeps a second, *prefetch* iterator running up to
 * `prefetch_target` pages ahead, and for every page that iterator passes it
 * calls PrefetchBuffer, which issues posix_fadvise(WILLNEED) for that one
 * 8 kB block unless the block is already in shared buffers. Three numbers
 * drive it:
 *
 * - `prefetch_maximum`: effective_io_concurrency (13+), or rint(n H(n)) for
 *   the 8.4-12 "spindles" meaning (option `eicFormula: "pg84"`).
 * - `prefetch_target`: starts at -1 and ramps once per new page
 *   (BitmapAdjustPrefetchTarget): unchanged at max; to max from max/2
 *   (integer division) or above; doubled when positive; otherwise +1. So
 *   -1 -> 0 -> 1 -> 2 -> 4 ... -> max. On top of that, every further
 *   tuple-fetch iteration on the same page adds 1 (up to max), including the
 *   iteration that finds the page exhausted.
 * - `prefetch_pages`: how far the prefetch iterator is ahead of the main one.
 *   Each new page the main iterator takes closes the gap by one
 *   (BitmapAdjustPrefetchIterator); if the gap is already 0 the prefetch
 *   iterator is advanced too so it never falls behind.
 *
 * After the page is read, and again at every later iteration on the page,
 * BitmapPrefetch advances the prefetch iterator while prefetch_pages <
 * prefetch_target, advising each block it passes. When the prefetch iterator
 * runs out it is freed and prefetching stops for the rest of the scan.
 *
 * Worked example (reference 3.2), max 16, one tuple per page: page 0 ramps to
 * 0 then the tuple iteration to 1 and page 1 is advised; page 1: 2 then 3,
 * advise 2-4; page 2: 6, 7, advise 5-9; page 3: 14, 15, advise 10-18; page 4:
 * 16, advise 19-20; then one new page per page, 16 ahead.
 *
 * Parallel (PG10-17, reference 3.3): the first participant builds the bitmap
 * and two *shared* iterators; prefetch_pages and prefetch_target live in
 * shared memory under a spinlock (initialised to 0 and -1). Ramp and
 * per-tuple increments update the shared target; the prefetch loop reserves
 * one slot at a time (prefetch_pages++ under the lock, *before* advancing the
 * shared prefetch iterator); the catch-up step does not check that both
 * iterators agree, since another participant may be on the prefetched page.
 * In this single-threaded model the spinlock is implicit: each call is
 * atomic, and the caller interleaves participants in time order.
 *
 * Not modelled: skip-fetch (PG11-17, removed in 18 and disabled in the 2025
 * minor releases, reference 3.4; it needs a query with no heap columns) and
 * blocks beyond the relation's end (bitmaps here never contain them).
 */
import {
  type AdviceCall,
  type BitmapHeapPage,
  type BitmapHeapScanStep,
  type BitmapPrefetchStats,
  type BitmapScanPolicy,
  emptyPrefetchStats,
  type PrefetchEnv,
  runWholePage,
} from "./bitmap-scan-policy.js";
import { INVALID_BLOCK_NUMBER } from "./constants.js";
import { type HeapBitmap, type HeapBitmapIterator, REBASE } from "./heap-bitmap.js";
import { type EicFormula, prefetchMaximum } from "./io-concurrency.js";

/** The key of a serial scan's renumbering hook, reached only through `@scanlab/bitmap-prefetch/sim`. */
export const RENUMBER: unique symbol = Symbol("@scanlab/bitmap-prefetch renumber");

/** Options of the PG13-17 prefetcher. */
export interface Pg13PrefetchOptions {
  /** effective_io_concurrency of the table's tablespace, 0..1000. */
  readonly effectiveIoConcurrency: number;
  /** `"pg13"` (default: the value is the distance) or `"pg84"` (8.4-12 spindle formula). */
  readonly eicFormula?: EicFormula;
  /**
   * Whether the tuple-fetch iteration that finds the page exhausted prefetches
   * (default true, PostgreSQL 12+). Up to 11, BitmapHeapNext tests
   * `rs_cindex >= rs_ntuples` and moves on to the next page before it calls
   * BitmapPrefetch, so that iteration raises prefetch_target without
   * prefetching; 12's table AM rewrite of nodeBitmapHeapscan.c ("tableam: bitmap table scan") moved BitmapPrefetch
   * before table_scan_bitmap_next_tuple. Observed on a real PostgreSQL 11.22.
   */
  readonly prefetchOnExhaustedIteration?: boolean;
}

/** Counters of the PG13-17 prefetcher. */
export interface Pg13PrefetchStats extends BitmapPrefetchStats {
  /** Highest prefetch_target reached. */
  maxPrefetchTarget: number;
}

/** The ramp rule BitmapAdjustPrefetchTarget applied once to `target` (reference 3.2). */
export function adjustPrefetchTarget(target: number, maximum: number): number {
  if (target >= maximum) return target;
  if (target >= Math.trunc(maximum / 2)) return maximum;
  if (target > 0) return target * 2;
  return target + 1;
}

/**
 * Shared state of a (possibly parallel) scan: ParallelBitmapHeapState plus the
 * shared iterators. For a serial scan the same fields are the node's own.
 * @internal
 */
export class Pg13PrefetchShared {
  /** prefetch_pages: how far the prefetch iterator is ahead of the main one. */
  prefetchPages = 0;
  /** prefetch_target: starts at -1 (reference 3.2, 3.3). */
  prefetchTarget = -1;
  /** The main (possibly shared) bitmap iterator. */
  readonly main: HeapBitmapIterator;
  /** The prefetch iterator, null when prefetch_maximum is 0. */
  readonly prefetch: HeapBitmapIterator | null;
  /** @param bitmap the scan's bitmap; @param maximum prefetch_maximum; @param prefetchOnExhaustedIteration see {@link Pg13PrefetchOptions}. */
  constructor(
    /** The scan's bitmap. */
    public bitmap: HeapBitmap,
    /** prefetch_maximum. */
    readonly maximum: number,
    /** Whether the iteration that finds a page exhausted prefetches (12+). */
    readonly prefetchOnExhaustedIteration = true,
  ) {
    this.main = bitmap.iterate();
    // The prefetch iterator exists only when prefetch_maximum > 0 (reference 3.2 "State").
    this.prefetch = maximum > 0 ? bitmap.iterate() : null;
  }
}

/** Common part of the serial and parallel PG13-17 prefetchers. @internal */
export abstract class Pg13ScanBase implements BitmapScanPolicy {
  /** @internal the node's or the parallel scan's shared prefetch state. */
  protected readonly shared: Pg13PrefetchShared;
  /** @internal this participant's handle on the prefetch iterator (null once it saw the end). */
  protected prefetchIterator: HeapBitmapIterator | null;
  /** @internal counters behind {@link Pg13ScanBase.stats}. */
  protected readonly counters: Pg13PrefetchStats = { ...emptyPrefetchStats(), maxPrefetchTarget: -1 };
  private current: BitmapHeapPage | null = null;
  private iterationsDone = 0;

  protected constructor(shared: Pg13PrefetchShared) {
    this.shared = shared;
    this.prefetchIterator = shared.prefetch;
  }

  /** prefetch_maximum derived from effective_io_concurrency. */
  get prefetchMaximum(): number {
    return this.shared.maximum;
  }

  /** Current prefetch_target (-1 before the first page). */
  get prefetchTarget(): number {
    return this.shared.prefetchTarget;
  }

  /** Current prefetch_pages: how far the prefetch iterator is ahead. */
  get prefetchPages(): number {
    return this.shared.prefetchPages;
  }

  /** Counters so far. */
  get stats(): Readonly<Pg13PrefetchStats> {
    return this.counters;
  }

  /** Takes the next page from the main iterator and catches the prefetch iterator up (steps 1, 1a). */
  beginPage(): BitmapHeapPage | null {
    if (this.current !== null && this.iterationsDone <= this.current.tuples) {
      throw new Error("beginPage called before the current page's tuple iterations were done");
    }
    const it = this.shared.main;
    const block = it.next();
    if (block === INVALID_BLOCK_NUMBER) {
      this.current = null;
      return null;
    }
    const page: BitmapHeapPage = { page: block, lossy: it.lossy, tuples: it.tuples };
    this.adjustPrefetchIterator(block);
    this.current = page;
    this.iterationsDone = 0;
    this.counters.pages++;
    if (page.lossy) this.counters.lossyPages++;
    else this.counters.exactPages++;
    return page;
  }

  /** The page was read: ramp the target (1d) and prefetch (3). */
  pageRead(env: PrefetchEnv): AdviceCall[] {
    if (this.current === null || this.iterationsDone !== 0) throw new Error("pageRead without a fresh page");
    this.iterationsDone = 1;
    this.adjustPrefetchTarget();
    const out: AdviceCall[] = [];
    this.prefetch(env, 0, out);
    return out;
  }

  /** A further tuple-fetch iteration on the current page: target + 1 (step 2), then prefetch (3). */
  nextTuple(env: PrefetchEnv): AdviceCall[] {
    const page = this.current;
    if (page === null || this.iterationsDone === 0) throw new Error("nextTuple without a page that was read");
    if (this.iterationsDone > page.tuples)
      throw new Error("nextTuple called more than `tuples` times on a page");
    const out: AdviceCall[] = [];
    this.tupleIteration(env, out);
    return out;
  }

  /** All iterations of one page; see {@link BitmapScanPolicy.nextPage}. */
  nextPage(env: PrefetchEnv): BitmapHeapScanStep | null {
    return runWholePage(this, env);
  }

  /**
   * The page's remaining tuple iterations at once; see {@link BitmapScanPolicy.restOfPage}.
   * Once prefetch_target is at its maximum and the prefetch iterator is that
   * far ahead (or gone), an iteration changes nothing, so the rest is skipped.
   */
  restOfPage(env: PrefetchEnv): AdviceCall[] {
    const page = this.current;
    if (page === null || this.iterationsDone === 0)
      throw new Error("restOfPage without a page that was read");
    const s = this.shared;
    const out: AdviceCall[] = [];
    while (this.iterationsDone <= page.tuples) {
      if (
        s.prefetchTarget >= s.maximum &&
        (this.prefetchIterator === null || s.prefetchPages >= s.prefetchTarget)
      ) {
        this.iterationsDone = page.tuples + 1;
        break;
      }
      this.tupleIteration(env, out);
    }
    return out;
  }

  /** One further tuple-fetch iteration: target + 1 up to the maximum (step 2), then prefetch (3). */
  private tupleIteration(env: PrefetchEnv, out: AdviceCall[]): void {
    const afterTuples = this.iterationsDone++;
    const s = this.shared;
    if (s.prefetchTarget < s.maximum) s.prefetchTarget++;
    this.noteTarget();
    // Up to 11 the iteration that finds the page exhausted leaves before BitmapPrefetch.
    if (afterTuples === this.current!.tuples && !s.prefetchOnExhaustedIteration) return;
    this.prefetch(env, afterTuples, out);
  }

  private adjustPrefetchTarget(): void {
    const s = this.shared;
    s.prefetchTarget = adjustPrefetchTarget(s.prefetchTarget, s.maximum);
    this.noteTarget();
  }

  /** Records the (possibly shared) prefetch_target in this participant's maxPrefetchTarget. */
  private noteTarget(): void {
    const target = this.shared.prefetchTarget;
    if (target > this.counters.maxPrefetchTarget) this.counters.maxPrefetchTarget = target;
  }

  /** PrefetchBuffer: advise one block unless it is in shared buffers. */
  protected prefetchBuffer(env: PrefetchEnv, block: number, afterTuples: number, out: AdviceCall[]): void {
    if (env.isBuffered(block)) {
      this.counters.adviceSkippedBuffered++;
      return;
    }
    out.push({ firstBlock: block, blocks: 1, afterTuples });
    this.counters.adviceCalls++;
    this.counters.adviceBlocks++;
  }

  /** BitmapAdjustPrefetchIterator (step 1a). @internal */
  protected abstract adjustPrefetchIterator(mainBlock: number): void;
  /** BitmapPrefetch (step 3): appends the advice calls to `out`. @internal */
  protected abstract prefetch(env: PrefetchEnv, afterTuples: number, out: AdviceCall[]): void;
}

/**
 * The PG13-17 bitmap heap scan prefetcher for a serial (non-parallel) scan.
 *
 * @example
 * ```ts
 * const bitmap = HeapBitmap.fromPages(1000, [...Array(30).keys()]);
 * const scan = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: 16 });
 * const env = { isBuffered: () => false };
 * for (let step = scan.nextPage(env); step; step = scan.nextPage(env)) {
 *   console.log(step.page, step.advice.map((a) => a.firstBlock));
 * }
 * // 0 [1], 1 [2, 3, 4], 2 [5, 6, 7, 8, 9], 3 [10 .. 18], 4 [19, 20], 5 [21], ...
 * ```
 */
export class BitmapHeapScanPrefetcher extends Pg13ScanBase {
  /** @param bitmap pages to scan; @param options effective_io_concurrency and formula. */
  constructor(bitmap: HeapBitmap, options: Pg13PrefetchOptions) {
    super(
      new Pg13PrefetchShared(
        bitmap,
        prefetchMaximum(options.effectiveIoConcurrency, options.eicFormula),
        options.prefetchOnExhaustedIteration ?? true,
      ),
    );
  }

  /** Serial catch-up: the prefetch iterator must return the main iterator's block. @internal */
  protected adjustPrefetchIterator(mainBlock: number): void {
    const s = this.shared;
    if (s.prefetchPages > 0) {
      // The main iterator has closed the distance by one page.
      s.prefetchPages--;
    } else if (this.prefetchIterator !== null) {
      // Do not let the prefetch iterator get behind the main one.
      const b = this.prefetchIterator.next();
      if (b !== mainBlock) throw new Error("prefetch and main iterators are out of sync");
    }
  }

  /**
   * The lowest block neither iterator has passed: the prefetch iterator's next
   * page (it runs ahead of the main one), or the main iterator's when the scan
   * does not prefetch; {@link INVALID_BLOCK_NUMBER} once the iterator that
   * leads has seen every page. Blocks from here on are untouched by the scan.
   */
  get frontierBlock(): number {
    const s = this.shared;
    return (s.prefetch ?? s.main).peek();
  }

  /** The bitmap the scan walks (the one it was last moved onto by a renumbering, if any). */
  get bitmap(): HeapBitmap {
    return this.shared.bitmap;
  }

  /**
   * `renumberPrefetch` (sim.ts): both iterators walk `bitmap` from now on,
   * each from the page its next block becomes under `mapBlock` (old numbering
   * to new). prefetch_pages, prefetch_target and the counters are unchanged.
   */
  [RENUMBER](bitmap: HeapBitmap, mapBlock: (block: number) => number): void {
    const s = this.shared;
    for (const it of [s.main, s.prefetch]) {
      if (it === null) continue;
      const next = it.peek();
      it[REBASE](bitmap, next === INVALID_BLOCK_NUMBER ? INVALID_BLOCK_NUMBER : mapBlock(next));
    }
    s.bitmap = bitmap;
  }

  /** Serial BitmapPrefetch. @internal */
  protected prefetch(env: PrefetchEnv, afterTuples: number, out: AdviceCall[]): void {
    const s = this.shared;
    const it = this.prefetchIterator;
    if (it === null) return;
    while (s.prefetchPages < s.prefetchTarget) {
      const b = it.next();
      if (b === INVALID_BLOCK_NUMBER) {
        // No more pages to prefetch: free the iterator for the rest of the scan.
        this.prefetchIterator = null;
        break;
      }
      s.prefetchPages++;
      this.prefetchBuffer(env, b, afterTuples, out);
    }
  }
}

/**
 * Shared state of a PG10-17 parallel bitmap heap scan: the bitmap, the shared
 * main and prefetch iterators, and prefetch_pages / prefetch_target. Create
 * one per scan and one {@link ParallelBitmapHeapScanParticipant} per process
 * (leader and workers).
 *
 * @example
 * ```ts
 * const scan = new ParallelBitmapHeapScan(bitmap, { effectiveIoConcurrency: 8 });
 * const [a, b] = [scan.participant(), scan.participant()];
 * // interleave a.nextPage(env) and b.nextPage(env) in simulated time order
 * ```
 */
export class ParallelBitmapHeapScan {
  /** @internal the ParallelBitmapHeapState and shared iterators. */
  readonly shared: Pg13PrefetchShared;

  /** @param bitmap pages to scan; @param options effective_io_concurrency and formula. */
  constructor(bitmap: HeapBitmap, options: Pg13PrefetchOptions) {
    this.shared = new Pg13PrefetchShared(
      bitmap,
      prefetchMaximum(options.effectiveIoConcurrency, options.eicFormula),
      options.prefetchOnExhaustedIteration ?? true,
    );
  }

  /** Shared prefetch_target. */
  get prefetchTarget(): number {
    return this.shared.prefetchTarget;
  }

  /** Shared prefetch_pages. */
  get prefetchPages(): number {
    return this.shared.prefetchPages;
  }

  /** A new participant attached to this scan. */
  participant(): ParallelBitmapHeapScanParticipant {
    return new ParallelBitmapHeapScanParticipant(this.shared);
  }
}

/** One process of a {@link ParallelBitmapHeapScan}; obtain it with {@link ParallelBitmapHeapScan.participant}. */
export class ParallelBitmapHeapScanParticipant extends Pg13ScanBase {
  /** @internal use {@link ParallelBitmapHeapScan.participant}. */
  constructor(shared: Pg13PrefetchShared) {
    super(shared);
  }

  /** Parallel catch-up, under the (implicit) spinlock, without the block check. @internal */
  protected adjustPrefetchIterator(_mainBlock: number): void {
    const s = this.shared;
    if (s.maximum <= 0) return;
    if (s.prefetchPages > 0) {
      s.prefetchPages--;
    } else if (this.prefetchIterator !== null) {
      // No block check: another participant may be processing the prefetched block.
      this.prefetchIterator.next();
    }
  }

  /** Parallel BitmapPrefetch: reserves one slot at a time. @internal */
  protected prefetch(env: PrefetchEnv, afterTuples: number, out: AdviceCall[]): void {
    const s = this.shared;
    const it = this.prefetchIterator;
    if (it === null) return;
    for (;;) {
      // Reserve one slot under the (implicit) spinlock, then iterate outside it.
      if (!(s.prefetchPages < s.prefetchTarget)) return;
      s.prefetchPages++;
      const b = it.next();
      if (b === INVALID_BLOCK_NUMBER) {
        this.prefetchIterator = null;
        break;
      }
      this.prefetchBuffer(env, b, afterTuples, out);
    }
  }
}
