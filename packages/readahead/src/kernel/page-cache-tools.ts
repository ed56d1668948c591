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

/**
 * Resident pages of `path` once the reads in flight have landed: counted after
 * 20 ms, then every `settleMs` until two counts agree (at most 10 times). A
 * readahead request is submitted within the read that triggers it, and its
 * pages show all at once when it completes; on a busy disk that takes longer
 * than a fixed pause, so a count taken too early would see the window of the
 * read before.
 */
export function settledResidentPages(path: string, settleMs = 100): number {
  sleepMs(20);
  let count = residentPages(path);
  for (let i = 0; i < 10; i++) {
    sleepMs(settleMs);
    const again = residentPages(path);
    if (again === count) return count;
    count = again;
  }
  return count;
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
