/**
 * Node only. Evicting a file from the page cache, so that a measurement reads
 * the device and not memory, and checking that it worked. The eviction and
 * the residency measurement are `@scanlab/host`'s (`evictFromPageCache`,
 * `measureResidency`, `residencyVisible`); this file is the calibration's
 * policy on top of them.
 *
 * `dd if=FILE iflag=nocache count=0` asks the kernel (posix_fadvise
 * POSIX_FADV_DONTNEED over the whole file, GNU coreutils' documented use of
 * `iflag=nocache` with `count=0`) to drop the file's clean cached pages; dirty
 * pages cannot be dropped, so the file is fsync'ed first. Whether it worked is
 * checked with util-linux `fincore` (resident bytes of the file) when it is
 * installed; without it, or when the kernel hides the file's page cache from
 * this caller (a user who may not write it), the eviction is reported as
 * unverified.
 */
import { statSync } from "node:fs";
import { evictFromPageCache, measureResidency, residencyVisible } from "@scanlab/host";

/** Outcome of {@link evictAndVerify}. */
export interface EvictionResult {
  /** `true` when fincore confirmed (almost) nothing stays cached, `false` when it did not, `"unverified"` without fincore. */
  readonly evicted: boolean | "unverified";
  /** Bytes of the file still in the page cache, when fincore could tell. */
  readonly residentBytes?: number;
  /** Why eviction failed or could not be verified. */
  readonly reason?: string;
}

/**
 * Drops a file's pages from the page cache (fsync, then `dd iflag=nocache count=0`)
 * and checks the result with fincore when available.
 *
 * @example
 * ```ts
 * import { evictAndVerify } from "@scanlab/device-profiles/node";
 * const r = evictAndVerify("/var/lib/data/big.file");
 * if (r.evicted !== true) console.log("not evicted:", r.reason);
 * ```
 */
export function evictAndVerify(path: string): EvictionResult {
  const size = statSync(path).size;
  const dd = evictFromPageCache([path]);
  if (!dd.ok) return { evicted: false, reason: dd.reason ?? "dd iflag=nocache failed" };
  if (!residencyVisible(path)) {
    return {
      evicted: "unverified",
      reason:
        "this user may not write the file, and for such a caller Linux's mincore() (so fincore) reports every page resident (mm/mincore.c, can_do_mincore())",
    };
  }
  const residency = measureResidency([path]);
  if (!residency.known) return { evicted: "unverified", reason: "fincore (util-linux) is not available" };
  const resident = residency.residentBytes;
  // A few pages may be re-read by others meanwhile; more than 1 % resident (at least 64 KiB) means the kernel
  // ignored the advice. Both thresholds are our own tolerance, not measured.
  if (resident > Math.max(64 * 1024, size / 100)) {
    return {
      evicted: false,
      residentBytes: resident,
      reason: `${resident} of ${size} bytes stayed in the page cache after dd iflag=nocache (file system ignores POSIX_FADV_DONTNEED?)`,
    };
  }
  return { evicted: true, residentBytes: resident };
}
