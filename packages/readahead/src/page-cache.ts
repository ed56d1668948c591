/**
 * The OS page cache of one simulated machine, shared by every file and every
 * opener.
 *
 * What the readahead code of every kernel looks at (apps/docs/src/reference/os-readahead-policies.md#the-simulation-frame, apps/docs/src/reference/linux-readahead-window.md#readahead-state, apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-state
 * ) is the state of each cached unit of a file: absent, in flight (an I/O
 * was submitted for it and will complete at `readyAtUs`) or valid, plus a
 * marker flag that says "when a reader gets here, read more" (Linux
 * `PG_readahead`, set on one folio per window; FreeBSD `B_RAM`, set on
 * buffers). Readahead code treats in-flight units as present; a reader that
 * needs one waits for it.
 *
 * The simulator runs tables of 100 M blocks on machines with tens of GB of
 * RAM, so this cache never keeps one slot per page: it keeps **extents**, runs
 * of pages `[start, end)` that share a readiness, an LRU epoch and a marker
 * unit, in one ordered list per file ({@link ExtentList}). A sequential
 * reader costs a few extents whatever the file size; a random reader one per
 * read. Neighbouring extents with identical state are merged.
 *
 * **Markers.** A marker covers a *unit*: the whole large folio on Linux ≥6.10
 * with large folios (a read of any page of it fires, and the kernel reports
 * the folio's first page), one page otherwise, one file-system block on
 * FreeBSD. An extent stores the first page of its marker unit (`mark`), so a
 * unit may span several extents and is cleared as one.
 *
 * **LRU.** Linux and FreeBSD both reclaim least recently used clean pages,
 * never pages under I/O. This model keeps an approximate LRU with a *touch
 * clock*: every touched or inserted page advances the clock by one, and the
 * page's epoch is `floor(clock / lruEpochPages)` (default: 1/64 of the
 * capacity, so the approximation errs by at most 1/64 of the cache). When an
 * insertion would exceed `capacityPages`, valid pages are evicted from the
 * oldest epoch first and, within one epoch, in (file, page) order. Because a
 * page's epoch depends only on how many pages were touched before it, one
 * touch of `n` pages is exactly equivalent to `n` touches of one page, which
 * is what lets the simulator's fast path ({@link ReadaheadModel.skipQuiet})
 * replace thousands of reads by one call without changing the outcome.
 *
 * Times passed to the mutating calls must never decrease (the simulator's
 * clock only moves forward); the cache folds in-flight extents whose I/O has
 * completed into "valid" extents lazily.
 */
import { checkNumber, ReadaheadError } from "./errors.js";
import { Extent, ExtentList } from "./extent-list.js";

/** The key of the page cache's rename hook, reached only through `@scanlab/readahead/sim`. */
export const RENAME_FILES: unique symbol = Symbol("@scanlab/readahead rename files");

export type { Extent } from "./extent-list.js";

/** State of one cached page at a given time. */
export type PageState = "absent" | "in-flight" | "valid";

/** What {@link PageCache.page} reports about one page. */
export interface PageInfo {
  /** Absent, in flight or valid at the time asked. */
  state: PageState;
  /** When the page becomes valid (µs): the asked time if already valid, NaN if absent. */
  readyAtUs: number;
  /** First page of the marker unit covering the page, or -1 if it carries no marker. */
  markerUnit: number;
}

/** A maximal run of cached pages with one state, as listed by {@link PageCache.extents}. */
export interface CachedRun {
  /** First page. */
  start: number;
  /** One past the last page. */
  end: number;
  /** Completion time of the I/O that brings the pages in; `-Infinity` once folded as valid. */
  readyAtUs: number;
  /** First page of the marker unit, or -1. */
  markerUnit: number;
  /** LRU epoch of the last touch. */
  epoch: number;
}

/** Result of a run query: `pages` pages from the asked page that share one readiness, ready at `readyAtUs`. */
export interface RunInfo {
  /** Length of the run (0 if the first page is absent or marked). */
  pages: number;
  /** When every page of the run is valid (the asked time if they already are). */
  readyAtUs: number;
}

/** Construction options of {@link PageCache}. */
export interface PageCacheOptions {
  /**
   * Most pages the cache may hold (4 KiB pages on Linux): the machine's RAM
   * minus shared_buffers and what else it runs. Default: unlimited.
   */
  capacityPages?: number;
  /**
   * LRU granularity: pages touched per epoch. Default `ceil(capacityPages / 64)`
   * (unlimited capacity: one epoch, no eviction).
   */
  lruEpochPages?: number;
}

/** A folio as {@link PageCache.folioAt} reports it. */
export interface FolioInfo {
  /** First page of the folio. */
  start: number;
  /** log2 of its pages. */
  order: number;
}

/** Counters of a {@link PageCache}. */
export interface PageCacheStats {
  /** Pages present now (valid or in flight). */
  residentPages: number;
  /** Highest `residentPages` seen (above `capacityPages` only if everything else was in flight). */
  peakResidentPages: number;
  /** Pages ever inserted (each device read brings its pages in once). */
  insertedPages: number;
  /** Pages evicted by LRU to make room. */
  evictedPages: number;
  /** Number of insertions that had to evict. */
  evictions: number;
  /** Pages removed by {@link PageCache.drop} (POSIX_FADV_DONTNEED). */
  droppedPages: number;
  /** Extents held (memory cost of the model). */
  extents: number;
}

const VALID = Number.NEGATIVE_INFINITY;

/**
 * One page cache for the whole machine, all files.
 *
 * @example
 * ```ts
 * import { PageCache } from "@scanlab/readahead";
 * const cache = new PageCache({ capacityPages: 1 << 20 }); // 4 GiB of 4 KiB pages
 * cache.insert(7, 0, 32, 150, 0);        // file 7, pages [0, 32) in flight until t = 150 µs
 * cache.setMarker(7, 16, 17, 0);         // PG_readahead on page 16
 * cache.page(7, 3, 100).state;           // "in-flight"
 * cache.run(7, 0, 64, 100);              // { pages: 16, readyAtUs: 150 }: stops at the marker
 * cache.nextMissing(7, 0, 64);           // 32
 * ```
 */
export class PageCache {
  /** Capacity in pages (Infinity when unlimited). */
  readonly capacityPages: number;
  /** Pages per LRU epoch. */
  readonly lruEpochPages: number;

  private readonly files = new Map<number, ExtentList>();
  private readonly buckets = new Map<number, Set<Extent>>();
  /**
   * Per epoch, the stamp of the last extent added to its bucket, from {@link PageCache.bucketAdds}.
   * The eviction scan's sorted copy of a bucket is valid while the stamp is unchanged. Stamps come
   * from one counter for the whole cache, so they never repeat: a bucket emptied (its stamp
   * forgotten) and filled again gets a stamp no sorted copy was taken under. A per-epoch count
   * restarting at 1 would match a copy of the bucket's earlier life and hide the new extents from
   * eviction.
   */
  private readonly bucketVersion = new Map<number, number>();
  private bucketAdds = 0;
  private sortedCache: { epoch: number; version: number; arr: Extent[]; pos: number } | null = null;
  private minEpoch = 0;
  private clock = 0;
  private resident = 0;
  private peak = 0;
  private inserted = 0;
  private evicted = 0;
  private evictionRuns = 0;
  private dropped = 0;
  private extentCount = 0;

  constructor(options: PageCacheOptions = {}) {
    this.capacityPages = checkNumber("PageCache capacityPages", options.capacityPages ?? Infinity, {
      min: 1,
      integer: true,
      allowInfinity: true,
    });
    // 64 epochs per capacity: a model choice (the LRU errs by at most 1/64 of the cache, see the
    // header), not a kernel constant.
    const defaultEpoch = Number.isFinite(this.capacityPages)
      ? Math.max(1, Math.ceil(this.capacityPages / 64))
      : Number.POSITIVE_INFINITY;
    this.lruEpochPages = checkNumber("PageCache lruEpochPages", options.lruEpochPages ?? defaultEpoch, {
      min: 1,
      integer: true,
      allowInfinity: true,
    });
  }

  // ---------------------------------------------------------------- renaming

  /**
   * Files that hold at least one cached page, in increasing order.
   */
  cachedFiles(): number[] {
    const out: number[] = [];
    for (const [file, list] of this.files) if (list.first() !== null) out.push(file);
    return out.sort((a, b) => a - b);
  }

  /**
   * Renames files: what was cached for file `f` is now cached for `map(f)`,
   * page for page, with its readiness, marker and LRU age. For a simulator
   * that renumbers a table's segment files when it cuts a stretch out of the
   * table ahead of its scans, or puts one back behind them (the pages do not
   * move; their names do).
   *
   * `map` is asked only about files that hold pages (the others are
   * forgotten), and must give them distinct ids. The cache then behaves
   * exactly as it would have had the files carried the new names from the
   * start (within an LRU epoch, eviction goes in (file, page) order by the
   * new names).
   *
   * Reached only through `@scanlab/readahead/sim` (`renumberSegmentFiles`).
   *
   * @throws {@link ReadaheadError} `READAHEAD_BAD_PARAMETER` if two files would share a name.
   */
  [RENAME_FILES](map: (file: number) => number): void {
    // Files whose pages have all gone are forgotten, not renamed.
    for (const [file, list] of [...this.files]) if (list.first() === null) this.files.delete(file);
    const olds = [...this.files.keys()].sort((a, b) => a - b);
    const news = olds.map(map);
    const seen = new Set<number>();
    let increasing = true;
    for (let i = 0; i < news.length; i++) {
      const f = news[i]!;
      if (!Number.isInteger(f) || f < 0 || seen.has(f)) {
        throw new ReadaheadError(
          "READAHEAD_BAD_PARAMETER",
          `renaming files needs a map to distinct file ids (file ${olds[i]} -> ${String(f)}).`,
        );
      }
      seen.add(f);
      if (i > 0 && f < news[i - 1]!) increasing = false;
    }
    // Within an LRU epoch eviction goes in (file, page) order: under new names that are not in
    // the old order, the epoch's sorted order is rebuilt at the next eviction.
    if (!increasing) this.sortedCache = null;
    const renamed = new Map<number, ExtentList>();
    olds.forEach((old, i) => {
      const list = this.files.get(old)!;
      const file = news[i]!;
      for (let e = list.first(); e !== null; e = e.next[0] ?? null) e.file = file;
      renamed.set(file, list);
    });
    this.files.clear();
    for (const [file, list] of renamed) this.files.set(file, list);
  }

  /**
   * The LRU epoch from which pages would survive the eviction of `pages`
   * pages (what reading that many new pages into a full cache evicts): every
   * page of an older epoch would go, some of this epoch's may. Infinity when
   * everything would go. In-flight pages, which eviction skips, are counted as
   * if they could go. For a simulator that skips a stretch of reading: would
   * these pages still be here had it been read?
   */
  oldestSurvivingEpoch(pages: number): number {
    if (!Number.isFinite(this.capacityPages)) return Number.NEGATIVE_INFINITY;
    const epochs = [...this.buckets.keys()].sort((a, b) => a - b);
    let left = pages;
    for (const ep of epochs) {
      let n = 0;
      for (const e of this.buckets.get(ep)!) n += e.end - e.start;
      if (n > left) return ep;
      left -= n;
    }
    return Number.POSITIVE_INFINITY;
  }

  /** The LRU epoch of the most recently touched page of `file`, or -Infinity if none is cached. */
  newestEpoch(file: number): number {
    let newest = Number.NEGATIVE_INFINITY;
    const list = this.files.get(file);
    if (list === undefined) return newest;
    for (let e = list.first(); e !== null; e = e.next[0] ?? null) if (e.epoch > newest) newest = e.epoch;
    return newest;
  }

  /** The LRU epoch pages touched now get (the touch clock over `lruEpochPages`, see the header). */
  epochNow(): number {
    return this.epochOf(this.clock);
  }

  /**
   * Makes `[start, start + pages)` of `file` valid with the LRU age of
   * `epoch` (an earlier {@link PageCache.epochNow}), as if they had been
   * read then: for a simulator that skipped a stretch of reading and puts it
   * back, younger than everything read before it and older than everything
   * after. Pages already present are left as they are. Nothing is evicted,
   * so the cache may end over its capacity: {@link PageCache.evictOldest} of
   * {@link PageCache.overfullPages} then leaves what a real cache would hold.
   *
   * @returns the pages made valid.
   */
  insertAged(file: number, start: number, pages: number, epoch: number): number {
    if (pages <= 0) return 0;
    const list = this.listOf(file);
    const n = this.absentRuns(list, start, start + pages);
    const runs = this.gaps;
    let add = 0;
    for (let i = 0; i < n; i += 2) {
      const x = new Extent(file, runs[i]!, runs[i + 1]!, VALID, epoch, -1, 0);
      list.insert(x);
      this.extentCount++;
      this.addToBucket(x);
      add += runs[i + 1]! - runs[i]!;
    }
    this.resident += add;
    this.inserted += add;
    if (this.resident > this.peak) this.peak = this.resident;
    return add;
  }

  /** Pages above capacity (after {@link PageCache.insertAged}), 0 when within it. */
  overfullPages(): number {
    return Math.max(0, this.resident - this.capacityPages);
  }

  /**
   * Evicts up to `pages` valid pages, least recently used first, as the
   * insertion of that many new pages into a full cache would.
   *
   * @returns the pages evicted.
   */
  evictOldest(pages: number, nowUs: number): number {
    if (!(pages > 0) || !Number.isFinite(this.capacityPages)) return 0;
    return this.evict(Math.floor(pages), nowUs);
  }

  // ---------------------------------------------------------------- queries

  /** State of one page at `nowUs`. */
  page(file: number, page: number, nowUs: number): PageInfo {
    const e = this.extentAt(file, page);
    if (e === null) return { state: "absent", readyAtUs: Number.NaN, markerUnit: -1 };
    const valid = e.readyAtUs <= nowUs;
    return {
      state: valid ? "valid" : "in-flight",
      readyAtUs: valid ? nowUs : e.readyAtUs,
      markerUnit: e.mark,
    };
  }

  /**
   * The extent holding `page`, or null (no allocation; for the models' hot paths).
   *
   * @internal
   */
  extentAt(file: number, page: number): Extent | null {
    return this.files.get(file)?.find(page) ?? null;
  }

  /** True if the page is cached (valid or in flight). */
  isPresent(file: number, page: number): boolean {
    return this.extentAt(file, page) !== null;
  }

  /**
   * First absent page in `[page, page + limit)`, or `page + limit` if all are
   * present (Linux `page_cache_next_miss`).
   */
  nextMissing(file: number, page: number, limit: number): number {
    const list = this.files.get(file);
    const end = page + limit;
    if (list === undefined) return page;
    let e = list.find(page);
    let p = page;
    while (e !== null && e.start <= p && p < end) {
      p = e.end;
      e = e.next[0]!;
    }
    return Math.min(p, end);
  }

  /** First present page in `[page, end)`, or `end` if none is. */
  nextPresent(file: number, page: number, end: number): number {
    const e = this.files.get(file)?.findFrom(page) ?? null;
    if (e === null || e.start >= end) return end;
    return Math.max(e.start, page);
  }

  /**
   * The folio holding `page`: its first page and order (log2 of its pages),
   * or null if the page is absent. Folios are naturally aligned runs of
   * `2^order` pages inserted together (see {@link PageCache.insert}).
   */
  folioAt(file: number, page: number): FolioInfo | null {
    const e = this.extentAt(file, page);
    if (e === null) return null;
    const size = 2 ** e.order;
    return { start: Math.max(e.start, Math.floor(page / size) * size), order: e.order };
  }

  /** Pages of the marker unit that starts at `unitStart` still cached (0 if none). */
  markerUnitPages(file: number, unitStart: number): number {
    let e = this.files.get(file)?.findFrom(unitStart) ?? null;
    let n = 0;
    while (e !== null && e.mark === unitStart) {
      n += e.end - e.start;
      e = e.next[0]!;
    }
    return n;
  }

  /**
   * Highest absent page in `(page - limit, page]`, `page - limit` if all are
   * present, or -1 if every page from `page` down to 0 is present and the scan
   * went below 0 (Linux `page_cache_prev_miss`, which returns ULONG_MAX then).
   */
  prevMissing(file: number, page: number, limit: number): number {
    const low = page - limit; // the scan covers (low, page]
    const list = this.files.get(file);
    if (list === undefined || limit <= 0) return limit <= 0 ? low : page;
    let p = page;
    let e = list.find(p);
    while (p > low && p >= 0) {
      if (e === null || e.end <= p || e.start > p) return p;
      p = e.start - 1;
      e = e.prev;
    }
    return low >= 0 ? low : -1;
  }

  /**
   * Number of consecutive present pages immediately below `page`, counting at
   * most `max` (the "history" of Linux's CONTEXT readahead, apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9).
   * Equal to `page` exactly when the run reaches page 0.
   */
  residentRunBelow(file: number, page: number, max: number): number {
    if (page <= 0 || max <= 0) return 0;
    const miss = this.prevMissing(file, page - 1, max);
    return page - 1 - miss;
  }

  /**
   * The longest run `[page, page + n)`, `n <= maxPages`, whose pages are all
   * present, carry no marker (unless `ignoreMarkers`), and share one
   * readiness: all valid at `nowUs`, or all in flight with the same
   * completion time. This is the simulator's fast-path question: "how far can
   * a reader go without anything happening?".
   */
  run(file: number, page: number, maxPages: number, nowUs: number, ignoreMarkers = false): RunInfo {
    const list = this.files.get(file);
    let e = list?.find(page) ?? null;
    if (e === null) return { pages: 0, readyAtUs: nowUs };
    const cls = e.readyAtUs <= nowUs ? VALID : e.readyAtUs;
    const end = page + maxPages;
    let p = page;
    while (e !== null && e.start <= p && p < end) {
      if (!ignoreMarkers && e.mark >= 0) break;
      const c = e.readyAtUs <= nowUs ? VALID : e.readyAtUs;
      if (c !== cls) break;
      p = Math.min(e.end, end);
      e = e.next[0]!;
    }
    return { pages: p - page, readyAtUs: cls === VALID ? nowUs : cls };
  }

  /** First page of the first marker unit overlapping `[start, end)`, or -1. */
  markerIn(file: number, start: number, end: number): number {
    let e = this.files.get(file)?.findFrom(start) ?? null;
    while (e !== null && e.start < end) {
      if (e.mark >= 0) return e.mark;
      e = e.next[0]!;
    }
    return -1;
  }

  /**
   * When every present page of `[start, end)` is valid: the latest completion
   * time among them, or `nowUs` if they are all valid already.
   */
  readyAt(file: number, start: number, end: number, nowUs: number): number {
    let e = this.files.get(file)?.findFrom(start) ?? null;
    let t = nowUs;
    while (e !== null && e.start < end) {
      if (e.readyAtUs > t) t = e.readyAtUs;
      e = e.next[0]!;
    }
    return t;
  }

  /** The cached runs of one file (for tests, debugging and docs). */
  extents(file: number): CachedRun[] {
    const out: CachedRun[] = [];
    let e = this.files.get(file)?.first() ?? null;
    while (e !== null) {
      out.push({ start: e.start, end: e.end, readyAtUs: e.readyAtUs, markerUnit: e.mark, epoch: e.epoch });
      e = e.next[0]!;
    }
    return out;
  }

  /** Number of present pages of `file` in `[start, end)` (what `fincore`/`mincore` would count). */
  residentIn(file: number, start = 0, end = Number.MAX_SAFE_INTEGER): number {
    let e = this.files.get(file)?.findFrom(start) ?? null;
    let n = 0;
    while (e !== null && e.start < end) {
      n += Math.min(e.end, end) - Math.max(e.start, start);
      e = e.next[0]!;
    }
    return n;
  }

  /** Counters. */
  stats(): PageCacheStats {
    return {
      residentPages: this.resident,
      peakResidentPages: this.peak,
      insertedPages: this.inserted,
      evictedPages: this.evicted,
      evictions: this.evictionRuns,
      droppedPages: this.dropped,
      extents: this.extentCount,
    };
  }

  // -------------------------------------------------------------- mutations

  /**
   * Brings absent pages `[start, start + pages)` of `file` in: they are in
   * flight until `readyAtUs` (pass a time `<= nowUs` for pages that are valid
   * at once). Pages already present are left alone. Makes room first by
   * evicting least recently used valid pages if the capacity would be
   * exceeded. The new pages count as touched. `folioOrder`: the pages form
   * naturally aligned folios of `2^folioOrder` pages (Linux large folios).
   */
  insert(file: number, start: number, pages: number, readyAtUs: number, nowUs: number, folioOrder = 0): void {
    if (pages <= 0) return;
    const list = this.listOf(file);
    // Collect the absent sub-runs first (the common case is one run).
    const n = this.absentRuns(list, start, start + pages);
    const runs = this.gaps;
    let add = 0;
    for (let i = 0; i < n; i += 2) add += runs[i + 1]! - runs[i]!;
    if (add === 0) return;
    const over = this.resident + add - this.capacityPages;
    if (over > 0) this.evict(over, nowUs);
    const ready = readyAtUs <= nowUs ? VALID : readyAtUs;
    for (let i = 0; i < n; i += 2) {
      const a = runs[i]!;
      const b = runs[i + 1]!;
      // Split the new run at epoch boundaries of the touch clock.
      let q = a;
      while (q < b) {
        const epoch = this.epochOf(this.clock);
        const room = this.pagesLeftInEpoch();
        const n = Math.min(b - q, room);
        const x = new Extent(file, q, q + n, ready, epoch, -1, folioOrder);
        list.insert(x);
        this.extentCount++;
        this.addToBucket(x);
        this.clock += n;
        q += n;
      }
      this.coalesce(list, a, b, nowUs);
    }
    this.resident += add;
    this.inserted += add;
    if (this.resident > this.peak) this.peak = this.resident;
  }

  /**
   * Refreshes pages `[start, start + pages)` in the LRU order, exactly as
   * `pages` one-page touches in increasing order would. Given `nowUs`, also
   * folds the touched pages whose I/O has completed into their valid
   * neighbours (fewer extents; nothing observable changes).
   */
  touch(file: number, start: number, pages: number, nowUs?: number): void {
    if (pages <= 0) return;
    const list = this.files.get(file);
    if (!Number.isFinite(this.lruEpochPages) || list === undefined) {
      this.clock += pages;
    } else {
      let q = start;
      const end = start + pages;
      while (q < end) {
        const epoch = this.epochOf(this.clock);
        const n = Math.min(end - q, this.pagesLeftInEpoch());
        this.setEpoch(list, q, q + n, epoch);
        this.clock += n;
        q += n;
      }
    }
    if (nowUs !== undefined && list !== undefined) this.coalesce(list, start, start + pages, nowUs);
  }

  /**
   * Sets the marker on the unit `[unitStart, unitEnd)` (all present). A read
   * touching any page of it reports `unitStart`.
   */
  setMarker(file: number, unitStart: number, unitEnd: number, nowUs: number): void {
    const list = this.files.get(file);
    if (list === undefined) return;
    this.splitAt(list, unitStart);
    this.splitAt(list, unitEnd);
    let e = list.find(unitStart);
    while (e !== null && e.start < unitEnd) {
      e.mark = unitStart;
      e = e.next[0]!;
    }
    this.coalesce(list, unitStart, unitEnd, nowUs);
  }

  /** Clears the marker unit that starts at `unitStart` (no-op if there is none). */
  clearMarker(file: number, unitStart: number, nowUs: number): void {
    const list = this.files.get(file);
    if (list === undefined) return;
    let e = list.findFrom(unitStart);
    let end = unitStart;
    while (e !== null && e.mark === unitStart) {
      e.mark = -1;
      end = e.end;
      e = e.next[0]!;
    }
    if (end > unitStart) this.coalesce(list, unitStart, end, nowUs);
  }

  /**
   * Removes the valid pages of `[start, start + pages)` (POSIX_FADV_DONTNEED,
   * `dd iflag=nocache`); pages still in flight stay. Returns how many went.
   */
  drop(file: number, start: number, pages: number, nowUs: number): number {
    const list = this.files.get(file);
    if (list === undefined || pages <= 0) return 0;
    const end = start + pages;
    this.splitAt(list, start);
    this.splitAt(list, end);
    let e = list.findFrom(start);
    let n = 0;
    while (e !== null && e.start < end) {
      const next = e.next[0]!;
      if (e.readyAtUs <= nowUs) {
        n += e.end - e.start;
        this.removeExtent(list, e);
      }
      e = next;
    }
    this.coalesce(list, start, end, nowUs);
    this.resident -= n;
    this.dropped += n;
    return n;
  }

  // ---------------------------------------------------------------- helpers

  /** The extent list of `file`, created empty if it has none. */
  private listOf(file: number): ExtentList {
    let list = this.files.get(file);
    if (list === undefined) {
      list = new ExtentList();
      this.files.set(file, list);
    }
    return list;
  }

  /** The absent sub-runs of [start, end) as flat (start, end) pairs. */
  /** The answer of {@link PageCache.absentRuns}, reused: each call overwrites its first entries. */
  private readonly gaps: number[] = [];

  /**
   * The absent stretches of `[start, end)` as [from, to) pairs in the first
   * entries of {@link PageCache.gaps}; returns how many entries (twice the
   * stretches). The array keeps its length, so it is not reallocated.
   */
  private absentRuns(list: ExtentList, start: number, end: number): number {
    const runs = this.gaps;
    let n = 0;
    let p = start;
    let e = list.findFrom(start);
    while (p < end) {
      if (e !== null && e.start <= p) {
        p = e.end;
        e = e.next[0]!;
        continue;
      }
      const gapEnd = Math.min(end, e === null ? end : e.start);
      if (n < runs.length) {
        runs[n] = p;
        runs[n + 1] = gapEnd;
      } else runs.push(p, gapEnd);
      n += 2;
      p = gapEnd;
    }
    return n;
  }

  private epochOf(clock: number): number {
    return Number.isFinite(this.lruEpochPages) ? Math.floor(clock / this.lruEpochPages) : 0;
  }

  private pagesLeftInEpoch(): number {
    if (!Number.isFinite(this.lruEpochPages)) return Number.POSITIVE_INFINITY;
    return this.lruEpochPages - (this.clock % this.lruEpochPages);
  }

  private addToBucket(e: Extent): void {
    if (!Number.isFinite(this.capacityPages)) return; // nothing is ever evicted: no LRU bookkeeping
    let set = this.buckets.get(e.epoch);
    if (set === undefined) {
      set = new Set();
      this.buckets.set(e.epoch, set);
    }
    // insertAged may add to an epoch the eviction scan has already moved past.
    if (e.epoch < this.minEpoch) this.minEpoch = e.epoch;
    set.add(e);
    this.bucketVersion.set(e.epoch, ++this.bucketAdds);
  }

  private removeFromBucket(e: Extent): void {
    if (!Number.isFinite(this.capacityPages)) return; // nothing is ever evicted: no LRU bookkeeping
    const set = this.buckets.get(e.epoch);
    if (set === undefined) return;
    set.delete(e);
    if (set.size === 0) {
      this.buckets.delete(e.epoch);
      this.bucketVersion.delete(e.epoch);
    }
  }

  private removeExtent(list: ExtentList, e: Extent): void {
    list.remove(e);
    this.extentCount--;
    this.removeFromBucket(e);
  }

  /** Ensures no extent straddles `page` (splits the one containing it). */
  private splitAt(list: ExtentList, page: number): void {
    const e = list.find(page);
    if (e === null || e.start === page) return;
    const right = new Extent(e.file, page, e.end, e.readyAtUs, e.epoch, e.mark, e.order);
    e.end = page;
    list.insert(right);
    this.extentCount++;
    this.addToBucket(right);
  }

  private setEpoch(list: ExtentList, a: number, b: number, epoch: number): void {
    let e = list.findFrom(a);
    if (e === null || e.start >= b) return;
    // Fast path: the whole range lies in extents already in this epoch.
    let allSame = true;
    for (let x: Extent | null = e; x !== null && x.start < b; x = x.next[0]!) {
      if (x.epoch !== epoch) {
        allSame = false;
        break;
      }
    }
    if (allSame) return;
    this.splitAt(list, a);
    this.splitAt(list, b);
    e = list.findFrom(a);
    while (e !== null && e.start < b) {
      if (e.epoch !== epoch) {
        this.removeFromBucket(e);
        e.epoch = epoch;
        this.addToBucket(e);
      }
      e = e.next[0]!;
    }
    this.coalesce(list, a, b, Number.NEGATIVE_INFINITY);
  }

  /**
   * Merges mergeable neighbours among the extents around `[a, b]`, folding
   * completed I/O (readyAtUs <= nowUs) into "valid" first.
   */
  private coalesce(list: ExtentList, a: number, b: number, nowUs: number): void {
    let e = list.findLE(a - 1) ?? list.first();
    if (e !== null && e.prev !== null) e = e.prev;
    while (e !== null && e.start <= b) {
      if (e.readyAtUs <= nowUs) e.readyAtUs = VALID;
      const n: Extent | null = e.next[0]!;
      if (n === null) break;
      if (n.readyAtUs <= nowUs) n.readyAtUs = VALID;
      if (
        e.end === n.start &&
        e.readyAtUs === n.readyAtUs &&
        e.epoch === n.epoch &&
        e.mark === n.mark &&
        e.order === n.order
      ) {
        e.end = n.end;
        this.removeExtent(list, n);
        continue;
      }
      e = n;
    }
  }

  /** Evicts `need` valid pages, least recently used first; returns how many it could. */
  private evict(need: number, nowUs: number): number {
    this.evictionRuns++;
    let freed = 0;
    let epoch = this.minEpoch;
    const current = this.epochOf(this.clock);
    let allEmptySoFar = true;
    while (freed < need && epoch <= current) {
      const set = this.buckets.get(epoch);
      if (set === undefined || set.size === 0) {
        if (allEmptySoFar) this.minEpoch = epoch + 1;
        epoch++;
        continue;
      }
      allEmptySoFar = false;
      const version = this.bucketVersion.get(epoch) ?? 0;
      let sc = this.sortedCache;
      if (sc === null || sc.epoch !== epoch || sc.version !== version) {
        const arr = [...set].sort((x, y) => x.file - y.file || x.start - y.start);
        sc = { epoch, version, arr, pos: 0 };
        this.sortedCache = sc;
      }
      let i = sc.pos;
      let advancing = true;
      while (i < sc.arr.length && freed < need) {
        const e = sc.arr[i]!;
        if (!e.alive || e.epoch !== epoch) {
          if (advancing) sc.pos = i + 1;
          i++;
          continue;
        }
        if (e.readyAtUs > nowUs) {
          advancing = false;
          i++;
          continue;
        }
        const take = Math.min(need - freed, e.end - e.start);
        const list = this.files.get(e.file)!;
        if (take === e.end - e.start) {
          this.removeExtent(list, e);
          if (advancing) sc.pos = i + 1;
          i++;
        } else {
          e.start += take; // evict the lowest pages; order within the list is unchanged
        }
        freed += take;
      }
      if (freed < need) epoch++;
    }
    this.resident -= freed;
    this.evicted += freed;
    return freed;
  }
}
