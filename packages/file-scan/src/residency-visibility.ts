/**
 * Whether mincore(2) tells this caller the truth about a file, and what to
 * go by when it does not.
 *
 * Problem. Residency comes from `fincore`, i.e. mincore(2) on a mapping of
 * the file. The kernel hides the page cache of files the caller could not
 * write: mm/mincore.c, `can_do_mincore()`, from commit 134fca9063ad
 * ("mm/mincore.c: make mincore() more conservative", Jiri Kosina, 2019),
 * returns true for a file mapping only when
 * `inode_owner_or_capable()` (the caller owns the inode, or has CAP_FOWNER)
 * or `file_permission(file, MAY_WRITE) == 0` (it could open the file for
 * writing); otherwise `do_mincore()` fills the vector with 1s: every page
 * "resident". The rule closes a side channel (watching another user's page
 * cache). Its consequence here: a user who may read a table's files but not
 * write them (scanning `$PGDATA` as anyone but postgres) sees every file
 * 100% resident, just evicted or not, and a truly cold scan is labelled
 * warm.
 *
 * Insight. The same question can be answered afterwards, from what the
 * device did for this process: `/proc/self/io` `read_bytes` counts the bytes
 * this process (every thread of it, so every scan worker) caused to be read
 * from storage, readahead included (Documentation/filesystems/proc.rst,
 * "read_bytes"). Bytes the scan read that the device did not read came from
 * the page cache. Unlike /proc/diskstats it is not disturbed by other
 * programs reading the same device.
 *
 * Choices.
 * - Apply the kernel's rule up front (owner, or write access by access(2)
 *   with W_OK, which also answers EROFS on a read-only mount as
 *   file_permission does), rather than guessing from a 100% answer: a file
 *   can be truly resident. It is applied from Linux 5.0 on (the 2019 changes
 *   to mincore() for others' files start there); where it is applied
 *   needlessly the device-read method is still right, only less immediate.
 * - When residency is hidden, classify by the share of the scanned bytes
 *   the device read for this process, with the same 1% / 99% margins as
 *   the residency rule (page-cache.ts). Readahead past the last block read
 *   can make the device read more than was scanned: the share is capped at 1.
 * - The report names the method, so a reader knows which it was.
 */
import { accessSync, constants, statSync } from "node:fs";
import { release } from "node:os";
import { type CacheState, COLD_MAX_RESIDENT_FRACTION, WARM_MIN_RESIDENT_FRACTION } from "./page-cache.js";

/** Whether mincore() shows this caller the page cache of a file. */
export type ResidencyVisibility =
  | {
      /** mincore() answers for this caller: residency can be read from it. */
      readonly visible: true;
    }
  | {
      /** mincore() reports every page resident to this caller, whatever is cached. */
      readonly visible: false;
      /** One sentence: which file, and the kernel's rule. */
      readonly reason: string;
    };

/** The first kernel release whose mincore() may hide others' page cache (see the file header). */
const HIDING_SINCE: readonly [number, number] = [5, 0];

function kernelHides(kernelRelease: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(kernelRelease);
  if (m === null) return true; // an unparsable release: assume a current kernel
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > HIDING_SINCE[0] || (major === HIDING_SINCE[0] && minor >= HIDING_SINCE[1]);
}

/**
 * The kernel's rule for `paths` and this process (see the file header).
 *
 * @example
 * ```ts
 * import { residencyVisibility } from "@scanlab/file-scan";
 * const v = residencyVisibility(["/var/lib/postgresql/15/main/base/5/16384"]);
 * if (!v.visible) console.log(v.reason);
 * ```
 */
export function residencyVisibility(
  paths: readonly string[],
  kernel: { platform?: string; release?: string } = {},
): ResidencyVisibility {
  if ((kernel.platform ?? process.platform) !== "linux") return { visible: true };
  if (!kernelHides(kernel.release ?? release())) return { visible: true };
  const euid = process.geteuid?.();
  for (const path of paths) {
    try {
      if (euid !== undefined && statSync(path).uid === euid) continue;
    } catch {
      continue; // the scan itself reports a file it cannot stat
    }
    try {
      accessSync(path, constants.W_OK);
    } catch {
      return {
        visible: false,
        reason: `this user may read ${path} but not write it, and for such a caller Linux's mincore() reports every page resident (mm/mincore.c, can_do_mincore()), so residency cannot be measured`,
      };
    }
  }
  return { visible: true };
}

/**
 * Cold, warm or mixed from what the device read for the scan: `deviceBytes`
 * of the `scannedBytes` (see the file header); "unknown" without the counter.
 *
 * @example
 * ```ts
 * import { classifyByDeviceReads } from "@scanlab/file-scan";
 * classifyByDeviceReads(64 << 20, 64 << 20); // "cold": the device read every byte
 * ```
 */
export function classifyByDeviceReads(deviceBytes: number | null, scannedBytes: number): CacheState {
  if (deviceBytes === null || scannedBytes <= 0) return "unknown";
  const fromCache = 1 - Math.min(1, deviceBytes / scannedBytes);
  if (fromCache <= COLD_MAX_RESIDENT_FRACTION) return "cold";
  if (fromCache >= WARM_MIN_RESIDENT_FRACTION) return "warm";
  return "mixed";
}
