/**
 * Node only. Evicting a file from the page cache, so that a measurement reads
 * the device and not memory.
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
import { spawnSync } from "node:child_process";
import { accessSync, closeSync, constants, fsyncSync, openSync, statSync } from "node:fs";

/** Outcome of {@link evictFromPageCache}. */
export interface EvictionResult {
  /** `true` when fincore confirmed (almost) nothing stays cached, `false` when it did not, `"unverified"` without fincore. */
  readonly evicted: boolean | "unverified";
  /** Bytes of the file still in the page cache, when fincore could tell. */
  readonly residentBytes?: number;
  /** Why eviction failed or could not be verified. */
  readonly reason?: string;
}

/**
 * Whether mincore(2), and so fincore, shows this caller the file's page cache. Linux's mm/mincore.c
 * (`can_do_mincore()`, commit 134fca9063ad, 2019) answers truthfully for a file mapping only when the caller
 * owns the inode (or has CAP_FOWNER) or could open the file for writing; to anyone else it reports every page
 * resident. access(2) with W_OK asks the second question the same way (EROFS on a read-only mount included).
 */
export function residencyVisible(path: string): boolean {
  if (process.platform !== "linux") return true;
  try {
    if (statSync(path).uid === process.geteuid?.()) return true;
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Bytes of a file in the page cache according to util-linux fincore, or undefined when fincore is unavailable. */
export function residentBytes(path: string): number | undefined {
  const r = spawnSync("fincore", ["--bytes", "--noheadings", "--output", "RES", path], { encoding: "utf8" });
  if (r.status !== 0 || typeof r.stdout !== "string") return undefined;
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Drops a file's pages from the page cache (fsync, then `dd iflag=nocache count=0`)
 * and checks the result with fincore when available.
 *
 * @example
 * ```ts
 * import { evictFromPageCache } from "@scanlab/device-profiles/node";
 * const r = evictFromPageCache("/var/lib/data/big.file");
 * if (r.evicted !== true) console.log("not evicted:", r.reason);
 * ```
 */
export function evictFromPageCache(path: string): EvictionResult {
  const size = statSync(path).size;
  try {
    const fd = openSync(path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // fsync of a read-only file may be refused on some file systems; dd still drops clean pages.
  }
  const dd = spawnSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], { encoding: "utf8" });
  if (dd.error !== undefined || dd.status !== 0) {
    const why = dd.error?.message ?? (dd.stderr || `exit status ${dd.status}`).trim();
    return { evicted: false, reason: `dd iflag=nocache failed: ${why}` };
  }
  if (!residencyVisible(path)) {
    return {
      evicted: "unverified",
      reason:
        "this user may not write the file, and for such a caller Linux's mincore() (so fincore) reports every page resident (mm/mincore.c, can_do_mincore())",
    };
  }
  const resident = residentBytes(path);
  if (resident === undefined)
    return { evicted: "unverified", reason: "fincore (util-linux) is not available" };
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
