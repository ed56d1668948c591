/**
 * Linux page-cache readahead (`mm/readahead.c`, `mm/filemap.c`).
 *
 * The story, as the kernel's own DOC block tells it and as this model plays
 * it (rule by rule from apps/docs/src/reference/linux-readahead-window.md, which cites the source text):
 *
 * Every open file has a `file_ra_state`: the last readahead *window*
 * `[start, start + size)` and its `async_size`, the tail of the window that
 * is still ahead of the reader. The first page of that tail carries the
 * `PG_readahead` *marker*. `prev_pos` remembers where the previous read
 * ended. `ra_pages` is copied from the device's `read_ahead_kb` when the
 * file is opened.
 *
 * A read() walks its pages in order (apps/docs/src/reference/linux-readahead-window.md#how-a-read-drives-readahead). A page that is not cached is a
 * *miss*: the **sync path** sizes a window around it and reads it at once,
 * and the reader waits. A page that carries the marker is a *hit on the
 * marker*: the **async path** pushes the next window out, and nobody waits
 * for it yet. A page that is cached but still under I/O makes the reader
 * wait. Readahead code treats pages in flight as present.
 *
 * Sync path (apps/docs/src/reference/linux-readahead-window.md#sync-path). A read at the start of the file, a read bigger than the
 * window, or one that starts where the previous read of this open file ended
 * (`index - prev_index <= 1`) begins a stream: INITIAL window `init(req)`
 * (16 KiB for one 8 kB block with the default 128 KiB). Otherwise the page
 * cache is asked for *history*: how many pages just below the miss are
 * cached (CONTEXT). Little history means a random read: exactly the request is
 * read, nothing is remembered. Enough history means an interleaved stream
 * that lost its state (another process, another open): the window is sized
 * from the history. Up to 6.9, a miss exactly at the expected next window
 * also continues the stream (CONTINUE), and a window whose marker would be
 * hit at once is grown (READIT).
 *
 * Async path (apps/docs/src/reference/linux-readahead-window.md#async-path). If the marker sits where this open file's own state
 * expected it, the window moves forward and grows (`next()`: x4 while small,
 * then x2, up to `ra_pages`). Otherwise (MARKER: someone else's window) the
 * cache is asked how much is already read ahead, and the next window is sized
 * from that. A marker set by *any* process fires in whichever process
 * touches it first, sized from that process's state.
 *
 * Submission (apps/docs/src/reference/linux-readahead-window.md#submission). The window's absent pages are allocated (they become
 * in flight) and each maximal run of them is one read request, split at
 * `max_sectors_kb`. The marker is set only if its page was newly allocated:
 * a window that is already cached leaves no marker, which is how a stream's
 * chain of markers can break (the ≤6.9 striding pitfall of apps/docs/src/reference/linux-readahead-window.md#the-striding-pitfall).
 *
 * Version lines (the `version` option, apps/docs/src/reference/linux-readahead-window.md#version-table):
 * - `"<=6.9"`: `ondemand_readahead()` (v4.20 - v6.9), order-0 pages.
 * - `">=6.10"`: Jan Kara's 2024 split of `page_cache_sync_ra()` /
 *   `page_cache_async_ra()` as in mainline 6.16+ (`ra->order`, +2 per async
 *   window, window end aligned to the folio order), with large folios when
 *   the filesystem supports them (XFS; ext4 since 6.16). Held against the
 *   real 6.18 kernel of the machine this package was built on: see the
 *   README's "Measured" section and `src/fixtures/`.
 *
 * The read loop (the `readLoop` option) only changes `prev_pos`: the 5.4
 * loop (`do_generic_file_read`) leaves it on the last page read; the 5.12+
 * `filemap_read` leaves it at the end of the read. In 6.1 (Debian's
 * linux-source-6.1, mm/filemap.c) `filemap_read` also moves `prev_pos` after
 * every folio it copies, so a miss later in the same read looks sequential;
 * the 6.18 kernel measured here does not (a traced 8 KiB read whose second
 * page missed saw `prev_pos = -1`), so the model ties the in-loop update to
 * the "<=6.9" line with the 5.12 loop.
 *
 * Large folios (`largeFolios`, ≥6.10 only): async windows are allocated as
 * folios of order up to `ra->order` (grown by 2 per async window, capped at
 * `maxFolioOrder` and at log2 of the window), each naturally aligned. The
 * marker covers the whole folio that contains the marker page: any read
 * touching that folio fires it and the kernel reports the folio's first page.
 *
 * Not modelled: bdi congestion (legacy request queues, gone by 5.18), cgroup
 * congestion, mmap faults, the 6.4 next/prev-miss off-by-one fixes, block-layer
 * merging across windows. (The device's segment limit is modelled: the
 * `maxSegments` option.)
 */
import { linuxInitRaSize, linuxNextRaSize } from "@scanlab/core";
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
import type { Extent, PageCache } from "./page-cache.js";
import { fadviseRange, openSizePages, unknownAdvice, validPagesAt } from "./per-open.js";

/** Linux readahead rule sets (apps/docs/src/reference/linux-readahead-window.md). */
export type LinuxVersion = "<=6.9" | ">=6.10";
/** Read loop of `mm/filemap.c`: 5.4 `do_generic_file_read` or 5.12+ `filemap_read` (apps/docs/src/reference/linux-readahead-window.md#how-a-read-drives-readahead). */
export type LinuxReadLoop = "5.4" | "5.12";

/** One readahead decision, as reported to {@link LinuxOptions.onDecision}. */
export interface LinuxDecision {
  /** Sync path (a miss) or async path (a marker hit). */
  path: "sync" | "async";
  /**
   * Rule that fired: `initial` (start of a stream), `continue` (the expected
   * next window), `context` (sized from cached history), `random` (small
   * random read, state untouched), `marker` (someone else's marker), `none`
   * (async path gave up), `forced` (RANDOM mode or readahead off).
   */
  rule: "initial" | "continue" | "context" | "random" | "marker" | "none" | "forced";
  /** File. */
  file: number;
  /** Page the decision was made at. */
  index: number;
  /** Pages the read still wanted. */
  req: number;
  /** Resulting window (for initial, continue, context, marker). */
  start: number;
  /** Window size. */
  size: number;
  /** Window async size. */
  asyncSize: number;
}

/** Options of {@link linuxReadahead}. */
export interface LinuxOptions {
  /**
   * Called for every readahead decision (debugging, teaching, comparing with
   * the kernel's `readahead:page_cache_sync_ra` / `page_cache_async_ra` trace events).
   */
  onDecision?: (d: LinuxDecision) => void;
  /** Rule set. Default ">=6.10". */
  version?: LinuxVersion;
  /** Read loop; "5.4" only goes with "<=6.9". Default "5.12". */
  readLoop?: LinuxReadLoop;
  /**
   * The device's `read_ahead_kb` (copied into each file at open).
   * Default 128 (`VM_READAHEAD_PAGES`, include/linux/pagemap.h, apps/docs/src/reference/linux-readahead-window.md#readahead-parameters).
   */
  readAheadKb?: number;
  /**
   * The device's `max_sectors_kb`: the largest request, and `io_pages` for
   * reads bigger than the window. Default 1280 (`BLK_DEF_MAX_SECTORS` = 2560
   * sectors, block/blk-settings.c since 4.3).
   */
  maxSectorsKb?: number;
  /**
   * The device's `max_segments`: a request holds at most this many segments,
   * and the order-0 pages of a window are one segment each, so an 8 MiB
   * window of order-0 pages becomes 1016 KiB requests on a virtio disk
   * (254 segments; traced on the 6.18 machine). Default 128
   * (`BLK_MAX_SEGMENTS`, include/linux/blkdev.h).
   */
  maxSegments?: number;
  /**
   * Large folios in the page cache (≥6.10 only). Default true for ">=6.10":
   * XFS has them since 5.18 and ext4 since 6.16 (the kernel measured here).
   */
  largeFolios?: boolean;
  /**
   * Trim each async window's end to the folio order (`ra->order`, mainline
   * ≈6.15+, apps/docs/src/reference/linux-readahead-window.md#async-path-from-6-10, apps/docs/src/reference/linux-readahead-window.md#version-table). Default true for ">=6.10" (the 6.18
   * kernel measured here does it); false gives 6.10-6.14 and the apps/docs/src/reference/readahead-predictions.md#simulation-assumptions
   * reference simulation, which had "no folio order or alignment".
   */
  alignWindows?: boolean;
  /**
   * Emulate how `page_cache_next_miss()` / `page_cache_prev_miss()` really
   * walk the xarray when the scan starts inside a large folio (see the file
   * header). Default: on with large folios.
   */
  xarrayLag?: boolean;
  /**
   * Largest folio order. Default 9 (`MAX_PAGECACHE_ORDER` = PMD order on
   * x86-64: 2 MiB folios; confirmed by the 6.18 trace in the README).
   */
  maxFolioOrder?: number;
}

/** Per-open state of the Linux model: `struct file_ra_state` plus FMODE_RANDOM. */
export class LinuxOpenFile implements OpenFile {
  /** File id. */
  private fileId: number;
  /** File size in pages. */
  readonly sizePages: number;
  /** Window start (page). */
  start = 0;
  /** Window size (pages). */
  size = 0;
  /** Pages of the window still ahead of the marker. */
  asyncSize = 0;
  /** `prev_pos >> PAGE_SHIFT`, or -1 before the first read (prev_pos = -1). */
  prevIndex = -1;
  /** Readahead window limit in pages (`ra_pages`). */
  raPages: number;
  /** FMODE_RANDOM (POSIX_FADV_RANDOM). */
  random = false;
  /** `ra->order` (≥6.10). */
  order = 0;

  /** @internal */
  constructor(file: number, sizePages: number, raPages: number) {
    this.fileId = file;
    this.sizePages = sizePages;
    this.raPages = raPages;
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

class LinuxPending implements PendingRead {
  of: LinuxOpenFile;
  pos: number;
  startPage: number;
  end: number;
  readyAtUs: number;
  hitPages: number;
  done = false;
  constructor(of: LinuxOpenFile, startPage: number, end: number, readyAtUs: number, hitPages: number) {
    this.of = of;
    this.pos = startPage;
    this.startPage = startPage;
    this.end = end;
    this.readyAtUs = readyAtUs;
    this.hitPages = hitPages;
  }
  /** The same read, as a handle of its own (the model's scratch read is reused). */
  copy(): LinuxPending {
    const c = new LinuxPending(this.of, this.startPage, this.end, this.readyAtUs, this.hitPages);
    c.pos = this.pos;
    return c;
  }
  get remainingPages(): number {
    return this.end - this.pos;
  }
}

/** xarray node fan-out: 64 slots per node (`XA_CHUNK_SHIFT` 6, include/linux/xarray.h). */
const XA_CHUNK_SHIFT = 6;
const XA_CHUNK_SIZE = 1 << XA_CHUNK_SHIFT;

/** 2 MiB pieces of a forced read (`force_page_cache_ra`, mm/readahead.c). */
const FORCED_CHUNK_PAGES = (2 * 1024 * 1024) / PAGE_BYTES;

function ctz(n: number): number {
  if (n <= 0) return 0;
  let c = 0;
  while ((n & 1) === 0) {
    n = Math.floor(n / 2);
    c++;
  }
  return c;
}

function ilog2(n: number): number {
  return n <= 1 ? 0 : Math.floor(Math.log2(n));
}

/** The Linux readahead model (see the file header for the story). */
export class LinuxReadahead implements ReadaheadModel<LinuxOpenFile> {
  readonly name = "linux" as const;
  readonly confidence;
  readonly label: string;
  readonly cache: PageCache;
  /** Rule set. */
  readonly version: LinuxVersion;
  /** Read loop. */
  readonly readLoop: LinuxReadLoop;
  /** Device readahead (`bdi->ra_pages`) in pages. */
  readonly bdiRaPages: number;
  /** `io_pages` and the largest request, in pages. */
  readonly maxIoPages: number;
  /** Most segments per request. */
  readonly maxSegments: number;
  /** Large folios on. */
  readonly largeFolios: boolean;
  /** Largest folio order. */
  readonly maxFolioOrder: number;
  /** xarray lag emulation on. */
  readonly xarrayLag: boolean;
  private readonly onDecision: ((d: LinuxDecision) => void) | undefined;
  /** Async window ends aligned to the folio order. */
  readonly alignWindows: boolean;
  /** The read being walked when it came from {@link LinuxReadahead.read} (reused; see there). */
  private scratch: LinuxPending | null = null;
  /** The tally of the read being walked (reused: {@link outcome} copies it into the result). */
  private readonly tally: IoTally = emptyTally();

  constructor(cache: PageCache, options: LinuxOptions = {}) {
    this.cache = cache;
    const version = options.version ?? ">=6.10";
    if (version !== "<=6.9" && version !== ">=6.10") {
      throw new ReadaheadError(
        "READAHEAD_UNKNOWN_VERSION",
        `Linux readahead version ${JSON.stringify(version)} is unknown; use "<=6.9" or ">=6.10".`,
      );
    }
    const readLoop = options.readLoop ?? "5.12";
    if (readLoop !== "5.4" && readLoop !== "5.12") {
      throw new ReadaheadError(
        "READAHEAD_UNKNOWN_VERSION",
        `Linux read loop ${JSON.stringify(readLoop)} is unknown; use "5.4" or "5.12".`,
      );
    }
    if (readLoop === "5.4" && version === ">=6.10") {
      throw new ReadaheadError(
        "READAHEAD_BAD_PARAMETER",
        'Linux read loop "5.4" cannot go with version ">=6.10"; use readLoop "5.12".',
      );
    }
    this.version = version;
    this.readLoop = readLoop;
    // Defaults and their sources: see LinuxOptions (VM_READAHEAD_PAGES 128 KiB, BLK_DEF_MAX_SECTORS
    // 1280 KiB, BLK_MAX_SEGMENTS 128, MAX_PAGECACHE_ORDER 9). KiB / 4 = 4 KiB pages (PAGE_BYTES).
    const raKb = checkNumber("Linux readAheadKb", options.readAheadKb ?? 128, { min: 0 });
    const maxKb = checkNumber("Linux maxSectorsKb", options.maxSectorsKb ?? 1280, { min: 4 });
    this.bdiRaPages = Math.floor(raKb / 4);
    this.maxSegments = checkNumber("Linux maxSegments", options.maxSegments ?? 128, {
      min: 1,
      integer: true,
    });
    this.maxIoPages = Math.floor(maxKb / 4);
    this.largeFolios = version === ">=6.10" && (options.largeFolios ?? true);
    this.maxFolioOrder = checkNumber("Linux maxFolioOrder", options.maxFolioOrder ?? 9, {
      min: 0,
      integer: true,
    });
    this.xarrayLag = this.largeFolios && (options.xarrayLag ?? true);
    this.onDecision = options.onDecision;
    this.alignWindows = version === ">=6.10" && (options.alignWindows ?? true);
    this.confidence = version === ">=6.10" ? ("high" as const) : ("medium" as const);
    this.label =
      `linux ${version} (read loop ${readLoop}, read_ahead_kb ${raKb}, max_sectors_kb ${maxKb}` +
      `${this.largeFolios ? `, large folios up to order ${this.maxFolioOrder}` : ""}` +
      `${version === ">=6.10" && !this.alignWindows ? ", no window alignment" : ""})`;
  }

  open(file: number, options: OpenOptions = {}): LinuxOpenFile {
    return new LinuxOpenFile(file, openSizePages(options), this.bdiRaPages);
  }

  // ------------------------------------------------------------------ reads

  read(of: LinuxOpenFile, page: number, pages: number, nowUs: number, submit: SubmitIo): ReadOutcome {
    checkRead(of, page, pages);
    const hitPages = validPagesAt(this.cache, of.file, page, pages, nowUs);
    // A read that finishes within this call needs no handle of its own: the scratch one is reset and
    // walked, and copied only when the read must wait and be resumed (walk), so most reads allocate none.
    let r = this.scratch;
    if (r === null) r = this.scratch = new LinuxPending(of, page, page + pages, nowUs, hitPages);
    r.of = of;
    r.pos = page;
    r.startPage = page;
    r.end = page + pages;
    r.readyAtUs = nowUs;
    r.hitPages = hitPages;
    r.done = false;
    return this.walk(r, nowUs, submit);
  }

  resume(pendingRead: PendingRead, nowUs: number, submit: SubmitIo): ReadOutcome {
    if (!(pendingRead instanceof LinuxPending) || pendingRead.done) {
      throw new RangeError("resume() needs the pending read of an unfinished Linux read");
    }
    return this.walk(pendingRead, nowUs, submit);
  }

  /**
   * The read loop (apps/docs/src/reference/linux-readahead-window.md#how-a-read-drives-readahead). Both loops visit pages in order: an
   * absent page takes the sync path, a marked page the async path, a page in
   * flight makes the reader wait. They differ only in `prev_pos`.
   */
  private walk(r: LinuxPending, nowUs: number, submit: SubmitIo): ReadOutcome {
    const of = r.of;
    const cache = this.cache;
    const tally = this.tally;
    tally.syncIos = 0;
    tally.syncPages = 0;
    tally.asyncIos = 0;
    tally.asyncPages = 0;
    const file = of.file;
    const prevPerBatch = this.version === "<=6.9" && this.readLoop === "5.12";
    while (r.pos < r.end) {
      const p = r.pos;
      if (prevPerBatch && p > r.startPage) of.prevIndex = p;
      let e = cache.extentAt(file, p);
      if (e === null) {
        this.syncReadahead(of, p, r.end - p, nowUs, submit, tally);
        e = cache.extentAt(file, p);
        if (e === null) {
          // filemap_create_folio / no_cached_page: read this one page.
          issueRun(
            cache,
            submit,
            tally,
            file,
            p,
            1,
            true,
            this.maxIoPages,
            nowUs,
            undefined,
            this.maxSegments,
          );
          e = cache.extentAt(file, p);
        }
      }
      // Batch: present pages from p up to the first absent, marked or in-flight one.
      let q = p;
      let stop: Extent | null = null;
      while (q < r.end && e !== null && e.start <= q) {
        if (e.mark >= 0 || e.readyAtUs > nowUs) {
          stop = e;
          break;
        }
        q = e.end;
        e = e.next[0]!;
      }
      if (stop === null) {
        r.pos = Math.min(q, r.end); // the end, or an absent page: next round takes the sync path
        continue;
      }
      // q is marked and/or in flight: the batch ends with it.
      const stopMarked = stop.mark;
      const stopReady = stop.readyAtUs;
      if (stopMarked >= 0) this.asyncReadahead(of, stopMarked, r.end - stopMarked, nowUs, submit, tally);
      if (stopReady > nowUs) {
        // The reader sleeps on page q until stopReady. Anything left to decide after that?
        if (stopReady > r.readyAtUs) r.readyAtUs = stopReady;
        const after = q + 1;
        if (after < r.end && this.needsDecision(file, after, r.end)) {
          r.pos = after;
          return outcome(tally, stopReady, r === this.scratch ? r.copy() : r, r.hitPages);
        }
        r.readyAtUs = Math.max(r.readyAtUs, cache.readyAt(file, after, r.end, nowUs));
        r.pos = r.end;
        break;
      }
      r.pos = q + 1;
    }
    // The copy is done: remember where the read ended, refresh the pages in the LRU.
    this.finishRead(r, nowUs);
    return outcome(tally, r.readyAtUs, null, r.hitPages);
  }

  private needsDecision(file: number, from: number, end: number): boolean {
    return this.cache.nextMissing(file, from, end - from) < end || this.cache.markerIn(file, from, end) >= 0;
  }

  private finishRead(r: LinuxPending, nowUs: number): void {
    r.done = true;
    r.of.prevIndex = this.prevIndexAfter(r.end);
    this.cache.touch(r.of.file, r.startPage, r.end - r.startPage, nowUs);
  }

  /** `prev_pos >> PAGE_SHIFT` after a read ending at page `end` (apps/docs/src/reference/linux-readahead-window.md#how-a-read-drives-readahead): 5.4 leaves it on the last page. */
  private prevIndexAfter(end: number): number {
    return this.readLoop === "5.4" ? end - 1 : end;
  }

  // ------------------------------------------------------------- sync path

  private note(
    of: LinuxOpenFile,
    path: "sync" | "async",
    rule: LinuxDecision["rule"],
    index: number,
    req: number,
  ): void {
    this.onDecision?.({
      path,
      rule,
      file: of.file,
      index,
      req,
      start: of.start,
      size: of.size,
      asyncSize: of.asyncSize,
    });
  }

  /** `ractl_max_pages()`: a read bigger than the window may use up to io_pages. */
  private maxPages(of: LinuxOpenFile, req: number): number {
    let max = of.raPages;
    if (req > max && this.maxIoPages > max) max = Math.min(req, this.maxIoPages);
    return max;
  }

  private syncReadahead(
    of: LinuxOpenFile,
    index: number,
    req: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): void {
    if (of.raPages === 0) {
      // ≥5.10: forced read of one page (5.4 reads the same page through the loop).
      this.note(of, "sync", "forced", index, 1);
      this.forcedRead(of, index, 1, true, nowUs, submit, tally);
      return;
    }
    if (of.random) {
      this.note(of, "sync", "forced", index, req);
      this.forcedRead(of, index, req, true, nowUs, submit, tally);
      return;
    }
    const max = this.maxPages(of, req);
    const sequential = of.prevIndex >= 0 && (index === of.prevIndex || index === of.prevIndex + 1);
    if (this.version === "<=6.9") {
      let initial = false;
      let rule: LinuxDecision["rule"] = "context";
      if (index === 0) initial = true;
      else if (this.continues(of, index)) {
        this.advance(of, max);
        of.asyncSize = of.size;
        rule = "continue";
      } else if (req > max || sequential) initial = true;
      else if (!this.context(of, index, req, max, nowUs, submit, tally)) return;
      if (initial) {
        this.initialWindow(of, index, req, max);
        rule = "initial";
      }
      this.readit(of, index, max);
      this.note(of, "sync", rule, index, req);
      this.submitWindow(of, of.start, of.size, of.asyncSize, true, nowUs, submit, tally);
      return;
    }
    // >= 6.10
    if (index === 0 || req > max || sequential) {
      this.initialWindow(of, index, req, max);
      this.note(of, "sync", "initial", index, req);
    } else if (!this.context(of, index, req, max, nowUs, submit, tally)) return;
    else this.note(of, "sync", "context", index, req);
    of.order = 0;
    this.submitWindow(of, of.start, of.size, of.asyncSize, true, nowUs, submit, tally);
  }

  /**
   * CONTEXT readahead: size the window from the cached history below `index`.
   * Returns false if it was a small random read (read exactly `req`, state untouched).
   */
  private context(
    of: LinuxOpenFile,
    index: number,
    req: number,
    max: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): boolean {
    let h = this.historyBelow(of.file, index, max);
    if (h <= req) {
      this.note(of, "sync", "random", index, req);
      this.doPageCacheRa(of, index, req, 0, true, nowUs, submit, tally);
      return false;
    }
    if (h >= index) h *= 2; // cached from the start of the file: a long stream (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9 CONTEXT)
    of.start = index;
    of.size = Math.min(h + req, max);
    of.asyncSize = 1; // marker on the window's last page (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9 CONTEXT)
    return true;
  }

  /**
   * INITIAL (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9): a window of `init(req)` at `index`; its async
   * part is what the read does not ask for, or (when the read asks for all of
   * it) the whole window up to 6.9, half of it from 6.10 (INITIAL′).
   */
  private initialWindow(of: LinuxOpenFile, index: number, req: number, max: number): void {
    of.start = index;
    of.size = linuxInitRaSize(req, max);
    if (of.size > req) of.asyncSize = of.size - req;
    else of.asyncSize = this.version === "<=6.9" ? of.size : Math.floor(of.size / 2);
  }

  /** ≤6.9 CONTINUE test: a miss or marker at the expected place of this open file's next window (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9, apps/docs/src/reference/linux-readahead-window.md#async-path). */
  private continues(of: LinuxOpenFile, index: number): boolean {
    return index === of.start + of.size - of.asyncSize || index === of.start + of.size;
  }

  /** The next window of this open file's stream: `start += size; size = max(size, next(size))` (apps/docs/src/reference/linux-readahead-window.md#sync-path, apps/docs/src/reference/linux-readahead-window.md#async-path). */
  private advance(of: LinuxOpenFile, max: number): void {
    of.start += of.size;
    of.size = Math.max(of.size, linuxNextRaSize(of.size, max));
  }

  /**
   * MARKER (apps/docs/src/reference/linux-readahead-window.md#async-path-up-to-6-9): someone else's window. The next window starts at the
   * first absent page after `index` and is sized from the distance; false
   * (nothing to read) if every page up to `index + max` is present.
   */
  private markerWindow(of: LinuxOpenFile, index: number, req: number, max: number): boolean {
    const s = this.nextMiss(of.file, index + 1, max);
    if (s - index > max) {
      this.note(of, "async", "none", index, req);
      return false;
    }
    of.start = s;
    of.size = linuxNextRaSize(s - index + req, max);
    return true;
  }

  /** ≤6.9 READIT: a window whose marker the reader would hit at once is grown. */
  private readit(of: LinuxOpenFile, index: number, max: number): void {
    if (index === of.start && of.size === of.asyncSize) {
      const add = linuxNextRaSize(of.size, max);
      if (of.size + add <= max) {
        of.asyncSize = add;
        of.size += add;
      } else {
        of.size = max;
        of.asyncSize = Math.floor(max / 2); // `async = max/2` (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9 READIT)
      }
    }
  }

  // ------------------------------------------------------------ async path

  private asyncReadahead(
    of: LinuxOpenFile,
    unitStart: number,
    req: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): void {
    if (of.raPages === 0) return; // "no readahead": the marker stays
    // ≥6.10 compares with the expected marker rounded down to the folio: the unit's size, read before it is cleared.
    const unitPages =
      this.version === "<=6.9" ? 1 : Math.max(1, this.cache.markerUnitPages(of.file, unitStart));
    this.cache.clearMarker(of.file, unitStart, nowUs);
    const index = unitStart;
    const max = this.maxPages(of, req);
    if (this.version === "<=6.9") {
      let rule: LinuxDecision["rule"] = "marker";
      if (index === 0) {
        this.initialWindow(of, index, req, max);
        rule = "initial";
      } else if (this.continues(of, index)) {
        this.advance(of, max);
        of.asyncSize = of.size;
        rule = "continue";
      } else {
        if (!this.markerWindow(of, index, req, max)) return;
        of.asyncSize = of.size;
      }
      this.readit(of, index, max);
      this.note(of, "async", rule, index, req);
      this.submitWindow(of, of.start, of.size, of.asyncSize, false, nowUs, submit, tally);
      return;
    }
    // >= 6.10
    const expected = roundDown(of.start + of.size - of.asyncSize, unitPages);
    let rule: LinuxDecision["rule"] = "continue";
    if (index === expected) this.advance(of, max);
    else {
      if (!this.markerWindow(of, index, req, max)) return;
      rule = "marker";
    }
    of.order += 2; // ra->order grows by 2 per async window (page_cache_async_ra(), apps/docs/src/reference/linux-readahead-window.md#async-path-from-6-10)
    if (this.alignWindows) {
      const align = 2 ** Math.min(of.order, ctz(max));
      const end = of.start + of.size;
      const alignedEnd = roundDown(end, align);
      if (alignedEnd > of.start) of.size -= end - alignedEnd;
    }
    of.asyncSize = of.size;
    this.note(of, "async", rule, index, req);
    this.submitWindow(of, of.start, of.size, of.asyncSize, false, nowUs, submit, tally);
  }

  // ------------------------------------------------------- xarray scans

  /** Order of the folio holding `page` if it is a leaf-level large folio (order 1-5), else 0. */
  private leafFolio(file: number, page: number): { start: number; order: number } | null {
    const f = this.cache.folioAt(file, page);
    if (f === null || f.order < 1 || f.order >= XA_CHUNK_SHIFT) return null;
    return f;
  }

  /**
   * `page_cache_next_miss(index, max)`: the first absent page scanning up
   * from `index`, or `index + max`. Started inside a large folio of order
   * 1-5, the xarray walk reads slots `lag = index - folio start` below the
   * index it reports, until the end of the 64-slot leaf node, where it
   * resynchronises (skipping `lag` pages).
   */
  private nextMiss(file: number, index: number, max: number): number {
    const cache = this.cache;
    const f = this.xarrayLag ? this.leafFolio(file, index) : null;
    if (f === null || f.start === index) return cache.nextMissing(file, index, max);
    const lag = index - f.start;
    const slot0 = f.start;
    const leafEnd = (Math.floor(slot0 / XA_CHUNK_SIZE) + 1) * XA_CHUNK_SIZE;
    const n1 = Math.min(leafEnd - slot0, max);
    const m = cache.nextMissing(file, slot0, n1);
    if (m < slot0 + n1) return m + lag;
    if (n1 >= max) return index + max;
    return cache.nextMissing(file, index + n1, max - n1);
  }

  /**
   * History for CONTEXT readahead: `index - 1 - page_cache_prev_miss(index - 1, max)`,
   * with the same xarray walk as {@link nextMiss} going down. Equals `index`
   * when the scan ran off page 0 (the kernel's ULONG_MAX case).
   */
  private historyBelow(file: number, index: number, max: number): number {
    if (index <= 0 || max <= 0) return 0;
    const miss = this.prevMiss(file, index - 1, max);
    return index - 1 - miss;
  }

  private prevMiss(file: number, page: number, max: number): number {
    const cache = this.cache;
    const f = this.xarrayLag ? this.leafFolio(file, page) : null;
    if (f === null || f.start === page) return cache.prevMissing(file, page, max);
    // Iteration 0 finds the folio at `page` (xas_descend() leaves the offset on
    // its first slot); from then on the walk reads slot `slot` while
    // reporting index `idx`.
    let idx = page;
    let slot = f.start;
    let iters = 1;
    for (;;) {
      const base = Math.floor(slot / XA_CHUNK_SIZE) * XA_CHUNK_SIZE;
      const n = Math.min(slot - base, max - iters);
      if (n > 0) {
        const m = cache.prevMissing(file, slot - 1, n);
        if (m >= slot - n && m >= 0) return m + (idx - slot);
      }
      iters += n;
      idx -= n;
      slot -= n;
      if (iters >= max) return page - max;
      // Offset 0 of the leaf: __xas_prev().
      idx -= 1;
      iters += 1;
      if ((idx & (XA_CHUNK_SIZE - 1)) === 0) {
        // The offset already matches the index: slot `base` is read again (present).
        if (iters >= max) return page - max;
        idx -= 1;
        iters += 1;
      }
      if (base === 0) return idx < 0 ? -1 : idx; // walked off the tree: NULL at idx
      // Climb to the first ancestor where this subtree is not child 0, step
      // to the previous subtree, descend along idx's offsets.
      let span = XA_CHUNK_SIZE;
      while (Math.floor(base / span) % XA_CHUNK_SIZE === 0) span *= XA_CHUNK_SIZE;
      slot = (Math.floor(base / span) - 1) * span + (idx % span);
      const g = cache.folioAt(file, slot);
      if (g === null) return idx;
      if (g.order >= XA_CHUNK_SHIFT || slot === idx) return cache.prevMissing(file, idx - 1, max - iters);
    }
  }

  // ------------------------------------------------------------ submission

  /**
   * `page_cache_ra_order()` / `do_page_cache_ra()`: allocate the window's
   * absent pages, one request per run, marker on the unit holding
   * `start + size - async` if it was allocated here.
   */
  private submitWindow(
    of: LinuxOpenFile,
    start: number,
    size: number,
    asyncSize: number,
    sync: boolean,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): void {
    if (!this.largeFolios) {
      of.order = 0; // order-0 pages (≤6.9 never raises it)
      this.doPageCacheRa(of, start, size, asyncSize, sync, nowUs, submit, tally);
      return;
    }
    const cache = this.cache;
    const file = of.file;
    if (of.sizePages === 0 || start >= of.sizePages) return;
    const limit = Math.min(of.sizePages - 1, start + size - 1);
    const newOrder = Math.min(this.maxFolioOrder, of.order, ilog2(size));
    of.order = newOrder;
    const mark = start + size - asyncSize;
    let index = start;
    const folios: number[] = []; // [start, pages] pairs allocated
    let collided = false;
    while (index <= limit) {
      let order = newOrder;
      if (index % 2 ** order !== 0) order = ctz(index);
      while (order > 0 && index + 2 ** order - 1 > limit) order--;
      const n = 2 ** order;
      if (cache.nextPresent(file, index, index + n) < index + n) {
        collided = true; // filemap_add_folio() fails on a page already cached
        break;
      }
      folios.push(index, n);
      index += n;
    }
    if (folios.length > 0) {
      const runs: number[] = [];
      for (let i = 0; i < folios.length; i += 2) {
        const fs = folios[i]!;
        const order = ctz(folios[i + 1]!);
        const last = runs.length - 3;
        if (last >= 0 && runs[last + 2] === order && runs[last]! + runs[last + 1]! === fs) {
          runs[last + 1] = runs[last + 1]! + folios[i + 1]!;
        } else runs.push(fs, folios[i + 1]!, order);
      }
      issueRun(
        cache,
        submit,
        tally,
        file,
        start,
        index - start,
        sync,
        this.maxIoPages,
        nowUs,
        runs,
        this.maxSegments,
      );
      for (let i = 0; i < folios.length; i += 2) {
        const fs = folios[i]!;
        const fn = folios[i + 1]!;
        if (mark >= fs && mark < fs + fn) cache.setMarker(file, fs, fs + fn, nowUs);
      }
    }
    if (collided && size > index - start) {
      this.doPageCacheRa(of, index, size - (index - start), asyncSize, sync, nowUs, submit, tally);
    }
  }

  /**
   * `do_page_cache_ra()` + `page_cache_ra_unbounded()`: order-0 pages,
   * clamped at EOF; marker at `nr - lookahead` (relative) if allocated here.
   */
  private doPageCacheRa(
    of: LinuxOpenFile,
    index: number,
    nrToRead: number,
    lookahead: number,
    sync: boolean,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): void {
    const cache = this.cache;
    const file = of.file;
    if (of.sizePages === 0 || index >= of.sizePages) return;
    const nr = Math.min(nrToRead, of.sizePages - index);
    const mark = lookahead <= nr ? index + nr - lookahead : -1;
    const end = index + nr;
    let markAllocated = false;
    let p = index;
    while (p < end) {
      const miss = cache.nextMissing(file, p, end - p);
      if (miss >= end) break;
      // absent run [miss, runEnd)
      const runEnd = cache.nextPresent(file, miss, end);
      if (mark >= miss && mark < runEnd) markAllocated = true;
      issueRun(
        cache,
        submit,
        tally,
        file,
        miss,
        runEnd - miss,
        sync,
        this.maxIoPages,
        nowUs,
        undefined,
        this.maxSegments,
      );
      p = runEnd;
    }
    if (markAllocated) cache.setMarker(file, mark, mark + 1, nowUs);
  }

  /** `force_page_cache_ra()`: read exactly the range (capped), in 2 MiB pieces, no marker. */
  private forcedRead(
    of: LinuxOpenFile,
    index: number,
    nrToRead: number,
    sync: boolean,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): void {
    const maxPages = Math.max(this.maxIoPages, of.raPages);
    let nr = Math.min(nrToRead, maxPages);
    let i = index;
    while (nr > 0) {
      const chunk = Math.min(FORCED_CHUNK_PAGES, nr);
      this.doPageCacheRa(of, i, chunk, 0, sync, nowUs, submit, tally);
      i += chunk;
      nr -= chunk;
    }
  }

  // --------------------------------------------------------------- fadvise

  fadvise(
    of: LinuxOpenFile,
    advice: FadviseAdvice,
    page: number,
    pages: number,
    nowUs: number,
    submit: SubmitIo,
  ): IoTally {
    const tally = emptyTally();
    const n = fadviseRange(of, page, pages);
    switch (advice) {
      case "normal":
        of.raPages = this.bdiRaPages;
        of.random = false;
        break;
      case "sequential":
        of.raPages = 2 * this.bdiRaPages; // `2 × bdi ra_pages` (mm/fadvise.c, apps/docs/src/reference/linux-readahead-window.md#fadvise-and-modes)
        of.random = false;
        break;
      case "random":
        of.random = true;
        break;
      case "willneed":
        if (n > 0) this.forcedRead(of, page, n, false, nowUs, submit, tally);
        break;
      case "dontneed":
        if (n > 0) this.cache.drop(of.file, page, n, nowUs);
        break;
      default:
        throw unknownAdvice(advice);
    }
    return tally;
  }

  // ------------------------------------------------------------ fast path

  quietRun(of: LinuxOpenFile, page: number, maxPages: number, pagesPerRead: number, nowUs: number): QuietRun {
    const max = Math.min(maxPages, of.sizePages - page);
    if (max <= 0 || pagesPerRead <= 0) return { pages: 0, readyAtUs: nowUs };
    const run = this.cache.run(of.file, page, max, nowUs);
    const pages = wholeReads(run.pages, max, pagesPerRead);
    return { pages, readyAtUs: pages > 0 ? run.readyAtUs : nowUs };
  }

  skipQuiet(of: LinuxOpenFile, page: number, pages: number, _pagesPerRead: number, nowUs: number): void {
    if (pages <= 0) return;
    of.prevIndex = this.prevIndexAfter(page + pages);
    this.cache.touch(of.file, page, pages, nowUs);
  }
}

function roundDown(x: number, unit: number): number {
  return unit <= 1 ? x : Math.floor(x / unit) * unit;
}

/**
 * Creates the Linux readahead model over `cache`.
 *
 * @example
 * ```ts
 * import { PageCache, linuxReadahead } from "@scanlab/readahead";
 * const cache = new PageCache();
 * const linux = linuxReadahead(cache, { version: "<=6.9", readLoop: "5.4" }); // Linux 5.4
 * const of = linux.open(0, { sizePages: 1 << 18 });
 * const log: number[] = [];
 * const submit = (io: { pages: number }) => { log.push(io.pages * 4); return 0; };
 * for (let block = 0; block < 40; block++) linux.read(of, 2 * block, 2, 0, submit);
 * console.log(log); // [16, 32, 64, 128, 128, 128] KiB: the ramp of apps/docs/src/reference/linux-readahead-window.md#one-reader-from-block-0
 * ```
 */
export function linuxReadahead(cache: PageCache, options: LinuxOptions = {}): LinuxReadahead {
  return new LinuxReadahead(cache, options);
}
