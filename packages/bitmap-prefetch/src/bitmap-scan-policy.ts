/**
 * The contract between a bitmap heap scan prefetch policy and whoever runs it.
 *
 * Up to PostgreSQL 17 a bitmap heap scan reads each heap page with an
 * ordinary synchronous 8 kB read and, around those reads, tells the kernel
 * about pages it will need soon with posix_fadvise(POSIX_FADV_WILLNEED)
 * (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch). A policy here decides only *which* blocks to
 * advise and *when* in the page's processing; the caller (the simulator, or a
 * unit test) owns time, shared buffers, the OS page cache and the device, and
 * executes what the policy returns.
 *
 * One heap page is processed in `tuples + 1` tuple-fetch iterations
 * (reference 3.2 "Main loop"): the first takes the page and reads it, each
 * later one returns the next tuple, and the last finds the page exhausted.
 * Advice can be issued in any of them, so the step API mirrors them:
 *
 * 1. `beginPage()` takes the next page (null at the end of the bitmap). The
 *    caller now reads that page synchronously.
 * 2. `pageRead(env)`, at the time the read has completed, returns the advice
 *    calls issued right after the read ("We issue prefetch requests *after*
 *    fetching the current page", nodeBitmapHeapscan.c).
 * 3. `nextTuple(env)`, called exactly `tuples` times, once before each further
 *    tuple fetch (the last one discovers the page is exhausted), returns the
 *    advice calls of that iteration.
 *
 * `nextPage(env)` runs all three for one page and tags each advice call with
 * `afterTuples`, the number of tuples already returned from the page when it
 * was issued, so a caller that models CPU per tuple can place it in time.
 * Every `env.isBuffered` check then happens at the page's start, which only
 * matters when other participants change shared buffers in between.
 *
 * A policy never reads a clock and never starts I/O itself; advice calls are
 * requests the caller carries out at the time it calls the step.
 */

/** What a bitmap prefetch policy may ask about the world. */
export interface PrefetchEnv {
  /**
   * True when `block` is valid in shared buffers (PrefetchBuffer then does nothing:
   * reference 3.2 "If present, nothing is done").
   */
  isBuffered(block: number): boolean;
}

/** One posix_fadvise(POSIX_FADV_WILLNEED) call over `blocks` 8 kB blocks starting at `firstBlock`. */
export interface AdviceCall {
  /** First block advised. */
  readonly firstBlock: number;
  /** Number of consecutive blocks advised (1 for PostgreSQL's PrefetchBuffer). */
  readonly blocks: number;
  /** Tuples already returned from the current page when the call is made (0 = right after the page read). */
  readonly afterTuples: number;
}

/** A heap page handed out by the bitmap iterator. */
export interface BitmapHeapPage {
  /** Block number of the heap page to read. */
  readonly page: number;
  /** Lossy bitmap page (every tuple is rechecked). */
  readonly lossy: boolean;
  /** Tuples the scan iterates on the page; the page takes tuples + 1 fetch iterations. */
  readonly tuples: number;
}

/** A page plus all advice issued while it was processed (see {@link BitmapScanPolicy.nextPage}). */
export interface BitmapHeapScanStep extends BitmapHeapPage {
  /** Advice calls in issue order. */
  readonly advice: readonly AdviceCall[];
}

/** Counters every bitmap prefetch policy keeps. */
export interface BitmapPrefetchStats {
  /** Heap pages handed out. */
  pages: number;
  /** Exact pages handed out. */
  exactPages: number;
  /** Lossy pages handed out. */
  lossyPages: number;
  /** posix_fadvise calls returned. */
  adviceCalls: number;
  /** Blocks covered by those calls. */
  adviceBlocks: number;
  /** Prefetch decisions that found the block already in shared buffers (no call). */
  adviceSkippedBuffered: number;
}

/** Fresh zeroed {@link BitmapPrefetchStats}. @internal */
export function emptyPrefetchStats(): BitmapPrefetchStats {
  return {
    pages: 0,
    exactPages: 0,
    lossyPages: 0,
    adviceCalls: 0,
    adviceBlocks: 0,
    adviceSkippedBuffered: 0,
  };
}

/**
 * A bitmap heap scan prefetch policy (one scan participant), driven one page
 * and one tuple-fetch iteration at a time. See the module description for the
 * calling protocol.
 */
export interface BitmapScanPolicy {
  /** Takes the next page, or null when the bitmap is exhausted. The caller then reads the page. */
  beginPage(): BitmapHeapPage | null;
  /** The page from {@link BitmapScanPolicy.beginPage} has been read: returns the advice to issue now. */
  pageRead(env: PrefetchEnv): AdviceCall[];
  /** Before fetching another tuple from the current page (call `tuples` times per page): advice to issue now. */
  nextTuple(env: PrefetchEnv): AdviceCall[];
  /** All steps of one page at once; null at the end of the bitmap. */
  nextPage(env: PrefetchEnv): BitmapHeapScanStep | null;
  /**
   * All remaining tuple-fetch iterations of the current page at once (the
   * `nextTuple` calls left), returning their advice in order: the same result
   * as calling `nextTuple` that many times, but free once nothing more can
   * happen on the page (a simulator's fast path).
   */
  restOfPage(env: PrefetchEnv): AdviceCall[];
  /** Counters so far. */
  readonly stats: Readonly<BitmapPrefetchStats>;
}

/** Shared implementation of {@link BitmapScanPolicy.restOfPage}: `nextTuple` until the page is done. @internal */
export function restOfPageByTuples(
  policy: BitmapScanPolicy,
  remaining: number,
  env: PrefetchEnv,
): AdviceCall[] {
  const out: AdviceCall[] = [];
  for (let i = 0; i < remaining; i++) for (const a of policy.nextTuple(env)) out.push(a);
  return out;
}

/** Shared implementation of {@link BitmapScanPolicy.nextPage}: beginPage, pageRead, then the page's `tuples` further iterations via restOfPage. @internal */
export function runWholePage(policy: BitmapScanPolicy, env: PrefetchEnv): BitmapHeapScanStep | null {
  const page = policy.beginPage();
  if (page === null) return null;
  const advice: AdviceCall[] = policy.pageRead(env);
  if (page.tuples > 0) for (const a of policy.restOfPage(env)) advice.push(a);
  return { page: page.page, lossy: page.lossy, tuples: page.tuples, advice };
}
