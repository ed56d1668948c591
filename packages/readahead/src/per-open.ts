/**
 * What every model does the same way for an open file: validate the size
 * given to `open()`, count the requested pages that were already valid,
 * clip an fadvise range to the file, reject an unknown advice. Internal (not
 * exported from the package).
 */
import { checkNumber, ReadaheadError } from "./errors.js";
import { type OpenFile, type OpenOptions, UNBOUNDED_PAGES } from "./model.js";
import type { PageCache } from "./page-cache.js";

/** The file size an `open()` was given, validated (default: {@link UNBOUNDED_PAGES}). @internal */
export function openSizePages(options: OpenOptions): number {
  return checkNumber("file sizePages", options.sizePages ?? UNBOUNDED_PAGES, { min: 0, integer: true });
}

/**
 * Requested pages `[page, page + pages)` that are valid at `nowUs` (a read's
 * cache hits): the run from `page`, if it is valid already, else 0.
 * @internal
 */
export function validPagesAt(
  cache: PageCache,
  file: number,
  page: number,
  pages: number,
  nowUs: number,
): number {
  const hit = cache.run(file, page, pages, nowUs, true);
  return hit.readyAtUs <= nowUs ? hit.pages : 0;
}

/** Pages an fadvise of `[page, page + pages)` covers (`pages <= 0`: to the end of the file). @internal */
export function fadviseRange(of: OpenFile, page: number, pages: number): number {
  return pages > 0 ? Math.min(pages, of.sizePages - page) : of.sizePages - page;
}

/** The error for an fadvise advice that is none of the five (`throw unknownAdvice(advice)`). @internal */
export function unknownAdvice(advice: string): ReadaheadError {
  return new ReadaheadError(
    "READAHEAD_BAD_PARAMETER",
    `fadvise advice ${JSON.stringify(advice)} is unknown; use normal, sequential, random, willneed or dontneed.`,
  );
}
