/**
 * Cold or warm: how much of the file the OS page cache holds, and how to
 * empty it without root.
 *
 * A scan of a file that is already in the page cache never touches the
 * device: it measures memory copies, not I/O. The numbers of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com) (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks
 * ) are cold-cache numbers: the table was far bigger than what had been read
 * recently. So every result states what the cache held, *measured*, before and
 * after the scan, and classifies the scan from the before-measurement:
 *
 * - **Measuring** and **evicting** are `@scanlab/host`'s (fincore-residency.ts:
 *   fincore, i.e. mincore(2); fadvise-eviction.ts: fdatasync, then
 *   `dd iflag=nocache count=0`, i.e. posix_fadvise DONTNEED, no root needed).
 *   Where fincore is not installed or fails, residency is "unknown" and so is
 *   the cache state; we do not guess from the eviction option.
 * - **Classifying**: cold when at most 1% of the file was resident before the
 *   scan, warm when at least 99% was, mixed in between. The 1% margins are
 *   scanlab's choice: a file that was evicted a moment ago can get a few pages
 *   back from another reader, and one that was just read can lose a few to
 *   memory pressure, and neither changes what the scan measures.
 */
import type { Residency } from "@scanlab/host";

export type { Residency };

/** At most this fraction of the file resident before the scan: "cold" (scanlab's choice, see the file header). */
export const COLD_MAX_RESIDENT_FRACTION = 0.01;
/** At least this fraction resident before the scan: "warm" (scanlab's choice, see the file header). */
export const WARM_MIN_RESIDENT_FRACTION = 0.99;

/** The scan's cache state, from the residency measured before it: see {@link classifyCache}. */
export type CacheState = "cold" | "warm" | "mixed" | "unknown";

/** What eviction did, in a scan's result. */
export interface EvictionReport {
  /** Whether the caller asked for eviction. */
  readonly requested: boolean;
  /** Whether every file's DONTNEED call ran without error (whether it worked shows in `before`). */
  readonly ok: boolean;
  /** Why it did not run, when `requested && !ok`. */
  readonly reason?: string;
  /** Whether the scan then waited for the freed memory to go back to the hypervisor (`settleFreedMemory`, @scanlab/host). */
  readonly settled?: boolean;
}

/**
 * The cache state of a scan from the residency measured before it: "cold"
 * (at most 1% resident), "warm" (at least 99%), "mixed", or "unknown" when
 * fincore could not tell.
 *
 * @example
 * ```ts
 * import { classifyCache } from "@scanlab/file-scan";
 * classifyCache({ known: true, residentBytes: 0, totalBytes: 1 << 30, fraction: 0 }); // "cold"
 * ```
 */
export function classifyCache(before: Residency): CacheState {
  if (!before.known) return "unknown";
  if (before.fraction <= COLD_MAX_RESIDENT_FRACTION) return "cold";
  if (before.fraction >= WARM_MIN_RESIDENT_FRACTION) return "warm";
  return "mixed";
}
