/**
 * `@scanlab/readahead/sim`: the page-cache side of the renumbering protocol
 * of `@scanlab/core/sim`, for a simulator that cuts a stretch of whole
 * segment files out of a table under running scans, or puts it back
 * (`@scanlab/simulator`'s warp). The kernel knows files, not table blocks:
 * the table's segment files are renamed, and the pages, their readiness and
 * LRU ages, and each open file's readahead state stay as they were. A
 * program that only reads files never needs this, so it stays off the main
 * entry. Browser-safe.
 *
 * @packageDocumentation
 */
import { type Renumbering, renumberSegment } from "@scanlab/core/sim";
import { ReadaheadError } from "./errors.js";
import { type OpenFile, RENAME_FILE, type RenamableOpenFile } from "./model.js";
import { type PageCache, RENAME_FILES } from "./page-cache.js";

/** How a relation's segment files are numbered in the page cache. */
export interface SegmentFiles {
  /** File id of segment 0: segment `s` is file `first + s`. */
  readonly first: number;
  /** First file id past the relation's range (ids in [first, end) are its segments). */
  readonly end: number;
  /** Blocks per segment file (RELSEG_SIZE). */
  readonly segmentBlocks: number;
}

/** The file id `file` becomes, or -1 for a segment that was cut out (other files keep their ids). */
function renumberedFile(change: Renumbering, files: SegmentFiles, file: number): number {
  if (file < files.first || file >= files.end) return file;
  const segment = renumberSegment(change, files.segmentBlocks, file - files.first);
  return segment < 0 ? -1 : files.first + segment;
}

/**
 * Renames the relation's cached segment files for a stretch of whole
 * segments cut out or put back: the cache then behaves exactly as if the
 * files had carried their new ids from the start. Pages of a cut segment
 * must have been dropped first (the simulator accounts for them).
 *
 * @example
 * ```ts
 * import { PageCache } from "@scanlab/readahead";
 * import { renumberSegmentFiles } from "@scanlab/readahead/sim";
 * import { cutStretch } from "@scanlab/core/sim";
 * const cache = new PageCache({ capacityPages: 1 << 16 });
 * cache.insert(103, 0, 8, 0, 0); // 8 pages of segment 3 of a relation whose segment 0 is file 100
 * renumberSegmentFiles(cache, cutStretch(0, 8 * 131072, 131072, 2 * 131072), {
 *   first: 100, end: 200, segmentBlocks: 131072,
 * });
 * cache.cachedFiles(); // [101]: segments 1 and 2 left, segment 3 became segment 1
 * ```
 *
 * @throws `ReadaheadError` `READAHEAD_BAD_PARAMETER` when a cut segment still has pages cached.
 */
export function renumberSegmentFiles(cache: PageCache, change: Renumbering, files: SegmentFiles): void {
  cache[RENAME_FILES]((file) => {
    const moved = renumberedFile(change, files, file);
    if (moved < 0)
      throw new ReadaheadError(
        "READAHEAD_BAD_PARAMETER",
        `segment ${file - files.first} is cut out but still has pages cached: drop them first.`,
      );
    return moved;
  });
}

/**
 * Renames an open segment file for the same change, keeping its per-open
 * state (the readahead window, the previous position, its advice).
 *
 * @returns false, leaving the file as it was, when its segment was cut out
 * (the caller closes it).
 * @throws `ReadaheadError` `READAHEAD_BAD_PARAMETER` for an open file no model of this package made.
 */
export function renumberOpenFile(of: OpenFile, change: Renumbering, files: SegmentFiles): boolean {
  const moved = renumberedFile(change, files, of.file);
  if (moved < 0) return false;
  const rename = (of as Partial<RenamableOpenFile>)[RENAME_FILE];
  if (typeof rename !== "function")
    throw new ReadaheadError(
      "READAHEAD_BAD_PARAMETER",
      "the open file was not opened by one of this package's models.",
    );
  if (moved !== of.file) rename.call(of, moved);
  return true;
}
