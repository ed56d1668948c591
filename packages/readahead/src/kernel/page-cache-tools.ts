/**
 * Looking at and emptying the real page cache of one file, without root
 * (Node-only).
 *
 * `fincore --bytes --raw` (util-linux) reports the bytes of a file that are
 * resident; it asks `mincore()`, which counts a page only once it is
 * up to date, so pages still being read do not show (wait a moment after a
 * read before asking). `dd if=FILE iflag=nocache count=0` calls
 * `posix_fadvise(POSIX_FADV_DONTNEED)` on the whole file, which drops its clean
 * cached pages; any user may do it for a file they can read. Dirty pages are
 * not dropped, so a freshly written file must be synced first. Both tools are
 * run by `@scanlab/host` (fincore-residency.ts, fadvise-eviction.ts).
 */
import { evictFromPageCache, measureResidency } from "@scanlab/host";
import { ReadaheadError } from "../errors.js";

/** Resident pages (4 KiB) of `path` per `fincore` (`@scanlab/host` `measureResidency`). */
export function residentPages(path: string): number {
  const r = measureResidency([path]);
  if (!r.known) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      "fincore (util-linux) is not installed or cannot read the file, so resident pages cannot be counted.",
    );
  }
  return Math.round(r.residentBytes / 4096);
}

/** Drops the clean cached pages of `path` (POSIX_FADV_DONTNEED via dd, `@scanlab/host` `evictFromPageCache`); returns the pages still resident. */
export function evictFile(path: string): number {
  if (!evictFromPageCache([path]).ok) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `dd could not drop ${path} from the page cache (GNU coreutils dd with iflag=nocache is needed).`,
    );
  }
  return residentPages(path);
}

/** Sleeps `ms` milliseconds without busy-waiting (lets in-flight readahead complete). */
export function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
