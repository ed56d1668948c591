/**
 * Direct I/O: no page cache, no readahead.
 *
 * With `O_DIRECT` (Linux, FreeBSD) or `FILE_FLAG_NO_BUFFERING` (Windows)
 * every read() goes to the device as it was asked: one synchronous request
 * for exactly the requested range, split only at the device's largest
 * request size, whatever is cached. This is what PostgreSQL's
 * `debug_io_direct = data` (PG16+) does, and the baseline against which the
 * other models' extra reads are judged. Nothing is inserted into the page
 * cache and nothing is remembered per open file.
 */
import { checkNumber } from "./errors.js";
import {
  checkRead,
  emptyTally,
  type FadviseAdvice,
  type IoTally,
  type OpenFile,
  type OpenOptions,
  outcome,
  type PendingRead,
  type QuietRun,
  type ReadaheadModel,
  type ReadOutcome,
  type SubmitIo,
} from "./model.js";
import type { PageCache } from "./page-cache.js";
import { openSizePages, unknownAdvice } from "./per-open.js";

/** Options of {@link directIo}. */
export interface DirectIoOptions {
  /** Largest device request in KiB. Default 1280 (Linux `BLK_DEF_MAX_SECTORS`, 2560 sectors). */
  maxIoKb?: number;
}

/** The direct-I/O "model": exactly what was asked. */
export class DirectIo implements ReadaheadModel<OpenFile> {
  readonly name = "none" as const;
  readonly confidence = "high" as const;
  readonly label: string;
  readonly cache: PageCache;
  /** Largest request in pages. */
  readonly maxIoPages: number;

  constructor(cache: PageCache, options: DirectIoOptions = {}) {
    this.cache = cache;
    // 1280 KiB: Linux `BLK_DEF_MAX_SECTORS` (2560 sectors, block/blk-settings.c); at least one
    // 4 KiB page (PAGE_BYTES).
    const kb = checkNumber("direct I/O maxIoKb", options.maxIoKb ?? 1280, { min: 4 });
    this.maxIoPages = Math.floor(kb / 4);
    this.label = `none (direct I/O, requests up to ${kb} KiB)`;
  }

  open(file: number, options: OpenOptions = {}): OpenFile {
    return { file, sizePages: openSizePages(options) };
  }

  read(of: OpenFile, page: number, pages: number, nowUs: number, submit: SubmitIo): ReadOutcome {
    checkRead(of, page, pages);
    const tally = emptyTally();
    let readyAtUs = nowUs;
    for (let p = page; p < page + pages; p += this.maxIoPages) {
      const n = Math.min(this.maxIoPages, page + pages - p);
      const t = submit({ file: of.file, page: p, pages: n, sync: true });
      if (t > readyAtUs) readyAtUs = t;
      tally.syncIos++;
      tally.syncPages += n;
    }
    return outcome(tally, readyAtUs, null, 0);
  }

  resume(_pending: PendingRead, _nowUs: number, _submit: SubmitIo): ReadOutcome {
    throw new RangeError("direct I/O never leaves a read pending");
  }

  fadvise(
    _of: OpenFile,
    advice: FadviseAdvice,
    _page: number,
    _pages: number,
    _nowUs: number,
    _submit: SubmitIo,
  ): IoTally {
    switch (advice) {
      case "normal":
      case "sequential":
      case "random":
      case "willneed":
      case "dontneed":
        return emptyTally(); // no page cache to advise
      default:
        throw unknownAdvice(advice);
    }
  }

  quietRun(_of: OpenFile, _page: number, _maxPages: number, _pagesPerRead: number, nowUs: number): QuietRun {
    return { pages: 0, readyAtUs: nowUs }; // every read is a device read
  }

  skipQuiet(_of: OpenFile, _page: number, _pages: number, _pagesPerRead: number, _nowUs: number): void {}
}

/**
 * Creates the direct-I/O model (`none`).
 *
 * @example
 * ```ts
 * import { PageCache, directIo } from "@scanlab/readahead";
 * const none = directIo(new PageCache());
 * const of = none.open(0);
 * const out = none.read(of, 0, 2, 0, () => 120);
 * console.log(out.syncIos, out.syncPages); // 1 2: one 8 kB read, nothing more
 * ```
 */
export function directIo(cache: PageCache, options: DirectIoOptions = {}): DirectIo {
  return new DirectIo(cache, options);
}
