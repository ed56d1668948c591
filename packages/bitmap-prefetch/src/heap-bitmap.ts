/**
 * The bitmap a bitmap index scan hands to a bitmap heap scan.
 *
 * PostgreSQL's TIDBitmap (src/backend/nodes/tidbitmap.c) holds, per heap page,
 * either the exact set of matching tuple offsets ("exact" page) or just the
 * fact that some tuple on the page may match ("lossy" page, recheck every
 * tuple). tbm_iterate merges the two kinds and always yields pages in
 * ascending block order (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#prefetch-state, "Bitmap iteration always
 * yields pages in ascending block order (exact and lossy entries merged)").
 *
 * What a prefetch model needs from that is small: which pages, in order,
 * whether each is lossy, and how many tuples the executor will iterate on it
 * (the PG13-17 prefetch target grows by one per tuple-fetch iteration,
 * reference 3.2 step 2). So a {@link HeapBitmap} stores sorted, non-overlapping
 * runs of consecutive pages that share the same flags, three 32-bit words per
 * run in one Uint32Array: start block, length in pages, and
 * `tuples << 1 | lossy`. A Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) table of a million pages at 50 %
 * selectivity in `random` layout is ~250 000 runs (3 MB); the pgbench
 * query of Vondra's 2022 benchmark is a single run. Iteration is a cursor over that array
 * with no allocation per page.
 *
 * `tuples` is the number of tuples the heap scan iterates on the page: for an
 * exact page the number of TIDs in the bitmap, for a lossy page every tuple on
 * the page (heapam collects all visible tuples of a lossy page and rechecks
 * them). It may be 0 (a page whose TIDs are all dead).
 */
import { INVALID_BLOCK_NUMBER, MAX_BLOCK_NUMBER } from "./constants.js";
import { BitmapPrefetchError } from "./errors.js";

/** The key of an iterator's rebase hook, reached only through `@scanlab/bitmap-prefetch/sim`. */
export const REBASE: unique symbol = Symbol("@scanlab/bitmap-prefetch rebase");

/** Flags and tuple count shared by all pages of a run. */
export interface HeapPageInfo {
  /** True when the bitmap only says "some tuple here may match" (recheck every tuple). */
  readonly lossy: boolean;
  /** Tuple-fetch iterations that return a tuple on the page (matching TIDs, or all tuples when lossy). */
  readonly tuples: number;
}

/** One run of consecutive bitmap pages with identical flags. */
export interface HeapBitmapRun extends HeapPageInfo {
  /** First block of the run. */
  readonly startBlock: number;
  /** Number of consecutive pages in the run (>= 1). */
  readonly pages: number;
}

const WORDS_PER_RUN = 3;
const MAX_TUPLES = 0x7fffffff;

function packMeta(lossy: boolean, tuples: number): number {
  return ((tuples << 1) | (lossy ? 1 : 0)) >>> 0;
}

/**
 * Builds a {@link HeapBitmap} from runs or pages added in ascending order.
 *
 * Adjacent additions with the same flags are merged into one run, so adding
 * pages one at a time costs no more memory than adding runs.
 *
 * @example
 * ```ts
 * const b = new HeapBitmapBuilder(1000);
 * b.addRun(10, 5);             // pages 10..14, exact, 1 tuple each
 * b.addPage(20, { lossy: true, tuples: 27 });
 * const bitmap = b.build();    // 6 pages in 2 runs
 * ```
 */
export class HeapBitmapBuilder {
  /** Size of the table in blocks; every page must be below it. */
  readonly tableBlocks: number;
  private words: Uint32Array;
  private runs = 0;
  private pages = 0;
  private nextFree = 0;

  /** @param tableBlocks relation size in blocks (1..2^32-1). */
  constructor(tableBlocks: number) {
    if (!Number.isInteger(tableBlocks) || tableBlocks < 1 || tableBlocks > MAX_BLOCK_NUMBER + 1) {
      throw new BitmapPrefetchError(
        "BITMAP_PREFETCH_BAD_BITMAP",
        `tableBlocks must be an integer from 1 to ${MAX_BLOCK_NUMBER + 1}, got ${String(tableBlocks)}.`,
      );
    }
    this.tableBlocks = tableBlocks;
    this.words = new Uint32Array(WORDS_PER_RUN * 16);
  }

  /** Adds one page (ascending, not yet added). */
  addPage(block: number, info: Partial<HeapPageInfo> = {}): this {
    return this.addRun(block, 1, info);
  }

  /**
   * Adds `pages` consecutive pages starting at `startBlock`. Runs must be added in
   * ascending order without overlap; a run adjacent to the previous one with the
   * same flags extends it.
   */
  addRun(startBlock: number, pages: number, info: Partial<HeapPageInfo> = {}): this {
    const lossy = info.lossy ?? false;
    const tuples = info.tuples ?? 1;
    if (!Number.isInteger(pages) || pages < 1) {
      throw new BitmapPrefetchError(
        "BITMAP_PREFETCH_BAD_BITMAP",
        `A bitmap run needs at least one page, got ${String(pages)}.`,
      );
    }
    if (!Number.isInteger(tuples) || tuples < 0 || tuples > MAX_TUPLES) {
      throw new BitmapPrefetchError(
        "BITMAP_PREFETCH_BAD_BITMAP",
        `tuples per page must be an integer from 0 to ${MAX_TUPLES}, got ${String(tuples)}.`,
      );
    }
    if (!Number.isInteger(startBlock) || startBlock < this.nextFree) {
      throw new BitmapPrefetchError(
        "BITMAP_PREFETCH_BAD_BITMAP",
        `Bitmap pages must be added in ascending order without repeats, but block ${String(startBlock)} came after block ${this.nextFree - 1}.`,
      );
    }
    if (startBlock + pages > this.tableBlocks) {
      throw new BitmapPrefetchError(
        "BITMAP_PREFETCH_BAD_BITMAP",
        `Bitmap run ${startBlock}..${startBlock + pages - 1} goes past the end of the ${this.tableBlocks}-block table.`,
      );
    }
    const meta = packMeta(lossy, tuples);
    const last = (this.runs - 1) * WORDS_PER_RUN;
    const words = this.words;
    if (
      this.runs > 0 &&
      words[last + 2] === meta &&
      (words[last] as number) + (words[last + 1] as number) === startBlock
    ) {
      words[last + 1] = (words[last + 1] as number) + pages;
    } else {
      if ((this.runs + 1) * WORDS_PER_RUN > words.length) {
        const bigger = new Uint32Array(words.length * 2);
        bigger.set(words);
        this.words = bigger;
      }
      const at = this.runs * WORDS_PER_RUN;
      this.words[at] = startBlock;
      this.words[at + 1] = pages;
      this.words[at + 2] = meta;
      this.runs++;
    }
    this.pages += pages;
    this.nextFree = startBlock + pages;
    return this;
  }

  /** Freezes the runs added so far into a {@link HeapBitmap}. The builder may not be used afterwards. */
  build(): HeapBitmap {
    const words = this.words.slice(0, this.runs * WORDS_PER_RUN);
    this.words = new Uint32Array(0);
    return new HeapBitmap(this.tableBlocks, words, this.pages);
  }
}

/**
 * An immutable bitmap of heap pages: sorted runs with exact/lossy flags and
 * tuples per page, iterated in ascending block order.
 *
 * @example
 * ```ts
 * const bitmap = HeapBitmap.fromPages(100, [3, 4, 5, 40, 41]);
 * const it = bitmap.iterate();
 * for (let b = it.next(); b !== INVALID_BLOCK_NUMBER; b = it.next()) console.log(b, it.tuples);
 * ```
 */
export class HeapBitmap {
  /** Relation size in blocks (the denominator of {@link HeapBitmap.fraction}). */
  readonly tableBlocks: number;
  /** Number of pages in the bitmap. */
  readonly pageCount: number;
  /** @internal `[start, pages, tuples << 1 | lossy]` per run. */
  readonly runWords: Uint32Array;

  /** @internal use {@link HeapBitmapBuilder} or {@link HeapBitmap.fromPages}. */
  constructor(tableBlocks: number, runWords: Uint32Array, pageCount: number) {
    this.tableBlocks = tableBlocks;
    this.runWords = runWords;
    this.pageCount = pageCount;
  }

  /**
   * Builds a bitmap from ascending, distinct page numbers that all share `info`.
   * Throws a {@link BitmapPrefetchError} when the pages are not strictly ascending.
   */
  static fromPages(
    tableBlocks: number,
    pages: ArrayLike<number>,
    info: Partial<HeapPageInfo> = {},
  ): HeapBitmap {
    const b = new HeapBitmapBuilder(tableBlocks);
    let i = 0;
    while (i < pages.length) {
      const start = pages[i] as number;
      let n = 1;
      while (i + n < pages.length && pages[i + n] === start + n) n++;
      b.addRun(start, n, info);
      i += n;
    }
    return b.build();
  }

  /** Builds a bitmap from runs given in ascending order. */
  static fromRuns(tableBlocks: number, runs: Iterable<HeapBitmapRun>): HeapBitmap {
    const b = new HeapBitmapBuilder(tableBlocks);
    for (const r of runs) b.addRun(r.startBlock, r.pages, r);
    return b.build();
  }

  /** Number of stored runs (consecutive pages with different flags are separate runs). */
  get runCount(): number {
    return this.runWords.length / WORDS_PER_RUN;
  }

  /** Fraction of the table's blocks that are in the bitmap (0..1). */
  get fraction(): number {
    return this.pageCount / this.tableBlocks;
  }

  /** The i-th stored run (0-based). */
  run(i: number): HeapBitmapRun {
    const at = i * WORDS_PER_RUN;
    if (!Number.isInteger(i) || i < 0 || at >= this.runWords.length) throw new RangeError(`no run ${i}`);
    const meta = this.runWords[at + 2] as number;
    return {
      startBlock: this.runWords[at] as number,
      pages: this.runWords[at + 1] as number,
      lossy: (meta & 1) === 1,
      tuples: meta >>> 1,
    };
  }

  /** All stored runs in ascending order. */
  *runs(): IterableIterator<HeapBitmapRun> {
    for (let i = 0; i < this.runCount; i++) yield this.run(i);
  }

  /** Index of the stored run containing `block`, or -1 (binary search). */
  findRun(block: number): number {
    const w = this.runWords;
    let lo = 0;
    let hi = this.runCount - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = w[mid * WORDS_PER_RUN] as number;
      if (block < start) hi = mid - 1;
      else if (block >= start + (w[mid * WORDS_PER_RUN + 1] as number)) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** True when `block` is in the bitmap. */
  has(block: number): boolean {
    return this.findRun(block) >= 0;
  }

  /** Flags of `block`, or null when it is not in the bitmap. */
  pageInfo(block: number): HeapPageInfo | null {
    const r = this.findRun(block);
    if (r < 0) return null;
    const meta = this.runWords[r * WORDS_PER_RUN + 2] as number;
    return { lossy: (meta & 1) === 1, tuples: meta >>> 1 };
  }

  /** A new private iterator positioned before the first page (tbm_begin_iterate). */
  iterate(): HeapBitmapIterator {
    return new HeapBitmapIterator(this);
  }

  /** All pages as a Uint32Array (for tests and small bitmaps; allocates pageCount words). */
  toPages(): Uint32Array {
    const out = new Uint32Array(this.pageCount);
    const w = this.runWords;
    let k = 0;
    for (let at = 0; at < w.length; at += WORDS_PER_RUN) {
      const start = w[at] as number;
      const n = w[at + 1] as number;
      for (let j = 0; j < n; j++) out[k++] = start + j;
    }
    return out;
  }
}

/**
 * A cursor over a {@link HeapBitmap} in ascending order (tbm_iterate).
 *
 * `next()` returns the next block or {@link INVALID_BLOCK_NUMBER} at the end;
 * `lossy` and `tuples` then describe that block. One iterator object can be
 * shared by several scan participants to model PostgreSQL's shared iterator
 * (tbm_shared_iterate, reference 3.3): whoever calls `next()` takes the page.
 */
export class HeapBitmapIterator {
  /** Flags of the block last returned by {@link HeapBitmapIterator.next}. */
  lossy = false;
  /** Tuples of the block last returned by {@link HeapBitmapIterator.next}. */
  tuples = 0;
  private w: Uint32Array;
  private at = 0;
  private offset = 0;
  private returned = 0;
  private walked: HeapBitmap;

  /** @param bitmap the bitmap to walk. */
  constructor(bitmap: HeapBitmap) {
    this.walked = bitmap;
    this.w = bitmap.runWords;
  }

  /** The bitmap walked (the one it was last moved onto by a renumbering, if any). */
  get bitmap(): HeapBitmap {
    return this.walked;
  }

  /**
   * Walks `bitmap` from now on (the same pages renumbered), positioned at its
   * first page at or after `nextBlock` ({@link INVALID_BLOCK_NUMBER}: at its
   * end). The count of pages returned and the last page's flags stay.
   * Reached through `renumberPrefetch` (sim.ts).
   */
  [REBASE](bitmap: HeapBitmap, nextBlock: number): void {
    const w = bitmap.runWords;
    this.walked = bitmap;
    this.w = w;
    // The first run that ends after nextBlock (binary search over the runs).
    let lo = 0;
    let hi = w.length / WORDS_PER_RUN;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const stop = (w[mid * WORDS_PER_RUN] as number) + (w[mid * WORDS_PER_RUN + 1] as number);
      if (stop <= nextBlock) lo = mid + 1;
      else hi = mid;
    }
    this.at = lo * WORDS_PER_RUN;
    this.offset =
      lo * WORDS_PER_RUN < w.length ? Math.max(0, nextBlock - (w[lo * WORDS_PER_RUN] as number)) : 0;
  }

  /** Pages handed out so far. */
  get pagesReturned(): number {
    return this.returned;
  }

  /** True once every page has been handed out. */
  get exhausted(): boolean {
    return this.at >= this.w.length;
  }

  /** Next block in ascending order, or {@link INVALID_BLOCK_NUMBER} when the bitmap is exhausted. */
  next(): number {
    const w = this.w;
    const at = this.at;
    if (at >= w.length) return INVALID_BLOCK_NUMBER;
    const block = (w[at] as number) + this.offset;
    const meta = w[at + 2] as number;
    this.lossy = (meta & 1) === 1;
    this.tuples = meta >>> 1;
    if (++this.offset === (w[at + 1] as number)) {
      this.offset = 0;
      this.at = at + WORDS_PER_RUN;
    }
    this.returned++;
    return block;
  }

  /** Like {@link HeapBitmapIterator.next} but `null` at the end (handy as a read-stream block source). */
  nextOrNull(): number | null {
    const b = this.next();
    return b === INVALID_BLOCK_NUMBER ? null : b;
  }

  /**
   * The next block without consuming it, or {@link INVALID_BLOCK_NUMBER}.
   */
  peek(): number {
    return this.at >= this.w.length ? INVALID_BLOCK_NUMBER : (this.w[this.at] as number) + this.offset;
  }

  /**
   * Pages left in the current run of consecutive blocks with the same flags,
   * counting the block {@link HeapBitmapIterator.peek} would return (0 at the end).
   */
  peekRunRemaining(): number {
    return this.at >= this.w.length ? 0 : (this.w[this.at + 1] as number) - this.offset;
  }

  /**
   * Consumes up to `maxPages` consecutive pages of the current run at once and
   * returns how many were taken (run-level step for fast simulation). The
   * first block taken is the one {@link HeapBitmapIterator.peek} returned.
   */
  skip(maxPages: number): number {
    const w = this.w;
    if (this.at >= w.length || maxPages <= 0) return 0;
    const meta = w[this.at + 2] as number;
    this.lossy = (meta & 1) === 1;
    this.tuples = meta >>> 1;
    const left = (w[this.at + 1] as number) - this.offset;
    const n = Math.min(left, Math.floor(maxPages));
    if (n === left) {
      this.offset = 0;
      this.at += WORDS_PER_RUN;
    } else {
      this.offset += n;
    }
    this.returned += n;
    return n;
  }
}

/**
 * The same bitmap on a table with blocks `[at, at + blocks)` taken out (a
 * copy): pages in that stretch are gone and every later page is numbered
 * `blocks` lower, keeping its flags. The stretch must leave at least one
 * block of the table. For `renumberBitmap` (sim.ts).
 */
export function bitmapWithout(bitmap: HeapBitmap, at: number, blocks: number): HeapBitmap {
  const tableBlocks = bitmap.tableBlocks;
  if (
    !Number.isInteger(at) ||
    !Number.isInteger(blocks) ||
    at < 0 ||
    blocks < 0 ||
    at + blocks > tableBlocks ||
    blocks === tableBlocks
  )
    throw new RangeError(
      `cannot take blocks ${at}..${at + blocks - 1} out of a ${tableBlocks}-block table (a cut leaves at least one block)`,
    );
  return shifted(bitmap, tableBlocks - blocks, at, at + blocks, -blocks);
}

/**
 * The same bitmap on a table with `blocks` blocks put in at `at` (a copy):
 * the new blocks hold no pages of the bitmap, and every page from `at` on is
 * numbered `blocks` higher, keeping its flags. For `renumberBitmap` (sim.ts).
 */
export function bitmapWithGap(bitmap: HeapBitmap, at: number, blocks: number): HeapBitmap {
  const tableBlocks = bitmap.tableBlocks;
  if (!Number.isInteger(at) || !Number.isInteger(blocks) || at < 0 || blocks < 0 || at > tableBlocks)
    throw new RangeError(`cannot put ${blocks} blocks at ${at} into a ${tableBlocks}-block table`);
  return shifted(bitmap, tableBlocks + blocks, at, at, blocks);
}

/** Pages below `at` stay, pages in [at, end) go, pages from `end` on move by `by`. */
function shifted(bitmap: HeapBitmap, tableBlocks: number, at: number, end: number, by: number): HeapBitmap {
  const b = new HeapBitmapBuilder(tableBlocks);
  const w = bitmap.runWords;
  for (let i = 0; i < w.length; i += WORDS_PER_RUN) {
    const start = w[i] as number;
    const stop = start + (w[i + 1] as number);
    const meta = w[i + 2] as number;
    const info = { lossy: (meta & 1) === 1, tuples: meta >>> 1 };
    if (start < at) b.addRun(start, Math.min(stop, at) - start, info);
    if (stop > end) {
      const from = Math.max(start, end);
      b.addRun(from + by, stop - from, info);
    }
  }
  return b.build();
}
