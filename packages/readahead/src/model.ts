/**
 * The contract every readahead model keeps with its caller (the simulator, the
 * prediction harness, the tests).
 *
 * A model is a pure state machine over one shared {@link PageCache}. It never
 * reads a clock: the caller passes `nowUs`, and every device read the model
 * decides is handed to the caller's {@link SubmitIo} at that time, which
 * answers with the completion time. The model records those pages as in flight
 * until then. When the kernel would have to wait for an I/O *and then decide
 * something more* (a marker on the page it waited for, a miss further on in
 * the same read), the model does not decide ahead of time: it returns a
 * pending outcome and the caller resumes it at the time it names. That keeps
 * every submission in time order, which is what a discrete-event simulator
 * needs.
 *
 * Per-open state lives in an {@link OpenFile}: PostgreSQL opens each 1 GiB
 * segment separately in every backend and worker, so give each process its
 * own; pass one `OpenFile` to several processes to model one shared
 * `struct file` (threads, an fd inherited across fork, PG18 I/O workers).
 */
import type { PageCache } from "./page-cache.js";

/** Bytes per page in every model (Linux, FreeBSD and Windows x86-64 all use 4 KiB pages). */
export const PAGE_BYTES = 4096;

/** One device read decided by a model. */
export interface DeviceRead {
  /** File id (as passed to `open`). */
  file: number;
  /** First page (4 KiB units from the start of the file). */
  page: number;
  /** Length in pages. */
  pages: number;
  /** True if a reader waits for it right away (a miss), false for readahead. */
  sync: boolean;
}

/**
 * Called by a model for each device read it issues, in issue order, at the
 * `nowUs` of the call that issued it. Returns the completion time (µs, >= `nowUs`).
 */
export type SubmitIo = (io: DeviceRead) => number;

/** What a model did on a call, for metrics. */
export interface IoTally {
  /** Device reads a reader waits for (misses). */
  syncIos: number;
  /** Pages read by them. */
  syncPages: number;
  /** Readahead device reads (nobody waits for them yet). */
  asyncIos: number;
  /** Pages read by them. */
  asyncPages: number;
}

/** Opaque handle of a read that must wait before deciding more; pass it to {@link ReadaheadModel.resume}. */
export interface PendingRead {
  /** The open file the read belongs to. */
  readonly of: OpenFile;
  /** Pages of the request not yet handled. */
  readonly remainingPages: number;
}

/** Result of {@link ReadaheadModel.read} and {@link ReadaheadModel.resume}. */
export interface ReadOutcome extends IoTally {
  /**
   * If `pending` is null: when every requested page is valid (the reader may
   * go on then). Otherwise: when the reader must call
   * `resume(pending, readyAtUs, submit)`.
   */
  readyAtUs: number;
  /** Non-null when the read is not finished (see {@link ReadOutcome.readyAtUs}). */
  pending: PendingRead | null;
  /** Requested pages that were already valid when the read started (cache hits). */
  hitPages: number;
}

/** Result of {@link ReadaheadModel.quietRun}. */
export interface QuietRun {
  /** Pages from the start that can be read with no model decision (0 if the first read needs one). */
  pages: number;
  /** When those pages are all valid (the asked time if they already are). */
  readyAtUs: number;
}

/** POSIX_FADV_* advice names. */
export type FadviseAdvice = "normal" | "sequential" | "random" | "willneed" | "dontneed";

/** Per-open state common to all models. */
export interface OpenFile {
  /** File id (changes only when a simulator renames the file: `renumberOpenFile` from `@scanlab/readahead/sim`). */
  readonly file: number;
  /** File size in pages (reads and readahead stop there). */
  readonly sizePages: number;
}

/**
 * The key of an open file's rename hook, reached only through
 * `@scanlab/readahead/sim` (`renumberOpenFile`): every model's open file
 * implements it, keeping its per-open state (the readahead window, the
 * previous position, its advice) under the new id.
 */
export const RENAME_FILE: unique symbol = Symbol("@scanlab/readahead rename open file");

/** An open file a simulator may rename (every model's open file is one). */
export interface RenamableOpenFile extends OpenFile {
  /** Gives the open file a new file id. */
  [RENAME_FILE](file: number): void;
}

/** Options of {@link ReadaheadModel.open} common to all models. */
export interface OpenOptions {
  /** File size in pages (default: 2^40, i.e. effectively unbounded). */
  sizePages?: number;
}

/** How far a model's rules were checked (shown in every output that uses the model). */
export type ModelConfidence = "high" | "medium" | "low";

/**
 * A readahead model: `linux`, `freebsd-ufs`, `windows` or `none`.
 *
 * @example
 * ```ts
 * import { PageCache, linuxReadahead } from "@scanlab/readahead";
 * const cache = new PageCache();
 * const linux = linuxReadahead(cache, { version: ">=6.10" });
 * const of = linux.open(1, { sizePages: 262144 });
 * const device = (io: { pages: number }) => 0 + 100 + io.pages * 4; // completes at t = 100 µs + 1 µs/KiB
 * const out = linux.read(of, 0, 2, 0, device); // one 8 kB PostgreSQL block
 * console.log(out.syncIos, out.syncPages, out.readyAtUs); // 1 4 116: a 16 KiB initial window
 * ```
 */
export interface ReadaheadModel<O extends OpenFile = OpenFile> {
  /** Model family. */
  readonly name: "linux" | "freebsd-ufs" | "windows" | "none";
  /**
   * "high": held against the real kernel; "medium": transcribed from kernel
   * source, not measured; "low": inferred from documentation (Windows).
   */
  readonly confidence: ModelConfidence;
  /** One line naming the model and its parameters, for reports. */
  readonly label: string;
  /** The page cache the model works on. */
  readonly cache: PageCache;
  /** Opens `file` with fresh per-open state. */
  open(file: number, options?: OpenOptions): O;
  /** One read() of pages `[page, page + pages)` at `nowUs`. */
  read(of: O, page: number, pages: number, nowUs: number, submit: SubmitIo): ReadOutcome;
  /** Continues a read that had to wait (call at, or after, the time the previous outcome named). */
  resume(pending: PendingRead, nowUs: number, submit: SubmitIo): ReadOutcome;
  /** posix_fadvise on `[page, page + pages)` (pages <= 0: to the end of the file). */
  fadvise(
    of: O,
    advice: FadviseAdvice,
    page: number,
    pages: number,
    nowUs: number,
    submit: SubmitIo,
  ): IoTally;
  /**
   * How far this opener can read sequentially from `page`, in reads of
   * `pagesPerRead` pages (the last one may be shorter, ending at
   * `page + maxPages`), without the model deciding anything, and when those
   * pages are ready. Changes nothing.
   */
  quietRun(of: O, page: number, maxPages: number, pagesPerRead: number, nowUs: number): QuietRun;
  /**
   * Accounts for the reads that {@link ReadaheadModel.quietRun} found quiet,
   * exactly as the same sequence of `read` calls would (per-open state and
   * LRU). `nowUs` is the time of the first of those reads; the others are
   * assumed to happen once the run is ready.
   */
  skipQuiet(of: O, page: number, pages: number, pagesPerRead: number, nowUs: number): void;
}

/** An empty tally. */
export function emptyTally(): IoTally {
  return { syncIos: 0, syncPages: 0, asyncIos: 0, asyncPages: 0 };
}

/**
 * Builds a {@link ReadOutcome} (an explicit literal: V8 turns `{ ...tally, more }`
 * into a slow generic clone, 40x slower than this on the models' hot path).
 * @internal
 */
export function outcome(
  tally: IoTally,
  readyAtUs: number,
  pending: PendingRead | null,
  hitPages: number,
): ReadOutcome {
  return {
    syncIos: tally.syncIos,
    syncPages: tally.syncPages,
    asyncIos: tally.asyncIos,
    asyncPages: tally.asyncPages,
    readyAtUs,
    pending,
    hitPages,
  };
}

/** Default file size when `open` is given none. */
export const UNBOUNDED_PAGES = 2 ** 40;

/**
 * Issues `[start, start + pages)` (all absent) as device reads, records them
 * in flight in the cache, counts them. A request ends at `maxIoPages` pages
 * or `maxSegments` segments: an order-0 page is one segment (pages of a
 * readahead window are not physically contiguous), a large folio is one.
 * `folioOrders` ([start, pages, order] triples covering the run) says which
 * pages form large folios; without it every page is order 0.
 * @internal
 */
export function issueRun(
  cache: PageCache,
  submit: SubmitIo,
  tally: IoTally,
  file: number,
  start: number,
  pages: number,
  sync: boolean,
  maxIoPages: number,
  nowUs: number,
  folioOrders?: readonly number[],
  maxSegments = Number.POSITIVE_INFINITY,
): void {
  const end = start + pages;
  // Without folioOrders the run is one stretch of order-0 pages (no triple is allocated for it).
  const runsLength = folioOrders === undefined ? 3 : folioOrders.length;
  // Cut the run into requests, each issued as soon as it is cut (the cuts depend on nothing a request changes).
  let reqStart = start;
  let reqSegs = 0;
  for (let i = 0; i < runsLength; i += 3) {
    const runStart = folioOrders === undefined ? start : folioOrders[i]!;
    const runPages = folioOrders === undefined ? pages : folioOrders[i + 1]!;
    const rs = Math.max(start, runStart);
    const re = Math.min(end, runStart + runPages);
    const fpages = folioOrders === undefined ? 1 : 2 ** folioOrders[i + 2]!;
    for (let p = rs; p < re; ) {
      // how many folios of this run fit in the current request
      const roomPages = maxIoPages - (p - reqStart);
      const roomSegs = maxSegments - reqSegs;
      const fit = Math.min(Math.floor(roomPages / fpages), roomSegs, Math.ceil((re - p) / fpages));
      if (fit <= 0) {
        issueRequest(cache, submit, tally, file, reqStart, p, sync, nowUs, folioOrders);
        reqStart = p;
        reqSegs = 0;
        if (fpages > maxIoPages) {
          // a folio larger than a request: split it at maxIoPages
          const q = Math.min(p + maxIoPages, re);
          issueRequest(cache, submit, tally, file, p, q, sync, nowUs, folioOrders);
          reqStart = q;
          p = q;
        }
        continue;
      }
      const q = Math.min(p + fit * fpages, re);
      reqSegs += fit;
      p = q;
    }
  }
  if (reqStart < end) issueRequest(cache, submit, tally, file, reqStart, end, sync, nowUs, folioOrders);
}

/** One request of {@link issueRun}: pages `[p, q)` to the device, in flight in the cache, counted. */
function issueRequest(
  cache: PageCache,
  submit: SubmitIo,
  tally: IoTally,
  file: number,
  p: number,
  q: number,
  sync: boolean,
  nowUs: number,
  folioOrders: readonly number[] | undefined,
): void {
  const n = q - p;
  if (n <= 0) return;
  const t = submit({ file, page: p, pages: n, sync });
  if (folioOrders === undefined) cache.insert(file, p, n, t, nowUs, 0);
  else
    for (let i = 0; i < folioOrders.length; i += 3) {
      const a = Math.max(p, folioOrders[i]!);
      const b = Math.min(p + n, folioOrders[i]! + folioOrders[i + 1]!);
      if (a < b) cache.insert(file, a, b - a, t, nowUs, folioOrders[i + 2]!);
    }
  if (sync) {
    tally.syncIos++;
    tally.syncPages += n;
  } else {
    tally.asyncIos++;
    tally.asyncPages += n;
  }
}

/**
 * Tiles `[page, page + maxPages)` into reads of `pagesPerRead` and returns
 * the quiet length: `runPages` rounded down to whole reads, unless it covers
 * everything.
 * @internal
 */
export function wholeReads(runPages: number, maxPages: number, pagesPerRead: number): number {
  if (runPages >= maxPages) return maxPages;
  return Math.floor(runPages / pagesPerRead) * pagesPerRead;
}

/** Validates a read request (programming errors throw RangeError). @internal */
export function checkRead(of: OpenFile, page: number, pages: number): void {
  if (!Number.isInteger(page) || page < 0 || !Number.isInteger(pages) || pages <= 0) {
    throw new RangeError(`read of ${pages} pages at page ${page} is not a valid request`);
  }
  if (page + pages > of.sizePages) {
    throw new RangeError(
      `read of pages [${page}, ${page + pages}) goes past the end of file ${of.file} (${of.sizePages} pages)`,
    );
  }
}
