/**
 * Windows Cache Manager read-ahead: a **low-confidence, parametric** model.
 *
 * There is no source to read. What is documented (apps/docs/src/reference/windows-cache-manager.md#what-is-documented, [D]):
 * read-ahead state lives in each *handle's* private cache map, which keeps
 * the **last two reads**; three reads establish a pattern, sequential or
 * strided, forward or backward (Windows Internals, "Intelligent
 * Read-Ahead"); read-ahead is asynchronous, done by a system worker thread
 * after the caller's data is fetched; its granularity is PAGE_SIZE unless the
 * file system calls `CcSetReadAheadGranularity` (Microsoft's FastFAT sample
 * sets 64 KiB, NTFS's value is not published); FILE_FLAG_SEQUENTIAL_SCAN
 * doubles the amount, FILE_FLAG_RANDOM_ACCESS turns read-ahead off (Raymond
 * Chen 2012, KB 2549369); a read that misses is brought in synchronously by
 * the memory manager, with some clustering. PostgreSQL opens relation files
 * with neither flag.
 *
 * What this model infers from that (apps/docs/src/reference/windows-cache-manager.md#inferred-model, [I]), with the
 * unknown sizes as parameters:
 * - a handle keeps `h1`, `h2`, its last two reads, and a read-ahead
 *   *frontier* (where its read-ahead has got to);
 * - pattern of a read R: SEQ if R starts where h1 ended and h1 started where
 *   h2 ended; STRIDE if `R.off - h1.off = h1.off - h2.off != 0`; else none
 *   (with SEQUENTIAL_SCAN every read counts as SEQ; with RANDOM_ACCESS none
 *   does);
 * - SEQ: when the reader is within one read-ahead unit of the frontier, queue
 *   read-ahead of `k x roundup(R.len, G)` bytes from the frontier (or from R's
 *   end if it is ahead), bounded by one cache view `V`;
 * - STRIDE: queue a read of the predicted next request, rounded to `G`;
 * - each queued read-ahead is one I/O per run of its absent pages; each demand
 *   miss is one synchronous I/O of the `C`-aligned cluster around the missing
 *   page (its absent pages).
 * - the read-ahead is queued when the read is issued (the real worker thread
 *   runs a little later, after the caller's data is in).
 *
 * Parameters: `G` granularity (64 KiB suggested), `k` (1, 2 with
 * SEQUENTIAL_SCAN), `C` demand-miss cluster (unknown memory-manager
 * clustering; sweep 8-64 KiB), `V` = 256 KiB view. Validate with ProcMon
 * (paging reads of the System process are read-ahead) before trusting any
 * number this model gives.
 */
import { checkNumber, ReadaheadError } from "./errors.js";
import {
  checkRead,
  emptyTally,
  type FadviseAdvice,
  type IoTally,
  issueRun,
  type OpenFile,
  type OpenOptions,
  outcome,
  PAGE_BYTES,
  type PendingRead,
  type QuietRun,
  RENAME_FILE,
  type ReadaheadModel,
  type ReadOutcome,
  type SubmitIo,
  wholeReads,
} from "./model.js";
import type { PageCache } from "./page-cache.js";
import { fadviseRange, openSizePages, unknownAdvice, validPagesAt } from "./per-open.js";

/** Options of {@link windowsReadahead}; every size is an unknown of apps/docs/src/reference/windows-cache-manager.md#inferred-model. */
export interface WindowsOptions {
  /** Read-ahead granularity G in bytes (power of two >= 4096). Default 65536 (FastFAT's READ_AHEAD_GRANULARITY). */
  granularityBytes?: number;
  /** Demand-miss cluster C in bytes (multiple of 4096). Default 32768, the middle of the suggested 8-64 KiB sweep. */
  demandClusterBytes?: number;
  /** Cache view size V in bytes. Default 262144 (VACB_MAPPING_GRANULARITY). */
  viewBytes?: number;
}

/** Options of {@link WindowsReadahead.open}. */
export interface WindowsOpenOptions extends OpenOptions {
  /** FILE_FLAG_SEQUENTIAL_SCAN (k = 2, every read treated as sequential). */
  sequentialScan?: boolean;
  /** FILE_FLAG_RANDOM_ACCESS (no read-ahead). */
  randomAccess?: boolean;
}

/** Per-handle state (the private cache map). */
export class WindowsOpenFile implements OpenFile {
  /** File id. */
  private fileId: number;
  /** File size in pages. */
  readonly sizePages: number;
  /** Last read: first page, or -1. */
  h1Page = -1;
  /** Last read: pages. */
  h1Pages = 0;
  /** Read before that: first page, or -1. */
  h2Page = -1;
  /** Read before that: pages. */
  h2Pages = 0;
  /** End of the read-ahead queued so far (page), or -1. */
  frontier = -1;
  /** FILE_FLAG_SEQUENTIAL_SCAN. */
  sequentialScan: boolean;
  /** FILE_FLAG_RANDOM_ACCESS. */
  randomAccess: boolean;

  /** @internal */
  constructor(file: number, sizePages: number, sequentialScan: boolean, randomAccess: boolean) {
    this.fileId = file;
    this.sizePages = sizePages;
    this.sequentialScan = sequentialScan;
    this.randomAccess = randomAccess;
  }
  /** File id. */
  get file(): number {
    return this.fileId;
  }

  /** `renumberOpenFile` (sim.ts). */
  [RENAME_FILE](file: number): void {
    this.fileId = file;
  }
}

/** What one read does to the read-ahead state, computed without side effects. */
interface Plan {
  /** Read-ahead to queue: [start, end) pages, or start < 0 for none. */
  raStart: number;
  raEnd: number;
  /** New frontier. */
  frontier: number;
}

/** A read that queues no read-ahead (the frontier stays or moves to `frontier`). */
function noReadahead(frontier: number): Plan {
  return { raStart: -1, raEnd: -1, frontier };
}

/** The Windows Cache Manager model (see the file header; confidence: low). */
export class WindowsReadahead implements ReadaheadModel<WindowsOpenFile> {
  readonly name = "windows" as const;
  readonly confidence = "low" as const;
  readonly label: string;
  readonly cache: PageCache;
  /** G in pages. */
  readonly granularityPages: number;
  /** C in pages. */
  readonly demandClusterPages: number;
  /** V in pages. */
  readonly viewPages: number;

  constructor(cache: PageCache, options: WindowsOptions = {}) {
    this.cache = cache;
    // Defaults (apps/docs/src/reference/windows-cache-manager.md#what-is-documented, apps/docs/src/reference/windows-cache-manager.md#inferred-model, all unknowns of the inferred model): G 64 KiB (FastFAT's
    // READ_AHEAD_GRANULARITY 0x10000), C 32 KiB (middle of the suggested 8-64 KiB sweep), V 256 KiB (view size).
    const g = checkNumber("Windows granularityBytes", options.granularityBytes ?? 65536, {
      min: PAGE_BYTES,
      integer: true,
    });
    if ((g & (g - 1)) !== 0) {
      throw new ReadaheadError(
        "READAHEAD_BAD_PARAMETER",
        `Windows granularityBytes must be a power of two, got ${g}.`,
      );
    }
    const c = checkNumber("Windows demandClusterBytes", options.demandClusterBytes ?? 32768, {
      min: PAGE_BYTES,
      integer: true,
    });
    const v = checkNumber("Windows viewBytes", options.viewBytes ?? 262144, { min: g, integer: true });
    if (c % PAGE_BYTES !== 0 || v % PAGE_BYTES !== 0) {
      throw new ReadaheadError(
        "READAHEAD_BAD_PARAMETER",
        `Windows demandClusterBytes and viewBytes must be multiples of ${PAGE_BYTES}.`,
      );
    }
    this.granularityPages = g / PAGE_BYTES;
    this.demandClusterPages = c / PAGE_BYTES;
    this.viewPages = v / PAGE_BYTES;
    this.label =
      `windows cache manager (LOW CONFIDENCE, inferred: G ${g / 1024} KiB, C ${c / 1024} KiB, ` +
      `V ${v / 1024} KiB)`;
  }

  open(file: number, options: WindowsOpenOptions = {}): WindowsOpenFile {
    return new WindowsOpenFile(
      file,
      openSizePages(options),
      options.sequentialScan === true,
      options.randomAccess === true,
    );
  }

  /**
   * Read-ahead unit of a sequential read of `pages`: `k x roundup(len, G)`, with
   * k = 2 under SEQUENTIAL_SCAN ("the amount of prefetch is doubled", apps/docs/src/reference/windows-cache-manager.md#what-is-documented, apps/docs/src/reference/windows-cache-manager.md#inferred-model).
   */
  private seqUnit(of: WindowsOpenFile, pages: number): number {
    return (of.sequentialScan ? 2 : 1) * this.roundUpG(pages);
  }

  private roundUpG(pages: number): number {
    const g = this.granularityPages;
    return Math.ceil(pages / g) * g;
  }

  /** Pattern detection and read-ahead sizing for a read of [page, page + pages), given the handle state. */
  private plan(
    of: WindowsOpenFile,
    h1Page: number,
    h1Pages: number,
    h2Page: number,
    h2Pages: number,
    frontier: number,
    page: number,
    pages: number,
  ): Plan {
    if (of.randomAccess) return noReadahead(frontier);
    const end = page + pages;
    const seq =
      of.sequentialScan ||
      (h1Page >= 0 && h2Page >= 0 && page === h1Page + h1Pages && h1Page === h2Page + h2Pages);
    if (seq) {
      const unit = this.seqUnit(of, pages);
      const f = Math.max(frontier, end);
      if (f - end >= unit || f >= of.sizePages) return noReadahead(f);
      const viewEnd = (Math.floor(f / this.viewPages) + 1) * this.viewPages;
      const raEnd = Math.min(f + unit, viewEnd, of.sizePages);
      return { raStart: f, raEnd, frontier: raEnd };
    }
    if (h1Page >= 0 && h2Page >= 0) {
      const stride = page - h1Page;
      if (stride !== 0 && stride === h1Page - h2Page) {
        const g = this.granularityPages;
        const ps = page + stride;
        if (ps < 0 || ps >= of.sizePages) return noReadahead(frontier);
        const a = Math.floor(ps / g) * g;
        const b = Math.min(Math.ceil((ps + pages) / g) * g, of.sizePages);
        return { raStart: a, raEnd: b, frontier };
      }
    }
    return noReadahead(frontier);
  }

  read(of: WindowsOpenFile, page: number, pages: number, nowUs: number, submit: SubmitIo): ReadOutcome {
    checkRead(of, page, pages);
    const cache = this.cache;
    const tally = emptyTally();
    const hitPages = validPagesAt(cache, of.file, page, pages, nowUs);
    const end = page + pages;
    // Demand misses: the C-aligned cluster around each missing page, its absent pages.
    let p = cache.nextMissing(of.file, page, pages);
    while (p < end) {
      const c = this.demandClusterPages;
      const cs = Math.floor(p / c) * c;
      const ce = Math.min(cs + c, of.sizePages);
      // absent run around p within [cs, ce)
      let a = p;
      while (a > cs && !cache.isPresent(of.file, a - 1)) a--;
      const b = cache.nextPresent(of.file, p, ce);
      issueRun(cache, submit, tally, of.file, a, b - a, true, b - a, nowUs);
      p = b < end ? cache.nextMissing(of.file, b, end - b) : end;
    }
    const readyAtUs = cache.readyAt(of.file, page, end, nowUs);
    // Then read-ahead, queued to the worker thread.
    const plan = this.plan(of, of.h1Page, of.h1Pages, of.h2Page, of.h2Pages, of.frontier, page, pages);
    if (plan.raStart >= 0) this.issueAbsent(of, plan.raStart, plan.raEnd, nowUs, submit, tally);
    of.frontier = plan.frontier;
    of.h2Page = of.h1Page;
    of.h2Pages = of.h1Pages;
    of.h1Page = page;
    of.h1Pages = pages;
    cache.touch(of.file, page, pages, nowUs);
    return outcome(tally, readyAtUs, null, hitPages);
  }

  private issueAbsent(
    of: WindowsOpenFile,
    a: number,
    b: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ) {
    const cache = this.cache;
    let p = cache.nextMissing(of.file, a, b - a);
    while (p < b) {
      const q = cache.nextPresent(of.file, p, b);
      issueRun(cache, submit, tally, of.file, p, q - p, false, q - p, nowUs);
      p = q < b ? cache.nextMissing(of.file, q, b - q) : b;
    }
  }

  resume(_pending: PendingRead, _nowUs: number, _submit: SubmitIo): ReadOutcome {
    throw new RangeError("the Windows model never leaves a read pending");
  }

  fadvise(
    of: WindowsOpenFile,
    advice: FadviseAdvice,
    page: number,
    pages: number,
    nowUs: number,
    _submit: SubmitIo,
  ): IoTally {
    // Windows has no posix_fadvise; map the advice onto the open flags PostgreSQL uses (src/port/open.c).
    switch (advice) {
      case "normal":
        of.sequentialScan = false;
        of.randomAccess = false;
        break;
      case "sequential":
        of.sequentialScan = true;
        of.randomAccess = false;
        break;
      case "random":
        of.randomAccess = true;
        of.sequentialScan = false;
        break;
      case "willneed":
        break;
      case "dontneed": {
        const n = fadviseRange(of, page, pages);
        if (n > 0) this.cache.drop(of.file, page, n, nowUs);
        break;
      }
      default:
        throw unknownAdvice(advice);
    }
    return emptyTally();
  }

  /**
   * Walks the reads of a quiet run: every read-ahead they would queue must
   * find its pages present. Returns the quiet length and the state after it.
   */
  private walkQuiet(of: WindowsOpenFile, page: number, pages: number, ppr: number, apply: boolean): number {
    let h1Page = of.h1Page;
    let h1Pages = of.h1Pages;
    let h2Page = of.h2Page;
    let h2Pages = of.h2Pages;
    let frontier = of.frontier;
    const end = page + pages;
    let p = page;
    let quiet = 0;
    while (p < end) {
      const len = Math.min(ppr, end - p);
      // Steady sequential state: jump over reads that trigger nothing.
      const steady =
        !of.randomAccess &&
        len === ppr &&
        h1Page >= 0 &&
        h1Pages === ppr &&
        p === h1Page + h1Pages &&
        (of.sequentialScan || (h2Page >= 0 && h1Page === h2Page + h2Pages));
      if (steady && frontier >= p + len) {
        const unit = this.seqUnit(of, len);
        // Read j (at p + j*len) triggers when frontier - (p + (j+1)*len) < unit.
        const jTrigger = Math.max(0, Math.floor((frontier - unit - p) / len));
        const fullReads = Math.floor((end - p) / len);
        const jump = Math.min(jTrigger, fullReads);
        if (jump > 1) {
          const last = p + (jump - 1) * len;
          h2Page = last - len;
          h2Pages = len;
          h1Page = last;
          h1Pages = len;
          p = last + len;
          quiet = p - page;
          continue;
        }
      }
      const plan = this.plan(of, h1Page, h1Pages, h2Page, h2Pages, frontier, p, len);
      if (
        plan.raStart >= 0 &&
        this.cache.nextMissing(of.file, plan.raStart, plan.raEnd - plan.raStart) < plan.raEnd
      ) {
        break; // this read would queue real I/O
      }
      frontier = plan.frontier;
      h2Page = h1Page;
      h2Pages = h1Pages;
      h1Page = p;
      h1Pages = len;
      p += len;
      quiet = p - page;
    }
    if (apply) {
      of.h1Page = h1Page;
      of.h1Pages = h1Pages;
      of.h2Page = h2Page;
      of.h2Pages = h2Pages;
      of.frontier = frontier;
    }
    return quiet;
  }

  quietRun(
    of: WindowsOpenFile,
    page: number,
    maxPages: number,
    pagesPerRead: number,
    nowUs: number,
  ): QuietRun {
    const max = Math.min(maxPages, of.sizePages - page);
    if (max <= 0 || pagesPerRead <= 0) return { pages: 0, readyAtUs: nowUs };
    const run = this.cache.run(of.file, page, max, nowUs, true);
    let pages = wholeReads(run.pages, max, pagesPerRead);
    if (pages > 0) pages = this.walkQuiet(of, page, pages, pagesPerRead, false);
    return { pages, readyAtUs: pages > 0 ? run.readyAtUs : nowUs };
  }

  skipQuiet(of: WindowsOpenFile, page: number, pages: number, pagesPerRead: number, nowUs: number): void {
    if (pages <= 0) return;
    this.walkQuiet(of, page, pages, pagesPerRead, true);
    this.cache.touch(of.file, page, pages, nowUs);
  }
}

/**
 * Creates the Windows Cache Manager model over `cache` (confidence: low).
 *
 * @example
 * ```ts
 * import { PageCache, windowsReadahead } from "@scanlab/readahead";
 * const win = windowsReadahead(new PageCache(), { granularityBytes: 65536, demandClusterBytes: 16384 });
 * console.log(win.confidence); // "low": inferred from documentation, validate with ProcMon
 * ```
 */
export function windowsReadahead(cache: PageCache, options: WindowsOptions = {}): WindowsReadahead {
  return new WindowsReadahead(cache, options);
}
